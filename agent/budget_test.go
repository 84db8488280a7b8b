package agent

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/tools"
)

func sys(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: s}
}
func user(s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: s}
}
func asst(s string, callIDs ...string) openai.ChatCompletionMessage {
	m := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: s}
	for _, id := range callIDs {
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "web_fetch", Arguments: `{"url":"http://127.0.0.1/` + id + `"}`}})
	}
	return m
}
func toolMsg(id, s string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: s}
}
func imgMsg() openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
		{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,AAAA"}}}}
}

// shape describes messages as role:first-word, short enough to compare.
func shape(msgs []openai.ChatCompletionMessage) []string {
	var out []string
	for _, m := range msgs {
		c := m.Content
		switch {
		case strings.HasPrefix(c, elidedPrefix):
			c = "ELIDED"
		case m.MultiContent != nil:
			c = "IMAGE"
		case len(c) > 12:
			c = c[:12]
		}
		out = append(out, m.Role+":"+c)
	}
	return out
}

func TestFitContext(t *testing.T) {
	big := strings.Repeat("x", 30_000) // ~10k tokens
	conv := func() []openai.ChatCompletionMessage {
		return []openai.ChatCompletionMessage{
			sys("system"),
			user("first task"), asst("", "a"), toolMsg("a", big), imgMsg(), asst("answer one"),
			user("second task"), asst("", "b"), toolMsg("b", big), asst("answer two"),
			user("third task"), asst("", "c"), toolMsg("c", big),
		}
	}
	tests := []struct {
		name  string
		limit int
		want  []string
	}{
		{name: "fits", limit: 100_000, want: shape(conv())},
		{name: "oldest tool results and images go first, current step stays", limit: 22_000, want: []string{
			"system:system", "user:first task", "assistant:", "tool:ELIDED", "user:IMAGE", "assistant:answer one",
			"user:second task", "assistant:", "tool:xxxxxxxxxxxx", "assistant:answer two",
			"user:third task", "assistant:", "tool:xxxxxxxxxxxx",
		}},
		{name: "then images and later results", limit: 10_500, want: []string{
			"system:system", "user:first task", "assistant:", "tool:ELIDED", "user:ELIDED", "assistant:answer one",
			"user:second task", "assistant:", "tool:ELIDED", "assistant:answer two",
			"user:third task", "assistant:", "tool:xxxxxxxxxxxx",
		}},
		{name: "then whole early exchanges are dropped", limit: 9_000, want: []string{
			"system:system", "user:third task", "assistant:", "tool:xxxxxxxxxxxx",
		}},
		{name: "never the system prompt or the latest exchange", limit: 10, want: []string{
			"system:system", "user:third task", "assistant:", "tool:xxxxxxxxxxxx",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := fitContext(conv(), tt.limit)
			if diff := cmp.Diff(tt.want, shape(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFitContextSummaryNamesTheCall(t *testing.T) {
	msgs := []openai.ChatCompletionMessage{
		sys("s"), user("q"), asst("", "a"), toolMsg("a", "Example Domain "+strings.Repeat("y", 9000)), asst("done"), user("next"),
	}
	got, n := fitContext(msgs, 100)
	if n == 0 {
		t.Fatal("nothing shortened")
	}
	s := got[3].Content
	for _, want := range []string{"web_fetch", "127.0.0.1/a", "Example Domain", "9015 chars", "Call the tool again"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary %q lacks %q", s, want)
		}
	}
}

// loadCDMTools reads chrome-devtools-mcp 1.11.0's tools/list as captured from
// the real server (npx chrome-devtools-mcp@1.11.0), turned into ToolDefs the
// way the registry offers MCP tools.
func loadCDMTools(t *testing.T) []tools.ToolDef {
	t.Helper()
	// One capture serves both packages: mcpclient's golden tests own it.
	data, err := os.ReadFile("../mcpclient/testdata/chrome-devtools-mcp-1.11.0.tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	var defs []tools.ToolDef
	for _, tl := range list.Tools {
		defs = append(defs, tools.ToolDef{Name: "mcp__chrome-devtools__" + tl.Name, RawName: tl.Name, Server: "chrome-devtools",
			Source: tools.SourceMCP, Description: tl.Description, Parameters: tl.InputSchema})
	}
	return defs
}

// nativeTools stands for the browser's native tools, by name only.
func nativeTools() []tools.ToolDef {
	var defs []tools.ToolDef
	for _, e := range catalog.Entries() {
		if e.Kind == catalog.DevTools && e.Twin != "" {
			defs = append(defs, tools.ToolDef{Name: e.Twin, Source: tools.SourceBrowser, Description: "native"})
		}
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs
}

func TestCompactToolsKeepsEveryParameter(t *testing.T) {
	defs := loadCDMTools(t)
	for _, e := range []ToolEconomy{{DevTools: true}, {}} {
		for _, d := range CompactTools(defs, e) {
			var orig tools.ToolDef
			for _, o := range defs {
				if o.Name == d.Name {
					orig = o
				}
			}
			if diff := cmp.Diff(paramShape(orig.Parameters), paramShape(d.Parameters)); diff != "" {
				t.Errorf("%s: parameters changed (-want +got):\n%s", d.Name, diff)
			}
			if d.Description == "" {
				t.Errorf("%s: description lost", d.Name)
			}
		}
	}
}

// paramShape is what a model needs to call a tool right: each parameter's
// name, type and enum, and the required list.
func paramShape(schema map[string]any) map[string]any {
	out := map[string]any{"required": schema["required"]}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		pm, _ := p.(map[string]any)
		out[name] = []any{pm["type"], pm["enum"], pm["items"] != nil}
	}
	return out
}

func TestCompactToolsBytes(t *testing.T) {
	cdm := loadCDMTools(t)
	native := nativeTools()
	both := append(append([]tools.ToolDef(nil), native...), cdm...)
	tests := []struct {
		name      string
		defs      []tools.ToolDef
		economy   ToolEconomy
		wantTools int
	}{
		{"all 32 tools, tightened", cdm, ToolEconomy{DevTools: true}, 32},
		{"developer tools left out", cdm, ToolEconomy{}, 19},
		// hover, drag, upload_file and handle_dialog have native twins too;
		// fill_form takes uids, so take_snapshot, their source, stays with it
		// (list_pages, resize_page, type_text, fill_form, take_snapshot)
		{"and duplicates of native tools left out", both, ToolEconomy{}, len(native) + 5},
	}
	before := ToolDefBytes(cdm)
	t.Logf("chrome-devtools-mcp 1.11.0 as served: %d tools, %d bytes", len(cdm), before)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CompactTools(tt.defs, tt.economy)
			if len(got) != tt.wantTools {
				t.Errorf("tools = %d, want %d", len(got), tt.wantTools)
			}
			var mcpOnly []tools.ToolDef
			for _, d := range got {
				if d.Source == tools.SourceMCP {
					mcpOnly = append(mcpOnly, d)
				}
			}
			after := ToolDefBytes(mcpOnly)
			t.Logf("%s: %d MCP tools, %d bytes (%.0f%% of %d)", tt.name, len(mcpOnly), after, 100*float64(after)/float64(before), before)
			if after >= before {
				t.Errorf("no saving: %d >= %d bytes", after, before)
			}
		})
	}
}

func TestTighten(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"short  text\n here", 50, "short text here"},
		{"First sentence is here. Second sentence is longer than the cap allows.", 40, "First sentence is here."},
		{"one long sentence without a stop that goes on", 20, "one long sentence…"},
	}
	for _, tt := range tests {
		if got := tighten(tt.in, tt.limit); got != tt.want {
			t.Errorf("tighten(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

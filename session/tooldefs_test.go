package session

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// maxDefaultToolBytes bounds the tool definitions of one request with the
// default tools: web_fetch, the native browser tools and the real
// chrome-devtools-mcp@1.11.0's (13.4 KB before they were trimmed further;
// take_snapshot, the source of the uids fill_form takes, is
// offered with them since the one tool set; 11 000 until browser_html,
// browser_pdf, browser_press's text, browser_wait's load and
// browser_screenshot's annotate joined).
const maxDefaultToolBytes = 11_800

// TestToolDefinitionsWithChromeDevtoolsMCP: with the real
// chrome-devtools-mcp ready, the tools array the agent sends (as the
// scripted LLM received it) is at most 10 KB, and every tool offered keeps
// every required parameter of its source's schema, with its type.
func TestToolDefinitionsWithChromeDevtoolsMCP(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	site := serveSite(t)
	s := openSessionWith(t, &SessionOptions{MCP: mcpclient.DefaultConfig()})
	s.Start(context.Background())
	// The first browser call starts the browser and chrome-devtools-mcp.
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
		logs, _ := s.MCP.Logs(mcpclient.DefaultServerName)
		t.Fatalf("chrome-devtools-mcp: %v\n%s", err, strings.Join(logs, "\n"))
	}

	llm := llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("ok")})
	a, err := agent.New(agent.ResolveSettings(agent.Overrides{BaseURL: llm.URL, Model: "m"}, func(string) string { return "" }, nil), s.Registry, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Turn(ctx, "hello", discardEvents{}); err != nil {
		t.Fatal(err)
	}
	reqs := llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	req := reqs[0]
	var mcpSent int
	for _, n := range req.Tools {
		if strings.HasPrefix(n, "mcp__") {
			mcpSent++
		}
	}
	all := s.Registry.Tools()
	t.Logf("the request offers %d tools (%d of chrome-devtools-mcp) in %d bytes of definitions; as registered: %d tools, %d bytes; with devtools: true, %d bytes",
		len(req.Tools), mcpSent, req.ToolsBytes, len(all), agent.ToolDefBytes(all), agent.ToolDefBytes(agent.CompactTools(all, agent.ToolEconomy{DevTools: true})))
	if req.ToolsBytes > maxDefaultToolBytes {
		t.Errorf("tool definitions take %d bytes, want at most %d", req.ToolsBytes, maxDefaultToolBytes)
	}
	if mcpSent == 0 {
		t.Error("no chrome-devtools-mcp tool offered: the measure would be of the native tools only")
	}

	sent := sentSchemas(t, req.Body)
	source := map[string]tools.ToolDef{}
	for _, d := range s.Registry.Tools() {
		source[d.Name] = d
	}
	for _, name := range req.Tools {
		def, ok := source[name]
		if !ok {
			t.Errorf("%s is offered but no source has it", name)
			continue
		}
		for _, p := range required(def.Parameters) {
			got, ok := property(sent[name], p)
			if !ok {
				t.Errorf("%s: required parameter %q lost", name, p)
				continue
			}
			want, _ := property(def.Parameters, p)
			if got["type"] == nil || !jsonEqual(got["type"], want["type"]) {
				t.Errorf("%s: required parameter %q has type %v, its source says %v", name, p, got["type"], want["type"])
			}
		}
		if diff := cmp.Diff(required(def.Parameters), required(sent[name])); diff != "" {
			t.Errorf("%s: required list changed (-want +got):\n%s", name, diff)
		}
	}
}

// sentSchemas reads the parameters schema of every tool from a request body.
func sentSchemas(t *testing.T, body []byte) map[string]map[string]any {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name       string         `json:"name"`
				Parameters map[string]any `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, tl := range req.Tools {
		out[tl.Function.Name] = tl.Function.Parameters
	}
	return out
}

func required(schema map[string]any) []string {
	var out []string
	switch r := schema["required"].(type) {
	case []any:
		for _, x := range r {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, r...)
	}
	sort.Strings(out)
	return out
}

func property(schema map[string]any, name string) (map[string]any, bool) {
	props, _ := schema["properties"].(map[string]any)
	p, ok := props[name].(map[string]any)
	return p, ok
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

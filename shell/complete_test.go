package shell

import (
	"context"
	"testing"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stubMCP is a manager snapshot for completion and /mcp tests.
type stubMCP struct{ sts []mcpclient.Status }

func (m *stubMCP) Status() []mcpclient.Status            { return m.sts }
func (m *stubMCP) Restart(context.Context, string) error { return nil }
func (m *stubMCP) Logs(string) ([]string, error)         { return []string{"started", "listening"}, nil }
func (m *stubMCP) Prompts(name string) ([]*mcp.Prompt, error) {
	if name != "git" {
		return nil, nil
	}
	return []*mcp.Prompt{{Name: "commit", Description: "write a commit message", Arguments: []*mcp.PromptArgument{{Name: "style", Required: true}}}}, nil
}
func (m *stubMCP) GetPrompt(_ context.Context, server, p string, args map[string]string) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: server + "/" + p + " in " + args["style"] + " style"}}}}, nil
}
func (m *stubMCP) Resources(name string) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	if name != "docs" {
		return nil, nil, nil
	}
	return []*mcp.Resource{{URI: "file:///readme.md", Name: "readme"}},
		[]*mcp.ResourceTemplate{{URITemplate: "file:///{path}", Name: "any file"}}, nil
}
func (m *stubMCP) ExpandMentions(_ context.Context, msg string) (string, error) { return msg, nil }
func (m *stubMCP) WaitAll(context.Context) error                                { return nil }

func newStubMCP() *stubMCP {
	return &stubMCP{sts: []mcpclient.Status{
		{Name: "docs", State: mcpclient.StateReady, Tools: 2, Resources: 1},
		{Name: "git", State: mcpclient.StateStarting, Prompts: 1},
	}}
}

// stubBrowser reports a mode and tabs.
type stubBrowser struct {
	mode guard.Mode
	tabs []browser.Tab
}

func (b *stubBrowser) Mode() guard.Mode { return b.mode }
func (b *stubBrowser) Connect(_ context.Context, t browser.Target) (string, error) {
	if t.BrowserURL == "" {
		return "", browser.ErrNotDebuggable
	}
	b.mode = guard.Shared
	return "Dropped 2 \"always allow\" grants.", nil
}
func (b *stubBrowser) Disconnect(context.Context) (string, error) {
	b.mode = guard.Isolated
	return "", nil
}
func (b *stubBrowser) Tabs() []browser.Tab { return b.tabs }

func TestSuggest(t *testing.T) {
	s := New(&Options{
		Tools: newFakeTools(),
		MCP:   newStubMCP(),
		Tabs: &stubBrowser{tabs: []browser.Tab{
			{ID: "t1", Title: "Example", URL: "https://example.com/", Current: true},
			{ID: "t2", Title: "Docs", URL: "https://docs.test/"},
		}},
	})
	texts := func(in []suggestion) []string {
		var out []string
		for _, sg := range in {
			out = append(out, sg.text)
		}
		return out
	}
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"hello wor", nil},
		{"/sc", []string{"/screenshot"}},
		{"/t", []string{"/tabs", "/tab", "/type", "/tools", "/trust"}},
		{"/mcp_", []string{"/mcp__git__commit"}},
		{"/fetch x --s", []string{"--select"}},
		{"/connect --", []string{"--user-data-dir", "--browser-url", "--ws-endpoint"}},
		{"/fetch x --select ", nil},
		{"/mcp ", []string{"restart", "logs", "enable", "disable", "tools", "resources", "prompts", "watch", "unwatch", "log-level", "login"}},
		{"/mcp re", []string{"restart", "resources"}},
		{"/mcp logs ", []string{"docs", "git"}},
		{"/mcp logs g", []string{"git"}},
		{"/mcp logs git ", nil},
		{"/tab ", []string{"1", "2"}},
		{"/call web", []string{"web_fetch"}},
		{"/call mcp", []string{"mcp__git__status"}},
		{"/help op", []string{"open"}},
		{"summarise @", []string{"@docs:"}},
		{"summarise @docs:", []string{"@docs:file:///readme.md", "@docs:file:///"}},
		{"summarise @docs:file:///r", []string{"@docs:file:///readme.md"}},
		{"/nosuch ", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, texts(s.suggest(tt.text))); diff != "" {
			t.Errorf("suggest(%q) (-want +got)\n%s", tt.text, diff)
		}
	}
	// Descriptions reach the popup.
	got := s.suggest("/tab ")
	if diff := cmp.Diff(suggestion{"1", "* Example https://example.com/"}, got[0], cmp.AllowUnexported(suggestion{})); diff != "" {
		t.Errorf("tab suggestion (-want +got)\n%s", diff)
	}
}

func TestScriptMCPAndBrowserCommands(t *testing.T) {
	b := &stubBrowser{mode: guard.Isolated}
	out, errs := runScript(t, &Options{Tools: newFakeTools(), MCP: newStubMCP(), Browser: b}, `/mcp
/mcp logs docs
/mcp prompts git
/mcp resources docs
/mcp tools git
/mcp restrat docs
/mcp logs nope
/mcp enable docs
/mcp__git__commit style=terse
/mode
/connect --browser-url http://127.0.0.1:9222
/mode
/disconnect
`)
	wantOut := `docs                 ready              2 tools   0 prompts   1 resources
git                  starting
started
listening
/mcp__git__commit style=…  write a commit message
@docs:file:///readme.md  readme
@docs:file:///{path}  (template) any file
mcp__git__status                         the mcp__git__status tool
user: git/commit in terse style
no LLM configured, so the prompt was printed instead of sent
isolated: the tools drive browseragent's own Chromium with a temporary profile
/connect attaches to your running Chrome instead (shared mode)
connected to your Chrome (shared mode): every write (click, type, key, JavaScript) asks first, on your tabs and the agent's own; /disconnect goes back. Dropped 2 "always allow" grants.
shared: the tools drive your own Chrome
every write (click, type, key, JavaScript) asks first, on your tabs and the agent's own; /disconnect returns to the isolated browser
disconnected from your Chrome: back to the isolated browser.
`
	if diff := cmp.Diff(wantOut, out); diff != "" {
		t.Errorf("stdout (-want +got)\n%s", diff)
	}
	wantErr := `error: /mcp: unknown sub-command "restrat"; did you mean restart?
/help mcp
error: no MCP server "nope"
/mcp lists the servers
error: /mcp enable is not available in this build
` + "`browseragent mcp enable docs`" + ` (from the next run on), or set "disabled": false for "docs" in the MCP config file, then /mcp restart docs
`
	if diff := cmp.Diff(wantErr, errs); diff != "" {
		t.Errorf("stderr (-want +got)\n%s", diff)
	}
}

func TestConnectAtStart(t *testing.T) {
	tests := []struct {
		name    string
		target  browser.Target
		wantOut string
		wantErr string
	}{
		{"connects", browser.Target{BrowserURL: "http://127.0.0.1:9222"}, "connected to your Chrome (shared mode): every write (click, type, key, JavaScript) asks first, " +
			"on your tabs and the agent's own; /disconnect goes back. Dropped 2 \"always allow\" grants.\n", ""},
		{"failure is printed, the shell runs on", browser.Target{}, "browser_tabs ok\n", "error: " + browser.ErrNotDebuggable.Error() + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &stubBrowser{mode: guard.Isolated}
			script := ""
			if tt.wantErr != "" {
				script = "/tabs\n"
			}
			out, errs := runScript(t, &Options{Tools: newFakeTools(), Browser: b, Connect: &tt.target}, script)
			if diff := cmp.Diff(tt.wantOut, out); diff != "" {
				t.Errorf("stdout (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErr, errs); diff != "" {
				t.Errorf("stderr (-want +got)\n%s", diff)
			}
		})
	}
}

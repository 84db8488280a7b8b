package shell

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/session"
)

// TestScriptURLElicitationRetry: a call the server refuses with -32042
// until the person has opened a URL shows the URL, asks whether they
// opened it, and on "y" sends the call again, which now works. The server
// is a go-sdk server over in-memory transports.
func TestScriptURLElicitationRetry(t *testing.T) {
	rules, err := guard.LoadRules()
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "consent", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "report", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if calls.Add(1) == 1 {
				err := mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", ElicitationID: "e-1",
					URL: "https://example.test/consent", Message: "Approve the report scope"}}).(*jsonrpc.Error)
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the report"}}}, nil
		})
	hooks := &Hooks{}
	mo := mcpclient.Options{Dial: func(string, *mcpclient.ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	hooks.HostOptions(&mo, func() agent.Settings { return agent.Settings{} }) // no LLM: sampling is refused
	sess, err := session.NewSession(&session.SessionOptions{Rules: rules, AuditPath: t.TempDir() + "/audit.jsonl", Approver: hooks,
		MCP: &mcpclient.Config{Servers: map[string]*mcpclient.ServerConfig{"consent": {Name: "consent", Command: "unused"}}}, MCPOptions: mo})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	sess.Start(context.Background())
	opts := &Options{Tools: sess.Registry, MCP: sess.MCP, Hooks: hooks}
	out, errb := scriptIO(opts, "/call mcp__consent__report {}\ny\n")
	if n := failures(t, New(opts).Run(context.Background())); n != 0 {
		t.Fatalf("failed %d\nstdout:\n%s\nstderr:\n%s", n, out.String(), errb.String())
	}
	all := out.String() + errb.String()
	for _, want := range []string{"Approve the report scope", "open     https://example.test/consent", "send the call again", "opened it? [y/n]", "the report"} {
		if !strings.Contains(all, want) {
			t.Errorf("output lacks %q:\n%s", want, all)
		}
	}
	if got := calls.Load(); got != 2 {
		t.Errorf("the server got %d calls, want 2 (refused, then sent again)", got)
	}
}

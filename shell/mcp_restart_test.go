package shell

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/session"
)

// TestScriptRestartWaits: in a script, /mcp restart NAME waits until the
// server is ready again before the next line, so a /call right after it
// finds the tool; the server (a go-sdk server over in-memory transports)
// takes 300 ms to start the second time.
func TestScriptRestartWaits(t *testing.T) {
	rules, err := guard.LoadRules()
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: hi"}}}, nil
		})
	var dials atomic.Int32
	mo := mcpclient.Options{Dial: func(string, *mcpclient.ServerConfig) (mcp.Transport, error) {
		if dials.Add(1) > 1 {
			time.Sleep(300 * time.Millisecond) // slow to come back
		}
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	hooks := &Hooks{}
	sess, err := session.NewSession(&session.SessionOptions{Rules: rules, AuditPath: t.TempDir() + "/audit.jsonl", Approver: hooks,
		MCP: &mcpclient.Config{Servers: map[string]*mcpclient.ServerConfig{"slow": {Name: "slow", Command: "unused"}}}, MCPOptions: mo})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	sess.Start(context.Background())
	opts := &Options{Tools: sess.Registry, MCP: sess.MCP, Hooks: hooks}
	out, errb := scriptIO(opts, "/mcp restart slow\n/call mcp__slow__echo {}\n")
	if n := failures(t, New(opts).Run(context.Background())); n != 0 || !strings.Contains(out.String(), "echo: hi") {
		t.Errorf("failed %d\nstdout:\n%s\nstderr:\n%s", n, out.String(), errb.String())
	}
	if got := dials.Load(); got != 2 {
		t.Errorf("dialled %d times, want 2 (start, restart)", got)
	}
}

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

// slowMCPSession opens and starts a real session.Session whose one MCP
// server, "slow", is a go-sdk server over in-memory transports with one
// read-only tool, echo ("echo: hi"). beforeDial runs before each of its
// connections with the connection's number (1 for the first), so a test
// can make the server slow to start. The caller closes the session.
func slowMCPSession(t *testing.T, beforeDial func(n int32)) (*session.Session, *Hooks) {
	t.Helper()
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
		beforeDial(dials.Add(1))
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
	sess.Start(context.Background())
	return sess, hooks
}

// slowShell runs script in a shell over slowMCPSession's session, whose
// server connects only once release is closed; afterRun runs when the
// script has ended, before the session closes.
func slowShell(t *testing.T, release <-chan struct{}, afterRun func(), wait time.Duration, script string) (string, string, int) {
	t.Helper()
	sess, hooks := slowMCPSession(t, func(int32) { <-release }) // a server slow to start
	defer sess.Close()
	opts := &Options{Tools: sess.Registry, MCP: sess.MCP, Hooks: hooks, MCPWait: wait}
	out, errb := scriptIO(opts, script)
	n := failures(t, New(opts).Run(context.Background()))
	afterRun()
	return out.String(), errb.String(), n
}

// TestScriptWaitsForMCP: a script's first line runs once the MCP servers
// have started, so a /call of a server that is slow to start succeeds;
// a server still starting after MCPWait is named and the script goes on.
func TestScriptWaitsForMCP(t *testing.T) {
	t.Run("slow server is waited for", func(t *testing.T) {
		release := make(chan struct{})
		timer := time.AfterFunc(300*time.Millisecond, func() { close(release) })
		defer timer.Stop()
		out, errs, failed := slowShell(t, release, func() {}, 0, "/call mcp__slow__echo {}\n")
		if failed != 0 || !strings.Contains(out, "echo: hi") {
			t.Errorf("failed %d\nstdout:\n%s\nstderr:\n%s", failed, out, errs)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		release := make(chan struct{})
		out, errs, failed := slowShell(t, release, func() { close(release) }, 50*time.Millisecond, "/call mcp__slow__echo {}\n")
		if failed != 1 || !strings.Contains(errs, "mcp slow: still starting after 50ms: going on without it") {
			t.Errorf("failed %d\nstdout:\n%s\nstderr:\n%s", failed, out, errs)
		}
	})
}

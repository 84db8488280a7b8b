package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

// needTool skips the test when an outside program is missing, or fails it
// when BROWSERAGENT_REQUIRE_BROWSER=1 (CI installs everything).
func needTool(t *testing.T, name string) string {
	t.Helper()
	return testutil.RequireProgram(t, name)
}

// toolCall is one call the fake registry received.
type toolCall struct {
	Name   string
	Args   string
	Origin tools.Origin
}

// fakeTools stands in for the registry: it records calls and answers from
// handlers. Calls are what the tests check: slash commands must arrive
// here, by tool name, with tools.OriginCommand.
type fakeTools struct {
	mu       sync.Mutex
	calls    []toolCall
	defs     []tools.ToolDef
	handlers map[string]func(ctx context.Context, args json.RawMessage) (*tools.ToolResult, error)
}

func newFakeTools() *fakeTools {
	f := &fakeTools{handlers: map[string]func(context.Context, json.RawMessage) (*tools.ToolResult, error){}}
	for _, n := range []string{"web_fetch", "browser_open", "browser_snapshot", "browser_click", "browser_type",
		"browser_screenshot", "browser_tabs", "browser_select_tab", "mcp__git__status"} {
		f.defs = append(f.defs, tools.ToolDef{Name: n, Description: "the " + n + " tool",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string", "description": "where"}}, "required": []string{"url"}}})
	}
	f.defs[len(f.defs)-1].Server = "git"
	return f
}

func (f *fakeTools) Tools() []tools.ToolDef { return append([]tools.ToolDef(nil), f.defs...) }

func (f *fakeTools) Call(ctx context.Context, name string, args json.RawMessage, origin tools.Origin) (*tools.ToolResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, toolCall{name, string(args), origin})
	h := f.handlers[name]
	f.mu.Unlock()
	if h != nil {
		return h(ctx, args)
	}
	return &tools.ToolResult{Text: name + " ok"}, nil
}

func (f *fakeTools) got() []toolCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]toolCall(nil), f.calls...)
}

// runScript drives a shell through its non-terminal path; commands may
// fail (runScriptResult says how many).
func runScript(t *testing.T, opts *Options, script string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, _ = runScriptResult(t, opts, script)
	return stdout, stderr
}

// runScriptResult is runScript that also returns how many commands failed.
func runScriptResult(t *testing.T, opts *Options, script string) (stdout, stderr string, failed int) {
	t.Helper()
	out, errb := scriptIO(opts, script)
	failed = failures(t, New(opts).Run(context.Background()))
	return out.String(), errb.String(), failed
}

// scriptIO completes opts for a script: script is its input, the returned
// buffers its output, no history unless asked.
func scriptIO(opts *Options, script string) (stdout, stderr *syncBuffer) {
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	opts.Stdin = strings.NewReader(script)
	opts.Stdout, opts.Stderr = stdout, stderr
	if opts.HistoryFile == "" {
		opts.HistoryFile = "-"
	}
	return stdout, stderr
}

// failures is how many commands failed by Run's error: 0 for nil, the
// count of a *scriptError; any other error fails the test.
func failures(t *testing.T, err error) int {
	t.Helper()
	var se *scriptError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &se):
		return se.Failed
	}
	t.Fatalf("Run: %v", err)
	return 0
}

// syncBuffer is a bytes.Buffer safe to read while the shell writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// memSession is a real session.Session whose one MCP server, name, is srv
// over in-memory transports, started and ready; hooks (may be nil) are its
// approver, host adds to its MCP options (may be nil). It closes with t.
func memSession(t *testing.T, name string, srv *mcp.Server, hooks *Hooks, host func(*mcpclient.Options)) *session.Session {
	t.Helper()
	rules, err := guard.LoadRules()
	if err != nil {
		t.Fatal(err)
	}
	mo := mcpclient.Options{Dial: func(string, *mcpclient.ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	if host != nil {
		host(&mo)
	}
	so := &session.SessionOptions{Rules: rules, AuditPath: t.TempDir() + "/audit.jsonl",
		MCP: &mcpclient.Config{Servers: map[string]*mcpclient.ServerConfig{name: {Name: name, Command: "unused"}}}, MCPOptions: mo}
	if hooks != nil {
		so.Approver = hooks
	}
	sess, err := session.NewSession(so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	sess.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sess.MCP.WaitReady(ctx, name); err != nil {
		t.Fatal(err)
	}
	return sess
}

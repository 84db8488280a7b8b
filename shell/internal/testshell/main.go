// Command testshell runs the shell with small in-process tools, so the
// terminal behaviour (raw mode, Ctrl-C, paste, restore) can be tested in a
// real terminal (tmux) without a browser, MCP servers or an LLM.
//
// Tools: echo (returns its arguments), slow (runs until cancelled or
// {"seconds": N} pass), approve (asks the shell's approval box first),
// panic (panics on the shell's goroutine), browser_type (pretends ref e2 is
// a password field: its result is Secret).
// TESTSHELL_MCP=1 adds two fake MCP servers that come up in the background.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/shell"
	"github.com/browseragent/browseragent/tools"
)

type toolList struct{ approver tools.Approver }

func (t *toolList) Tools() []tools.ToolDef {
	obj := map[string]any{"type": "object", "properties": map[string]any{}}
	return []tools.ToolDef{
		{Name: "echo", Description: "Return the arguments.", Parameters: obj},
		{Name: "slow", Description: "Wait until cancelled, or for seconds.", Parameters: obj},
		{Name: "approve", Description: "Ask for approval, then say the answer.", Parameters: obj},
		{Name: "web_fetch", Description: "Pretend to fetch a page.", Parameters: obj},
		{Name: "panic", Description: "Panic, to test that the terminal is restored.", Parameters: obj},
		{Name: "browser_type", Description: "Pretend to type; e2 is a password field.", Parameters: obj},
	}
}

func (t *toolList) Call(ctx context.Context, name string, args json.RawMessage, origin tools.Origin) (*tools.ToolResult, error) {
	switch name {
	case "echo", "web_fetch":
		return &tools.ToolResult{Text: fmt.Sprintf("%s %s (%s)", name, args, origin)}, nil
	case "slow":
		var a struct{ Seconds float64 }
		json.Unmarshal(args, &a)
		d := time.Hour
		if a.Seconds > 0 {
			d = time.Duration(a.Seconds * float64(time.Second))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d):
			return &tools.ToolResult{Text: "slow done"}, nil
		}
	case "browser_type":
		var a struct{ Ref, Text string }
		json.Unmarshal(args, &a)
		return &tools.ToolResult{Text: fmt.Sprintf("Typed %d characters into %s.", len(a.Text), a.Ref), Secret: a.Ref == "e2"}, nil
	case "panic":
		panic("testshell: the panic tool was called")
	case "approve":
		ans, err := t.approver.Approve(ctx, tools.ApprovalRequest{Tool: "approve", PageURL: "https://example.com/", Args: string(args)})
		if err != nil {
			return nil, err
		}
		return &tools.ToolResult{Text: "answer: " + ans.String()}, nil
	}
	return &tools.ToolResult{Text: "no tool " + name, Outcome: tools.Failed, Failure: tools.ToolError}, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	hooks := &shell.Hooks{}
	opts := &shell.Options{Tools: &toolList{approver: hooks}, HistoryFile: os.Getenv("TESTSHELL_HISTORY"), Hooks: hooks}
	if os.Getenv("TESTSHELL_MCP") != "" {
		opts.MCP = newFakeMCP(hooks.MCPEvent)
	}
	if err := shell.New(opts).Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "testshell:", err)
		os.Exit(1)
	}
	fmt.Println("bye")
}

// fakeMCP has two servers that come up in the background: alpha becomes
// ready after 1 s, beta fails after 2 s; each change is an event.
type fakeMCP struct {
	mu  sync.Mutex
	sts []mcpclient.Status
}

func newFakeMCP(onEvent func(mcpclient.Event)) *fakeMCP {
	m := &fakeMCP{sts: []mcpclient.Status{{Name: "alpha"}, {Name: "beta"}}}
	go func() {
		time.Sleep(time.Second)
		m.set(0, mcpclient.StateReady, 3, nil)
		onEvent(mcpclient.Event{Server: "alpha", Kind: mcpclient.EventState, State: mcpclient.StateReady})
		time.Sleep(time.Second)
		err := errors.New("exited with status 1")
		m.set(1, mcpclient.StateError, 0, err)
		onEvent(mcpclient.Event{Server: "beta", Kind: mcpclient.EventState, State: mcpclient.StateError, Err: err})
	}()
	return m
}

func (m *fakeMCP) set(i int, st mcpclient.ServerState, toolList int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sts[i].State, m.sts[i].Tools, m.sts[i].Err = st, toolList, err
	if st == mcpclient.StateReady {
		m.sts[i].Resources = 1
	}
}

func (m *fakeMCP) Status() []mcpclient.Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]mcpclient.Status(nil), m.sts...)
}
func (m *fakeMCP) Restart(context.Context, string) error { return nil }
func (m *fakeMCP) Logs(string) ([]string, error)         { return []string{"log line"}, nil }
func (m *fakeMCP) Prompts(string) ([]*mcp.Prompt, error) {
	return []*mcp.Prompt{{Name: "greet", Description: "say hello"}}, nil
}
func (m *fakeMCP) GetPrompt(_ context.Context, _, p string, args map[string]string) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + args["name"]}}}}, nil
}
func (m *fakeMCP) Resources(string) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	return []*mcp.Resource{{URI: "file:///notes.txt", Name: "notes"}}, nil, nil
}
func (m *fakeMCP) ExpandMentions(_ context.Context, msg string) (string, error) { return msg, nil }
func (m *fakeMCP) WaitAll(context.Context) error                                { return nil }

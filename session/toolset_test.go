package session

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/serve"
	"github.com/browseragent/browseragent/tools"
)

// TestOneToolSetAtEveryStep: at every step of a browser task the tools the
// model is offered (the request the scripted LLM received) are the tools
// /tools lists (the agent's Offered), the ones `mcp serve` lists over the
// same registry are those of them it serves (every tool but the MCP
// servers' own), and a call to any other tool is refused as unknown, even
// one the registry has: chrome-devtools-mcp's list_pages before the server
// was ready, a developer tool after. Once chrome-devtools-mcp offers a
// tool that takes its snapshot's uids, its take_snapshot is offered too.
// Before, the model was offered 24 tools while /tools listed 48, a
// not-offered take_snapshot ran when named, and uid tools came without a
// way to get uids.
func TestOneToolSetAtEveryStep(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	site := serveSite(t)
	s := openSessionWith(t, &SessionOptions{MCP: mcpclient.DefaultConfig()})
	s.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	srv := serve.New(s.Registry, nil)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	served := func() []string {
		var names []string
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Errorf("tools/list: %v", err)
				return nil
			}
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		return names
	}

	var a *agent.Agent
	var mu sync.Mutex
	var problems []string
	// check compares one request's tools with /tools and mcp serve at that
	// moment, and answers with reply.
	check := func(step string, reply llmtest.Reply) func(llmtest.Request) llmtest.Reply {
		return func(req llmtest.Request) llmtest.Reply {
			offered := slices.Sorted(slices.Values(req.Tools))
			var listed, nonMCP []string
			for _, d := range a.Offered() {
				listed = append(listed, d.Name)
				if d.Source != tools.SourceMCP && d.Name != agent.ToolSearchName {
					nonMCP = append(nonMCP, d.Name)
				}
			}
			slices.Sort(listed)
			slices.Sort(nonMCP)
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(offered, listed); diff != "" {
				problems = append(problems, step+": offered vs /tools (-offered +listed):\n"+diff)
			}
			if diff := cmp.Diff(nonMCP, served()); diff != "" {
				problems = append(problems, step+": offered (but MCP servers' own) vs mcp serve (-offered +served):\n"+diff)
			}
			if slices.ContainsFunc(offered, func(n string) bool { return strings.HasPrefix(n, "mcp__chrome-devtools__") }) {
				uid := slices.ContainsFunc(offered, func(n string) bool {
					return slices.Contains([]string{"hover", "drag", "fill_form", "upload_file", "fill", "click"}, strings.TrimPrefix(n, "mcp__chrome-devtools__"))
				})
				if uid && !slices.Contains(offered, "mcp__chrome-devtools__take_snapshot") {
					problems = append(problems, step+": uid-taking chrome-devtools-mcp tools offered without take_snapshot: "+strings.Join(offered, " "))
				}
			}
			return reply
		}
	}
	ready := func() {
		if err := waitState(ctx, s.MCP, mcpclient.DefaultServerName, mcpclient.StateReady); err != nil {
			t.Errorf("chrome-devtools-mcp: %v", err)
		}
	}
	llm := llmtest.New(t,
		// 1: before any browser use chrome-devtools-mcp is idle: its tools
		// are in no offer, and naming one is refused as unknown.
		llmtest.Rule{When: llmtest.LastUser("read the page"), Times: 1,
			Do: check("step 1", llmtest.Calls(llmtest.ToolCall{Name: "mcp__chrome-devtools__list_pages", Args: `{}`},
				llmtest.ToolCall{Name: "browser_open", Args: `{"url":"` + site.URL + `/first"}`}))},
		// 2: the browser is up; chrome-devtools-mcp starting with it.
		llmtest.Rule{When: llmtest.AfterCall("browser_open"), Times: 1, Do: func(req llmtest.Request) llmtest.Reply {
			r := check("step 2", llmtest.Call("browser_snapshot", `{}`))(req)
			ready() // the next step is offered what the ready server has
			return r
		}},
		// 3: ready: a developer tool it has is still not offered, and is
		// refused when named; take_snapshot, the uid source, runs.
		llmtest.Rule{When: llmtest.AfterCall("browser_snapshot"), Times: 1,
			Do: check("step 3", llmtest.Calls(llmtest.ToolCall{Name: "mcp__chrome-devtools__take_heapsnapshot", Args: `{}`},
				llmtest.ToolCall{Name: "mcp__chrome-devtools__take_snapshot", Args: `{}`}))},
		llmtest.Rule{When: llmtest.AfterCall("mcp__chrome-devtools__take_snapshot"), Times: 1, Do: check("step 4", llmtest.Text("done"))},
	)
	a, err = agent.New(agent.ResolveSettings(agent.Overrides{BaseURL: llm.URL, Model: "m"}, func(string) string { return "" }, nil), s.Registry, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ev results
	answer, err := a.Turn(ctx, "read the page", &ev)
	if err != nil || answer != "done" {
		t.Fatalf("Turn = %q, %v", answer, err)
	}
	mu.Lock()
	for _, p := range problems {
		t.Error(p)
	}
	mu.Unlock()
	want := map[string]string{
		"mcp__chrome-devtools__list_pages":        "unknown",
		"browser_open":                            "ok",
		"browser_snapshot":                        "ok",
		"mcp__chrome-devtools__take_heapsnapshot": "unknown",
		"mcp__chrome-devtools__take_snapshot":     "ok",
	}
	if diff := cmp.Diff(want, ev.outcomes()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// results keeps what became of each tool call of a turn.
type results struct {
	mu  sync.Mutex
	got map[string]string
}

func (r *results) Event(e agent.Event) {
	if e.Kind != agent.EventToolResult {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.got == nil {
		r.got = map[string]string{}
	}
	switch {
	case e.Err != nil && strings.Contains(e.Err.Error(), "unknown tool"):
		r.got[e.Call.Name] = "unknown"
	case e.Err != nil:
		r.got[e.Call.Name] = "error: " + e.Err.Error()
	case e.Result != nil:
		r.got[e.Call.Name] = e.Result.Outcome.String()
	}
}

func (r *results) outcomes() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}

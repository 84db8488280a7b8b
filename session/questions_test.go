//go:build linux

package session

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// everythingPackage is the MCP reference server, pinned as mcpclient's
// tests pin it.
const everythingPackage = "@modelcontextprotocol/server-everything@2026.8.31"

// countingGuard is the session's policy with every question it is asked
// counted: Check (a call's judgement), Peek (Registry.Judge) and Screen (a
// result screen's, or a snapshot's frame's).
type countingGuard struct {
	*guard.Policy
	mu                     sync.Mutex
	checks, peeks, screens int
}

func (g *countingGuard) Check(c guard.Call) guard.Decision {
	g.count(&g.checks)
	return g.Policy.Check(c)
}

func (g *countingGuard) Peek(c guard.Call) guard.Decision {
	g.count(&g.peeks)
	return g.Policy.Peek(c)
}

func (g *countingGuard) Screen(from []guard.Frame) []*guard.Decision {
	g.count(&g.screens)
	return g.Policy.Screen(from)
}

func (g *countingGuard) count(n *int) {
	g.mu.Lock()
	*n++
	g.mu.Unlock()
}

// questions returns the counts so far and starts again from zero.
func (g *countingGuard) questions() (checks, peeks, screens int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	checks, peeks, screens = g.checks, g.peeks, g.screens
	g.checks, g.peeks, g.screens = 0, 0, 0
	return
}

// TestOneGuardQuestionPerCall: a call is judged once, from the one value
// the registry resolved (its arguments, entry, tab and the frames its
// element may be in, which the guard ranks itself), and its result is
// screened by one more question about everything it holds, however many
// frames the page has. On a page with three frames: a native browser_click
// and browser_snapshot (their results outline the frames, and leave out a
// denied frame themselves: the one question is asked while the snapshot
// is taken, about the frames and the tab's document, and the result screen
// after the call finds it all answered), chrome-devtools-mcp's click (the
// result screen) and a generic MCP server's tool (whose result is not a
// browser's, so it has no screen). Before the one value, the three calls
// asked 13, 5 and 1 questions (the locator asked about each frame, the
// screen and the snapshot about each URL); before the result's answers
// were kept on the call (ResolvedCall.ScreenResult), the native click
// asked 1 + 2.
func TestOneGuardQuestionPerCall(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	site := newTestSite(t)
	site.page("/framed", `<title>Framed</title><h1>Three frames</h1><button onclick="document.title='pressed'">Press</button>
<iframe src="/news"></iframe><iframe src="{bank}/news"></iframe><iframe srcdoc="<p>inline</p>"></iframe>`)

	rules, err := guard.ParseRules([]byte(bankRules), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcpclient.DefaultConfig()
	cfg.Servers["everything"] = &mcpclient.ServerConfig{Name: "everything", Command: "npx", Args: []string{"-y", everythingPackage}}
	g := &countingGuard{}
	s := openSessionWith(t, &SessionOptions{Rules: rules, MCP: cfg,
		wrapGuard: func(p *guard.Policy) tools.Guard { g.Policy = p; return g }})
	s.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	page := site.URL + "/framed"
	if res := call(t, s, "browser_open", map[string]any{"url": page}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	for _, name := range []string{mcpclient.DefaultServerName, "everything"} {
		if err := s.MCP.WaitReady(ctx, name); err != nil {
			t.Fatalf("%s not ready: %v", name, err)
		}
	}
	var snap string
	for deadline := time.Now().Add(15 * time.Second); strings.Count(snap, "Today's news") < 2 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		snap = call(t, s, "browser_snapshot", map[string]any{}).Text // until both news frames drew
	}
	ref := regexp.MustCompile(`"Press" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if ref == nil {
		t.Fatalf("no ref for the button in:\n%s", snap)
	}
	id := mcpPageID(t, s, page)
	uid := regexp.MustCompile(`uid=(\S+) button "Press"`).FindStringSubmatch(call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": id}).Text)
	if uid == nil {
		t.Fatal("chrome-devtools-mcp's snapshot shows no Press button")
	}

	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		screens    int
	}{
		{"native", "browser_click", map[string]any{"ref": ref[1]}, 1},
		{"native snapshot", "browser_snapshot", map[string]any{}, 1},
		{"native extract", "browser_extract", map[string]any{}, 1},
		{"chrome-devtools-mcp", "mcp__chrome-devtools__click", map[string]any{"pageId": id, "uid": uid[1]}, 1},
		{"generic MCP", "mcp__everything__echo", map[string]any{"message": "hi"}, 0},
	} {
		g.questions()
		res := call(t, s, tc.tool, tc.args)
		checks, peeks, screens := g.questions()
		t.Logf("%s (%s): %d call question(s), %d result screen question(s), %d other", tc.name, tc.tool, checks, screens, peeks)
		if res.IsError() {
			t.Errorf("%s: %s", tc.tool, res.Text)
		}
		if checks != 1 || screens != tc.screens || peeks != 0 {
			t.Errorf("%s: the guard was asked %d call question(s), %d screen question(s) and %d other; want 1, %d and 0", tc.tool, checks, screens, peeks, tc.screens)
		}
	}
}

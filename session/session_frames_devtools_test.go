//go:build linux

package session

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
)

// TestSessionDevToolsWritesInFrameJudgedByFrame: chrome-devtools-mcp's
// evaluate_script runs its function in the frame of the element uids given
// as its args. In the agent's own browser, on an ordinary shop page, such a
// script was judged by the shop (allowed without a question) while it ran in
// the bank's frame and paid there. Judged by the frame, it asks the person
// as the bank does, and nothing is paid when they decline.
func TestSessionDevToolsWritesInFrameJudgedByFrame(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	site := newTestSite(t)
	site.page("/shop", `<title>Shop</title><h1>Checkout</h1><iframe src="{bank}/bank/pay" width="300" height="120"></iframe>`)

	person := &personAtTerminal{}
	s := openSession(t, true, bankRules, person)
	s.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
		t.Fatalf("chrome-devtools-mcp: %v", err)
	}
	page := mcpPageID(t, s, site.URL+"/shop")
	// The bank's frame loads after the shop page (another site, another
	// renderer): wait for its button in the snapshot, bounded.
	var snap string
	var m []string
	for deadline := time.Now().Add(15 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		snap = call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": page}).Text
		m = regexp.MustCompile(`uid=(\S+) button "Pay 500"`).FindStringSubmatch(snap)
	}
	if m == nil {
		t.Fatalf("chrome-devtools-mcp's snapshot shows no Pay button in the frame:\n%s", snap)
	}
	res := call(t, s, "mcp__chrome-devtools__evaluate_script", map[string]any{"pageId": page,
		"function": "(el) => { el.click(); return el.ownerDocument.location.href }", "args": []string{m[1]}})
	q := person.questions()
	if !res.IsError() || len(q) != 1 || !q[0].Sensitive || q[0].Rule != "local-bank" {
		t.Errorf("evaluate_script with an element of the bank's frame: want a declined sensitive question about the bank, got %+v, questions %+v", res, q)
	}

	time.Sleep(500 * time.Millisecond) // a payment, once begun, reaches the server at once
	if p := site.hits("/bank/paid"); p != 0 {
		t.Errorf("the bank was paid %d time(s) with nobody's approval", p)
	}
}

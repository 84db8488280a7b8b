//go:build linux

package session

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
)

// framedBank serves an ordinary shop page on 127.0.0.1 that embeds a
// payment form from "the bank" on localhost (another site, so another
// renderer process), which a sensitive-site rule names.
func framedBank(t *testing.T) (shop string) {
	t.Helper()
	mux := http.NewServeMux()
	var bank string
	mux.HandleFunc("/shop", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Shop</title><h1>Checkout</h1>
<div role="button" aria-label="Payment area" tabindex="0"><iframe src="%s/bank/pay" width="300" height="120"></iframe></div>
<button onclick="document.title='ordinary'">Ordinary</button>`, bank)
	})
	mux.HandleFunc("/bank/pay", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Bank</title><button style="width:100%;height:100px" onclick="this.textContent='Paid'">Pay 500</button>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	bank = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	return srv.URL + "/shop"
}

const bankRules = `version: 1
rules:
  - name: local-bank
    category: bank
    hosts: ["localhost"]
    paths: ["/bank*"]
    action: ask
`

// TestSessionWriteInFrameJudgedByFrame: in the agent's own browser a click
// that may land in the bank's iframe — natively anywhere on the page that
// holds it, or through chrome-devtools-mcp's uid of the bank's button — is
// judged as a write on the bank: a sensitive question, and nothing done
// when declined.
func TestSessionWriteInFrameJudgedByFrame(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	shop := framedBank(t)
	person := &personAtTerminal{}
	s := openSession(t, true, bankRules, person)
	s.Start(context.Background())

	if res := call(t, s, "browser_open", map[string]any{"url": shop}); res.IsError {
		t.Fatalf("browser_open: %s", res.Text)
	}
	snap := call(t, s, "browser_snapshot", map[string]any{}).Text
	refOf := func(name string) string {
		m := regexp.MustCompile(`"` + name + `"[^\n]*ref=(e\d+)|ref=(e\d+)[^\n]*"` + name + `"`).FindStringSubmatch(snap)
		if m == nil {
			t.Fatalf("no ref for %q in:\n%s", name, snap)
		}
		return m[1] + m[2]
	}
	// A click lands wherever the page puts it when the mouse event arrives
	// (TestSessionClickjackedClickJudgedByFrame), so even the shop's own
	// button is judged as the bank's frame on the page is.
	res := call(t, s, "browser_click", map[string]any{"ref": refOf("Ordinary")})
	q := person.questions()
	if !res.IsError || len(q) != 1 || !q[0].Sensitive || q[0].Rule != "local-bank" || !strings.Contains(q[0].PageURL, "/bank/pay") {
		t.Fatalf("a native click on a page holding the bank's frame: want a declined sensitive question about the bank, got %+v, questions %+v", res, q)
	}
	res = call(t, s, "browser_click", map[string]any{"ref": refOf("Payment area")})
	q = person.questions()
	if !res.IsError || len(q) != 2 || !q[1].Sensitive || q[1].Rule != "local-bank" || !strings.Contains(q[1].PageURL, "/bank/pay") {
		t.Fatalf("a native click landing in the bank's frame: want a declined sensitive question about the bank, got %+v, questions %+v", res, q)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
		t.Fatalf("chrome-devtools-mcp: %v", err)
	}
	page := mcpPageID(t, s, shop)
	msnap := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": page}).Text
	m := regexp.MustCompile(`uid=(\S+) button "Pay 500"`).FindStringSubmatch(msnap)
	if m == nil {
		t.Fatalf("chrome-devtools-mcp's snapshot shows no Pay button in the frame:\n%s", msnap)
	}
	res = call(t, s, "mcp__chrome-devtools__click", map[string]any{"pageId": page, "uid": m[1]})
	q = person.questions()
	if !res.IsError || len(q) != 3 || !q[2].Sensitive || q[2].Rule != "local-bank" {
		t.Fatalf("an MCP click on the bank's button: want a declined sensitive question, got %+v, questions %+v", res, q)
	}
	after := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": page}).Text
	if !strings.Contains(after, `"Pay 500"`) || strings.Contains(after, `"Paid"`) {
		t.Errorf("the declined click paid:\n%s", after)
	}
}

//go:build linux

package session

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// framedBank is the test site's ordinary shop on 127.0.0.1 embedding the
// bank's payment form (localhost: another site, so another renderer
// process), which a sensitive-site rule names.
func framedBank(t *testing.T) (shop string) {
	t.Helper()
	site := newTestSite(t)
	site.page("/shop", `<title>Shop</title><h1>Checkout</h1>
<div role="button" aria-label="Payment area" tabindex="0"><iframe src="{bank}/bank/pay" width="300" height="120"></iframe></div>
<button onclick="document.title='ordinary'">Ordinary</button>`)
	return site.URL + "/shop"
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

	if res := call(t, s, "browser_open", map[string]any{"url": shop}); res.IsError() {
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
	if !res.IsError() || len(q) != 1 || !q[0].Sensitive || q[0].Rule != "local-bank" || !strings.Contains(q[0].PageURL, "/bank/pay") {
		t.Fatalf("a native click on a page holding the bank's frame: want a declined sensitive question about the bank, got %+v, questions %+v", res, q)
	}
	res = call(t, s, "browser_click", map[string]any{"ref": refOf("Payment area")})
	q = person.questions()
	if !res.IsError() || len(q) != 2 || !q[1].Sensitive || q[1].Rule != "local-bank" || !strings.Contains(q[1].PageURL, "/bank/pay") {
		t.Fatalf("a native click landing in the bank's frame: want a declined sensitive question about the bank, got %+v, questions %+v", res, q)
	}

	waitMCP(t, s)
	page := mcpPageID(t, s, shop)
	msnap := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": page}).Text
	m := regexp.MustCompile(`uid=(\S+) button "Pay 500"`).FindStringSubmatch(msnap)
	if m == nil {
		t.Fatalf("chrome-devtools-mcp's snapshot shows no Pay button in the frame:\n%s", msnap)
	}
	res = call(t, s, "mcp__chrome-devtools__click", map[string]any{"pageId": page, "uid": m[1]})
	q = person.questions()
	if !res.IsError() || len(q) != 3 || !q[2].Sensitive || q[2].Rule != "local-bank" {
		t.Fatalf("an MCP click on the bank's button: want a declined sensitive question, got %+v, questions %+v", res, q)
	}
	after := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": page}).Text
	if !strings.Contains(after, `"Pay 500"`) || strings.Contains(after, `"Paid"`) {
		t.Errorf("the declined click paid:\n%s", after)
	}
}

// frameForms is the test site's ordinary shop on 127.0.0.1 whose order
// form is an iframe of another site (localhost: another origin and another
// renderer process), and an ordinary page holding the bank's transfer form
// as an iframe, which a sensitive-site rule names. got receives each order
// the form's server saw.
func frameForms(t *testing.T) (shop, transfer string, got chan string) {
	t.Helper()
	got = make(chan string, 4)
	site := newTestSite(t)
	site.page("/shop", `<title>Shop</title><h1>Shop</h1><iframe title="Order" src="{bank}/order" width="400" height="200"></iframe>`)
	site.page("/order", `<!doctype html><form method="post" action="/ordered"><label>Name <input name="name"></label>
<label>Size <select name="size"><option>S</option><option>L</option></select></label><button>Send order</button></form>`)
	site.handle("/ordered", func(w http.ResponseWriter, r *http.Request) {
		got <- r.FormValue("name") + "/" + r.FormValue("size")
		fmt.Fprintf(w, `<!doctype html><p>Thanks %s</p>`, r.FormValue("name"))
	})
	site.page("/framed", `<title>News</title><h1>News</h1><iframe title="Bank" src="{bank}/bank/transfer" width="400" height="200"></iframe>`)
	site.page("/bank/transfer", `<!doctype html><label>From <select><option>Savings</option><option>Checking</option></select></label>`)
	return site.URL + "/shop", site.URL + "/framed", got
}

// TestSessionFrameRefs: the native snapshot outlines a cross-site iframe
// with refs that name it (f1e3), and a form there is filled, chosen and
// sent through them on the registry path; a write by a ref inside a
// sensitive frame of an ordinary page is judged by that frame: a
// sensitive question naming it, and nothing done when declined.
func TestSessionFrameRefs(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	shop, transfer, got := frameForms(t)
	person := &personAtTerminal{}
	s := openSession(t, false, bankRules, person)

	if res := call(t, s, "browser_open", map[string]any{"url": shop}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	snap := waitSnapshot(t, s, "Send order")
	frameRef := regexp.MustCompile(`ref=(f\d+e\d+)`)
	refOf := func(snap, name string) string {
		t.Helper()
		for _, line := range strings.Split(snap, "\n") {
			if m := frameRef.FindStringSubmatch(line); m != nil && strings.Contains(line, name) {
				return m[1]
			}
		}
		t.Fatalf("no frame ref for %q in:\n%s", name, snap)
		return ""
	}
	for _, step := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_type", map[string]any{"ref": refOf(snap, `"Name"`), "text": "Ada"}},
		{"browser_select", map[string]any{"ref": refOf(snap, `"Size"`), "value": "L"}},
		{"browser_click", map[string]any{"ref": refOf(snap, `"Send order"`)}},
	} {
		if res := call(t, s, step.tool, step.args); res.IsError() {
			t.Fatalf("%s %v: %s", step.tool, step.args, res.Text)
		}
	}
	select {
	case order := <-got:
		if order != "Ada/L" {
			t.Errorf("the frame's server got the order %q, want Ada/L", order)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the form in the frame was never sent; page now:\n%s", call(t, s, "browser_snapshot", nil).Text)
	}
	if q := person.questions(); len(q) != 0 {
		t.Errorf("writes in an ordinary frame asked %+v", q)
	}
	waitSnapshot(t, s, "Thanks Ada")

	if res := call(t, s, "browser_navigate", map[string]any{"url": transfer}); res.IsError() {
		t.Fatalf("browser_navigate: %s", res.Text)
	}
	snap = waitSnapshot(t, s, "Savings")
	res := call(t, s, "browser_select", map[string]any{"ref": refOf(snap, `"From"`), "value": "Checking"})
	q := person.questions()
	if !res.IsError() || len(q) != 1 || !q[0].Sensitive || q[0].Rule != "local-bank" || !strings.Contains(q[0].PageURL, "/bank/transfer") {
		t.Fatalf("a select by a ref in the bank's frame: want a declined sensitive question about the bank, got %+v, questions %+v", res, q)
	}
	if after := call(t, s, "browser_snapshot", nil).Text; !strings.Contains(after, `*Savings`) {
		t.Errorf("the declined select changed the bank's form:\n%s", after)
	}
}

// waitSnapshot takes snapshots until one shows want (frames load after
// the page) and returns it.
func waitSnapshot(t *testing.T, s *Session, want string) string {
	t.Helper()
	var snap string
	for range 100 {
		if snap = call(t, s, "browser_snapshot", nil).Text; strings.Contains(snap, want) {
			return snap
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no snapshot shows %q; the last:\n%s", want, snap)
	return ""
}

package session

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// TestSessionLeavesThePersonsDialogs: in the person's Chrome, a tab the
// agent only read (a snapshot, which attaches to it) stays the person's: a
// confirm its page opens afterwards ("Delete your account?") is the
// person's to answer. browseragent answered every dialog of every tab it
// had attached to, the person's too, so the account was deleted with no
// tool call and no question.
func TestSessionLeavesThePersonsDialogs(t *testing.T) {
	testutil.Parallel(t)
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	var deleted atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	srv := newTestSite(t)
	srv.handle("/account", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Account</title><h1>Your account</h1>
<script>fetch('/later').then(() => { if (confirm('Delete your account?')) fetch('/deleted') })</script>`)
	})
	srv.handle("/later", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	srv.handle("/deleted", func(w http.ResponseWriter, r *http.Request) { deleted.Add(1) })
	t.Cleanup(open) // the page's request ends before the server closes
	p := testutil.StartPersonsBrowser(t, chrome, []string{srv.URL + "/account"},
		func(urls []string) bool { return slices.Contains(urls, srv.URL+"/account") })
	t.Cleanup(func() {
		p.Stop()
		testutil.WaitNoDescendants(t)
	})
	s, _ := newSharedSession(t, false, "version: 1\nrules: []\n")
	connect(t, s, p.Dir)

	tab, ok := listTabs(t, s)[srv.URL+"/account"]
	if !ok {
		t.Fatalf("the person's tab is not listed")
	}
	if res := call(t, s, "browser_snapshot", map[string]any{"tab": tab.ID}); res.IsError() {
		t.Fatalf("browser_snapshot of the person's tab: %s", res.Text)
	}
	open() // the page now asks its question
	time.Sleep(2 * time.Second)
	if n := deleted.Load(); n != 0 {
		t.Errorf("the person's confirm was answered for them: the account was deleted %d time(s)", n)
	}
}

// localBankRules make the shop's own /bank paths (127.0.0.1) a bank's:
// a sensitive ask.
const localBankRules = `version: 1
rules:
  - name: local-bank
    category: bank
    hosts: ["127.0.0.1"]
    paths: ["/bank"]
    action: ask
`

// TestSessionConfirmOnSensitivePageNotAccepted: the person approves one
// click on the bank's page in the agent's tab; the page then asks "Send 500
// EUR to the shop?" with confirm(). browseragent accepted every confirm of
// the agent's tabs by itself (and, later, every one but a sensitive
// page's), so that second question was answered for the person. Now no
// dialog is answered by default: the click's result says the confirm is
// open, and answering it is a browser_dialog call the guard judges like any
// write there: on the bank's page the person is asked again (and says no);
// on an ordinary page the model's answer goes through.
func TestSessionConfirmOnSensitivePageNotAccepted(t *testing.T) {
	site := newTestSite(t)
	page := func(path string) string {
		return `<title>Page</title><button onclick="if (confirm('Send 500 EUR to the shop?')) fetch('` + path + `')">Pay</button>`
	}
	site.page("/bank/transfer", page("/bank/paid"))
	site.page("/shop", page("/shop/paid"))
	paid := func() int { return site.hits("/bank/paid") }
	ordinary := func() int { return site.hits("/shop/paid") }
	person := &personAtTerminal{}
	person.will(tools.AnswerOnce, tools.AnswerDeny)
	s := openSession(t, false, localBankRules, person)
	click := func(url string) *tools.ToolResult {
		t.Helper()
		if res := call(t, s, "browser_open", map[string]any{"url": url}); res.IsError() {
			t.Fatalf("browser_open: %s", res.Text)
		}
		return call(t, s, "browser_click", map[string]any{"ref": pressRefNamed(t, s, "Pay")})
	}
	res := click(site.URL + "/bank/transfer")
	if q := person.questions(); res.IsError() || len(q) != 1 || !q[0].Sensitive {
		t.Fatalf("the approved click on the bank: %+v, questions %+v", res, q)
	}
	if !strings.Contains(res.Text, `A confirm dialog is open in tab`) || !strings.Contains(res.Text, "Send 500 EUR to the shop?") {
		t.Errorf("the click's result does not report the open confirm:\n%s", res.Text)
	}
	res = call(t, s, "browser_dialog", map[string]any{"accept": true})
	if q := person.questions(); !res.IsError() || len(q) != 2 || q[1].Tool != "browser_dialog" {
		t.Errorf("accepting the bank's confirm must ask the person (who says no): %+v, questions %+v", res, q)
	}
	time.Sleep(500 * time.Millisecond) // a payment, once begun, reaches the server at once
	if n := paid(); n != 0 {
		t.Errorf("the bank's confirm was accepted for the person: paid %d time(s)", n)
	}

	if res := click(site.URL + "/shop"); res.IsError() || !strings.Contains(res.Text, "A confirm dialog is open") {
		t.Fatalf("the click on the shop: %s", res.Text)
	}
	time.Sleep(500 * time.Millisecond)
	if n := ordinary(); n != 0 {
		t.Errorf("an ordinary page's confirm was accepted by default: the shop was paid %d time(s)", n)
	}
	if res := call(t, s, "browser_dialog", map[string]any{"accept": true}); res.IsError() || !strings.Contains(res.Text, "Accepted the confirm") {
		t.Fatalf("the model's answer on an ordinary page: %s", res.Text)
	}
	deadline := time.Now().Add(3 * time.Second)
	for ordinary() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := ordinary(); n != 1 {
		t.Errorf("the confirm the model accepted: want the shop paid once, it was paid %d time(s)", n)
	}
	if q := person.questions(); len(q) != 2 {
		t.Errorf("the ordinary page's dialog asked the person: %+v", q[2:])
	}
}

// pressRefNamed reads the current page and returns the ref of its button
// called name.
func pressRefNamed(t *testing.T, s *Session, name string) string {
	t.Helper()
	snap := call(t, s, "browser_snapshot", map[string]any{}).Text
	m := regexp.MustCompile(`"` + regexp.QuoteMeta(name) + `" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no ref for %q in:\n%s", name, snap)
	}
	return m[1]
}

// TestSessionBankFramesConfirmIsTheBanks: a sensitive page in a frame of an
// ordinary page opens a confirm by itself. Answering it is a write on the
// bank, whatever page holds the frame: with --yes (ordinary writes
// approved) accepting it still asks the person, who says no, and the bank
// is not paid. It was judged as a write on the ordinary page, and --yes
// accepted it.
func TestSessionBankFramesConfirmIsTheBanks(t *testing.T) {
	site := newTestSite(t)
	// The frame is the shop's own origin: its dialog is the tab's.
	site.page("/shop", `<title>Shop</title><h1>Shop</h1><iframe src="/bank/widget" title="Bank"></iframe>`)
	site.page("/bank/widget", `<title>Bank</title><p>Bank widget</p><script>setTimeout(() => { if (confirm('Send 500 EUR to the shop?')) fetch('/bank/paid') }, 200)</script>`)
	rules, err := guard.ParseRules([]byte(localBankRules), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	person := &personAtTerminal{}
	opts := &SessionOptions{Rules: rules, Yes: true, Approver: person}
	opts.Browser.Launch.Host = shared.Endpoint(t)
	s := openSessionWith(t, opts)
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	// The confirm opens after the page loaded; a read meanwhile says so.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		res := call(t, s, "browser_snapshot", map[string]any{})
		if strings.Contains(res.Text, "Send 500 EUR") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bank frame's confirm never showed: %s", res.Text)
		}
	}
	res := call(t, s, "browser_dialog", map[string]any{"accept": true})
	if q := person.questions(); !res.IsError() || len(q) != 1 || !q[0].Sensitive {
		t.Errorf("accepting the bank frame's confirm under --yes: want the person asked (who says no), got %+v, questions %+v", res, q)
	}
	time.Sleep(500 * time.Millisecond) // a payment, once begun, reaches the server at once
	if n := site.hits("/bank/paid"); n != 0 {
		t.Errorf("the bank frame's confirm was accepted under --yes: paid %d time(s)", n)
	}
}

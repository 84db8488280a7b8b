package session

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
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
	mux := http.NewServeMux()
	mux.HandleFunc("/account", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Account</title><h1>Your account</h1>
<script>fetch('/later').then(() => { if (confirm('Delete your account?')) fetch('/deleted') })</script>`)
	})
	mux.HandleFunc("/later", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/deleted", func(w http.ResponseWriter, r *http.Request) { deleted.Add(1) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
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
	if res := call(t, s, "browser_snapshot", map[string]any{"tab": tab.ID}); res.IsError {
		t.Fatalf("browser_snapshot of the person's tab: %s", res.Text)
	}
	open() // the page now asks its question
	time.Sleep(2 * time.Second)
	if n := deleted.Load(); n != 0 {
		t.Errorf("the person's confirm was answered for them: the account was deleted %d time(s)", n)
	}
}

// TestSessionConfirmOnSensitivePageNotAccepted: the person approves one
// click on the bank's page in the agent's tab; the page then asks "Send 500
// EUR to the shop?" with confirm(). browseragent accepted every confirm of
// the agent's tabs, so that second question — which the person never saw —
// was answered yes. On a sensitive page it is dismissed, and the result
// says so; on an ordinary page a confirm is still accepted.
func TestSessionConfirmOnSensitivePageNotAccepted(t *testing.T) {
	var paid, ordinary atomic.Int32
	mux := http.NewServeMux()
	page := func(path string) string {
		return `<title>Page</title><button onclick="if (confirm('Send 500 EUR to the shop?')) fetch('` + path + `')">Pay</button>`
	}
	mux.HandleFunc("/bank/transfer", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page("/bank/paid")) })
	mux.HandleFunc("/shop", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page("/shop/paid")) })
	mux.HandleFunc("/bank/paid", func(w http.ResponseWriter, r *http.Request) { paid.Add(1) })
	mux.HandleFunc("/shop/paid", func(w http.ResponseWriter, r *http.Request) { ordinary.Add(1) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	person := &personAtTerminal{}
	person.will(tools.AnswerOnce)
	s := openSession(t, false, `version: 1
rules:
  - name: local-bank
    category: bank
    hosts: ["127.0.0.1"]
    paths: ["/bank"]
    action: ask
`, person)
	click := func(url string) *tools.ToolResult {
		t.Helper()
		if res := call(t, s, "browser_open", map[string]any{"url": url}); res.IsError {
			t.Fatalf("browser_open: %s", res.Text)
		}
		return call(t, s, "browser_click", map[string]any{"ref": pressRefNamed(t, s, "Pay")})
	}
	res := click(srv.URL + "/bank/transfer")
	if q := person.questions(); res.IsError || len(q) != 1 || !q[0].Sensitive {
		t.Fatalf("the approved click on the bank: %+v, questions %+v", res, q)
	}
	time.Sleep(500 * time.Millisecond) // a payment, once begun, reaches the server at once
	if n := paid.Load(); n != 0 {
		t.Errorf("the bank's confirm was accepted for the person: paid %d time(s)", n)
	}
	// The dialog is reported with the click's result, or else the next one there.
	if next := call(t, s, "browser_snapshot", map[string]any{}); !strings.Contains(res.Text+next.Text, "was dismissed") {
		t.Errorf("no word of the dismissed confirm in the results:\n%s\n%s", res.Text, next.Text)
	}

	if res := click(srv.URL + "/shop"); res.IsError {
		t.Fatalf("the click on the shop: %s", res.Text)
	}
	time.Sleep(500 * time.Millisecond)
	if n := ordinary.Load(); n != 1 {
		t.Errorf("an ordinary page's confirm: want it accepted once, the shop was paid %d time(s)", n)
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

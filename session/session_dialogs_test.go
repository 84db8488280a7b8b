package session

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
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

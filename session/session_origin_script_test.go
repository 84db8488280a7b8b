package session

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestScriptCannotReachPathRules: a path-scoped rule holds against script
// on its origin. On an ordinary page holding a same-origin frame of a
// path-scoped ask page (/bank/), browser_eval under --yes — filling and
// sending the frame's form, or fetch('/bank/done', {method: 'POST'}) —
// is refused, since --yes never covers a sensitive page; on an origin with
// a path-scoped deny rule (/secret/) it is refused outright, and the
// page's own fetch of /secret/ is refused by the isolated browser's proxy.
// The bank and the secret are never asked. (Before, script was judged by
// the ordinary page it ran in, and the proxy judged connections only.)
func TestScriptCannotReachPathRules(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	var bankPosts, secretHits atomic.Int32
	bank := http.NewServeMux()
	bank.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Shop</title><h1>Shop</h1><iframe src="/bank/form"></iframe>`)
	})
	bank.HandleFunc("/bank/form", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<form method="post" action="/bank/done"><input name="to"><button>Pay</button></form>`)
	})
	bank.HandleFunc("/bank/done", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			bankPosts.Add(1)
		}
		fmt.Fprint(w, "paid")
	})
	shop := httptest.NewServer(bank)
	defer shop.Close()
	secret := http.NewServeMux()
	secret.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Home</title><p id="out">waiting</p><script>
fetch('/secret/key').then(r => r.text()).then(t => { out.textContent = 'read: ' + t }, () => { out.textContent = 'fetch failed' })</script>`)
	})
	secret.HandleFunc("/secret/", func(w http.ResponseWriter, r *http.Request) {
		secretHits.Add(1)
		fmt.Fprint(w, "SECRET-KEY")
	})
	home := httptest.NewServer(secret)
	defer home.Close()
	_, shopPort, _ := net.SplitHostPort(shop.Listener.Addr().String())
	_, homePort, _ := net.SplitHostPort(home.Listener.Addr().String())
	rules, err := guard.ParseRules([]byte(fmt.Sprintf(`version: 1
rules:
  - name: local-bank
    category: bank
    hosts: ["127.0.0.1:%s"]
    paths: ["/bank"]
    action: ask
  - name: local-secret
    hosts: ["127.0.0.1:%s"]
    paths: ["/secret"]
    action: deny
`, shopPort, homePort)), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts := &SessionOptions{Rules: rules, Yes: true, AuditPath: filepath.Join(t.TempDir(), "audit.jsonl")}
	opts.Browser.Launch.Host = shared.Endpoint(t)
	ownBrowser(t, opts)
	s, err := NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	if res := call(t, s, "browser_open", map[string]any{"url": shop.URL + "/"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	for _, js := range []string{
		`fetch('/bank/done', {method: 'POST'}).then(r => r.text())`,
		`(() => { const d = frames[0].document; d.querySelector('input').value = 'mallory'; d.querySelector('button').click(); return 'sent' })()`,
	} {
		res := call(t, s, "browser_eval", map[string]any{"js": js})
		if !res.IsError() || !strings.Contains(res.Text, `"local-bank"`) || !strings.Contains(res.Text, "--yes never covers") {
			t.Errorf("browser_eval %s under --yes: want refused as the bank, got %+v", js, res)
		}
	}

	if res := call(t, s, "browser_open", map[string]any{"url": home.URL + "/"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	var text string
	for range 50 {
		text = call(t, s, "browser_snapshot", map[string]any{}).Text
		if !strings.Contains(text, "waiting") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(text, "SECRET-KEY") || !strings.Contains(text, `browseragent did not connect to`) || !strings.Contains(text, `rule "local-secret"`) {
		t.Errorf("the page's own fetch of /secret/ was not refused; the page says:\n%s", text)
	}
	res := call(t, s, "browser_eval", map[string]any{"js": `fetch('/secret/key').then(r => r.text())`})
	if !res.IsError() || !strings.Contains(res.Text, `deny rule "local-secret"`) || strings.Contains(res.Text, "SECRET-KEY") {
		t.Errorf("browser_eval on the secret's origin: want refused, got %+v", res)
	}
	time.Sleep(300 * time.Millisecond) // a form sent by a click would have arrived
	if n := bankPosts.Load(); n != 0 {
		t.Errorf("the bank got %d posts", n)
	}
	if n := secretHits.Load(); n != 0 {
		t.Errorf("the secret was asked %d times", n)
	}
}

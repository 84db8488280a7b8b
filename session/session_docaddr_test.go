//go:build linux

package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// TestAttachedBrowserJudgesDocumentAddress: a browser browseragent attaches
// to (the person's Chrome, a remote --ws-endpoint one) resolves names and
// connects by itself, so a name that matches no rule but resolves to an
// address a deny rule names (a loopback admin port here; 169.254.169.254 in
// life) reached the page: its content came back in browser_open's result,
// and every later read, script or click on the tab was judged by the name.
// The guard now judges the tab by the address the browser says the
// document came from: the result is withheld and calls on the tab are
// refused, on a first load, after a redirect and after the page's own
// script moved it there. A name of an allowed address still works.
func TestAttachedBrowserJudgesDocumentAddress(t *testing.T) {
	admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Admin</title><p>ADMIN-SECRET-TOKEN of the local admin console</p>")
	}))
	defer admin.Close()
	_, adminPort, _ := net.SplitHostPort(admin.Listener.Addr().String())
	byName := "http://admin.trick.test:" + adminPort + "/console"
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, byName, http.StatusFound)
		case "/frame":
			fmt.Fprintf(w, `<title>Framing</title><p>A page of the site framing its admin console.</p><iframe src=%q></iframe>`, byName)
		case "/script":
			fmt.Fprintf(w, `<title>Moving</title><p>moving on</p><script>setTimeout(() => { location.href = %q }, 200)</script>`, byName)
		default:
			fmt.Fprint(w, "<title>Article</title><p>An ordinary article about gardening.</p>")
		}
	}))
	defer site.Close()
	_, sitePort, _ := net.SplitHostPort(site.Listener.Addr().String())

	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	// Chromium's own resolver maps the test names: no DNS is asked.
	p := testutil.StartPersonsBrowserWith(t, chrome, []string{"--host-resolver-rules=MAP *.trick.test 127.0.0.1"},
		[]string{"about:blank"}, nil)
	t.Cleanup(func() { p.Stop(); testutil.WaitNoDescendants(t) })
	rules := fmt.Sprintf("version: 1\nrules:\n  - name: local-admin\n    category: admin console\n    hosts: [\"127.0.0.1:%s\"]\n    action: deny\n", adminPort)
	s, _ := newSharedSession(t, false, rules)
	connect(t, s, p.Dir)

	served := "served from 127.0.0.1:" + adminPort
	tests := []struct {
		name, url string
		// moves: the page's script moves the tab later; wait for it.
		moves bool
	}{
		{"a name of the denied address", byName, false},
		{"a redirect to that name", site.URL + "/redirect", false},
		{"the page's script going there", site.URL + "/script", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, s, "browser_open", map[string]any{"url": tc.url})
			if strings.Contains(res.Text, "ADMIN-SECRET-TOKEN") {
				t.Fatalf("browser_open showed the denied page: %q", res.Text)
			}
			if res.Tab == "" {
				t.Fatalf("browser_open opened no tab: %q", res.Text)
			}
			defer call(t, s, "browser_close", map[string]any{"tab": res.Tab})
			if !tc.moves && (!res.IsError() || !strings.Contains(res.Text, "withheld") || !strings.Contains(res.Text, served)) {
				t.Errorf("browser_open: want its result withheld, %s; got %q", served, res.Text)
			}
			if tabs := call(t, s, "browser_tabs", map[string]any{}); !tc.moves && strings.Contains(tabs.Text, `"Admin"`) {
				t.Errorf("browser_tabs shows the denied page's title:\n%s", tabs.Text)
			}
			if tc.moves {
				waitURL(t, s, res.Tab, byName)
			}
			for _, tool := range []string{"browser_extract", "browser_snapshot", "browser_screenshot", "browser_eval"} {
				raw, _ := json.Marshal(map[string]any{"tab": res.Tab, "js": "document.body.innerText"})
				got, err := s.Registry.Call(context.Background(), tool, raw, tools.OriginCommand)
				if !errors.Is(err, guard.ErrDenied) {
					text := ""
					if got != nil {
						text = got.Text
					}
					t.Errorf("%s on the tab: want it refused (guard.ErrDenied), got err %v, text %q", tool, err, text)
					continue
				}
				if !strings.Contains(got.Text, `"local-admin"`) || !strings.Contains(got.Text, served) {
					t.Errorf("%s: the refusal should name the rule and the address: %q", tool, got.Text)
				}
			}
		})
	}

	t.Run("back to it through the tab's history", func(t *testing.T) {
		res := call(t, s, "browser_open", map[string]any{"url": byName})
		if res.Tab == "" {
			t.Fatalf("browser_open opened no tab: %q", res.Text)
		}
		defer call(t, s, "browser_close", map[string]any{"tab": res.Tab})
		if nav := call(t, s, "browser_navigate", map[string]any{"tab": res.Tab, "url": site.URL + "/article"}); nav.IsError() {
			t.Fatalf("browser_navigate away: %q", nav.Text)
		}
		back := call(t, s, "browser_navigate", map[string]any{"tab": res.Tab, "url": "back"})
		if strings.Contains(back.Text, "ADMIN-SECRET-TOKEN") {
			t.Fatalf("back showed the denied page: %q", back.Text)
		}
		waitURL(t, s, res.Tab, byName)
		got := call(t, s, "browser_extract", map[string]any{"tab": res.Tab})
		if !got.IsError() || strings.Contains(got.Text, "ADMIN-SECRET-TOKEN") || !strings.Contains(got.Text, served) {
			t.Errorf("browser_extract after going back: want it refused, %s; got %q", served, got.Text)
		}
	})

	t.Run("a frame of the page's site served from there", func(t *testing.T) {
		res := call(t, s, "browser_open", map[string]any{"url": "http://site.trick.test:" + sitePort + "/frame"})
		if res.Tab == "" || res.IsError() {
			t.Fatalf("browser_open: %q", res.Text)
		}
		defer call(t, s, "browser_close", map[string]any{"tab": res.Tab})
		shot := call(t, s, "browser_screenshot", map[string]any{"tab": res.Tab})
		if !shot.IsError() || len(shot.Images) != 0 || !strings.Contains(shot.Text, "a frame of") || !strings.Contains(shot.Text, "served from 127.0.0.1:"+adminPort) {
			t.Errorf("browser_screenshot of a page framing the denied address: want it withheld, got %q (%d images)", shot.Text, len(shot.Images))
		}
		// The page's own text, which holds no frame, is still read.
		if got := call(t, s, "browser_extract", map[string]any{"tab": res.Tab}); got.IsError() || !strings.Contains(got.Text, "framing its admin console") {
			t.Errorf("browser_extract of the framing page: %q", got.Text)
		}
	})

	t.Run("a name of an allowed address", func(t *testing.T) {
		res := call(t, s, "browser_open", map[string]any{"url": "http://site.trick.test:" + sitePort + "/article"})
		if res.Tab != "" {
			defer call(t, s, "browser_close", map[string]any{"tab": res.Tab})
		}
		if res.IsError() {
			t.Fatalf("browser_open: %q", res.Text)
		}
		got := call(t, s, "browser_extract", map[string]any{"tab": res.Tab})
		if got.IsError() || !strings.Contains(got.Text, "gardening") {
			t.Errorf("browser_extract on an allowed page: %q", got.Text)
		}
	})
}

// waitURL waits (bounded) until the tab shows want.
func waitURL(t *testing.T, s *Session, tab, want string) {
	t.Helper()
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		u, err := s.Browser.CurrentURL(context.Background(), s.Browser.TargetOf(tab))
		if got = u; err == nil && u == want {
			time.Sleep(200 * time.Millisecond) // its document is committed: give the events a moment
			return
		}
	}
	t.Fatalf("the tab did not move to %s (it shows %q)", want, got)
}

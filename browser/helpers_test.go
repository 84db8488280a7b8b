package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// shared is the one Chromium the package's tests share (see TestMain):
// newTestBrowser gives each test a browser context of its own in it.
var shared = testutil.NewSharedBrowser(FindChrome, func(dir string) []string { return LaunchArgs(dir, LaunchOptions{}) })

func TestMain(m *testing.M) { testutil.Main(m, shared) }

// newTestBrowser returns an isolated browser for one test: a fresh browser
// context in the package's shared Chromium (LaunchOptions.Host), so no
// cookie, storage or tab of another test is in it. At the end it checks
// that Close disposed of the context: no tab of it is left in the shared
// Chromium. Tests of launching, crashing or stopping Chromium itself use
// newOwnBrowser.
func newTestBrowser(t *testing.T, o *Options) *Browser {
	t.Helper()
	var opts Options
	if o != nil {
		opts = *o
	}
	opts.Launch.Host = shared.Endpoint(t)
	b := New(&opts)
	if _, err := b.WSEndpoint(context.Background()); err != nil {
		t.Fatalf("start browser: %v", err)
	}
	t.Cleanup(func() {
		var ids []string
		b.mu.Lock()
		if b.s != nil {
			b.s.mu.Lock()
			for id := range b.s.tabs {
				ids = append(ids, string(id))
			}
			b.s.mu.Unlock()
		}
		b.mu.Unlock()
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		waitTabsGone(t, opts.Launch.Host, ids)
	})
	return b
}

// waitTabsGone fails t when a tab of ids is still among the pages of the
// browser at ws 5 s after the call, as /json/list gives them.
func waitTabsGone(t *testing.T, ws string, ids []string) {
	t.Helper()
	u, err := url.Parse(ws)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left = left[:0]
		resp, err := http.Get("http://" + u.Host + "/json/list")
		if err != nil {
			t.Fatalf("list the shared browser's pages: %v", err)
		}
		var pages []struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&pages)
		resp.Body.Close()
		for _, p := range pages {
			if slices.Contains(ids, p.ID) {
				left = append(left, p.ID)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("tabs of the closed browser still open in the shared Chromium: %v", left)
			return
		}
	}
}

// newOwnBrowser starts an isolated browser that launches a Chromium of its
// own, for the tests whose point is that Chromium (its launch, its crash,
// its processes), and checks at the end that it left no process and no
// profile behind.
func newOwnBrowser(t *testing.T, o *Options) *Browser {
	t.Helper()
	testutil.Require(t, "chromium", FindChrome)
	b := New(o)
	if _, err := b.WSEndpoint(context.Background()); err != nil {
		t.Fatalf("start browser: %v", err)
	}
	dir := b.s.proc.dir
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		testutil.WaitNoProcessWith(t, dir)
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("profile %s still exists after Close", dir)
		}
	})
	return b
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// newSite serves testdata on 127.0.0.1 plus a cookie login (/login,
// /account), a form target (/result), a page that never finishes loading
// (/slow) and a generated page of n links and fields (/big?n=2000).
func newSite(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata")))
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.FormValue("pass") == "secret" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "u-" + r.FormValue("user"), Path: "/"})
			http.Redirect(w, r, "/account", http.StatusSeeOther)
			return
		}
		http.Redirect(w, r, "/login.html", http.StatusSeeOther)
	})
	mux.HandleFunc("/autologin", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "u-" + r.FormValue("user"), Path: "/"})
		http.Redirect(w, r, "/account", http.StatusSeeOther)
	})
	mux.HandleFunc("/account", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("session")
		if err != nil {
			fmt.Fprint(w, "<title>Account</title><p>Please sign in.</p>")
			return
		}
		fmt.Fprintf(w, "<title>Account</title><h1>Welcome back, %s</h1>", html.EscapeString(strings.TrimPrefix(c.Value, "u-")))
	})
	mux.HandleFunc("/result", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>Result</title><p>name=%s color=%s gift=%s</p>",
			html.EscapeString(r.FormValue("name")), html.EscapeString(r.FormValue("color")), html.EscapeString(r.FormValue("gift")))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<title>Slow</title><p>first part</p><img src=\"/hang\">"))
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.FormValue("n"))
		fmt.Fprint(w, "<title>Big</title><h1>Big page</h1><ul>")
		for i := range n / 2 {
			fmt.Fprintf(w, "<li><a href=\"/item/%d\">Item number %d</a> <input name=\"q%d\" placeholder=\"qty %d\"></li>", i, i, i, i)
		}
		fmt.Fprint(w, "</ul>")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// tryCall runs a tool and fails the test on a Go error.
func tryCall(t testing.TB, b *Browser, name string, args any) *Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	r, err := b.run(context.Background(), name, "", raw)
	if err != nil {
		t.Fatalf("%s %s: %v", name, raw, err)
	}
	return r
}

// mustCall is tryCall that also fails on a tool error.
func mustCall(t testing.TB, b *Browser, name string, args any) *Result {
	t.Helper()
	r := tryCall(t, b, name, args)
	if r.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, r.Text)
	}
	return r
}

// refFor finds the ref of the snapshot line that contains substr.
func refFor(t testing.TB, snapshot, substr string) string {
	t.Helper()
	for _, line := range strings.Split(snapshot, "\n") {
		if strings.Contains(line, substr) {
			if m := refRE.FindStringSubmatch(line); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no ref on a line with %q in:\n%s", substr, snapshot)
	return ""
}

var refRE = regexp.MustCompile(`ref=(e\d+)`)

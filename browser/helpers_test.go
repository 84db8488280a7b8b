package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// newTestBrowser starts an isolated browser for one test and checks at the
// end that it left no process and no profile behind.
func newTestBrowser(t *testing.T, o *Options) *Browser {
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
	r, err := b.Call(context.Background(), name, raw)
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

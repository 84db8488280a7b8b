package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestFetchRenderGuard shows that `fetch --render` goes through the guard:
// a page under a deny rule is refused before the browser loads it, a
// redirect that lands there is refused before anything is read, reading a
// sensitive (ask) page is fine, and every step is in the audit log. The
// cases are the binary, run in parallel, each with its own browser; what
// they did is judged once all have run.
func TestFetchRenderGuard(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	e := newBinEnv(t)
	tmp := e.tmp // the isolated profile lands here: our marker
	var mu sync.Mutex
	var bankHits int
	mux := http.NewServeMux()
	mux.HandleFunc("/bank/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		bankHits++
		mu.Unlock()
		fmt.Fprint(w, "<title>Bank</title><h1>Balance: 1 000 000</h1>")
	})
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/bank/transfer", http.StatusFound)
	})
	mux.HandleFunc("/vault/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Vault</title><h1>Your vault</h1><p>Three passwords stored.</p>")
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Plain</title><h1>Plain page</h1><p>Nothing sensitive here at all.</p>")
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<title>Not here</title><h1>No such page</h1>")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close) // the cases run after this function returns
	sites := filepath.Join(tmp, "sites.yaml")
	os.WriteFile(sites, []byte(`version: 1
rules:
  - name: local-bank
    category: bank
    hosts: ["127.0.0.1"]
    paths: ["/bank/*"]
    action: deny
  - name: local-vault
    category: password-manager
    hosts: ["127.0.0.1"]
    paths: ["/vault/*"]
    action: ask
`), 0o644)

	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string // substrings; "" for err means stderr must be empty
	}{
		{"deny rule", []string{srv.URL + "/bank/balance"}, 1, "",
			`browseragent: Refused: browser_open would load ` + srv.URL + `/bank/balance, which matches the deny rule "local-bank" (bank): browseragent never acts there, and nobody can approve it; do this step yourself, in your own browser.` + "\n"},
		// The load's result is screened: the tab landed on the bank, so
		// browser_open's answer is withheld before anything reads the page.
		{"redirect into a deny rule", []string{srv.URL + "/go"}, 1, "",
			`withheld the result of browser_open: it holds content of ` + srv.URL + `/bank/transfer, which the sensitive-site rule "local-bank" denies`},
		{"sensitive page is read", []string{srv.URL + "/vault/home"}, 0, "Three passwords stored", ""},
		// A 404 fails like plain fetch: one sentence and exit 1; the other page prints.
		{"ordinary pages, one browser", []string{"--format", "json", srv.URL + "/plain", srv.URL + "/missing"}, 1, `"title"`, "/missing answered 404 Not Found"},
	}
	t.Cleanup(func() { checkRenderGuardAfter(t, e, &mu, &bankHits) })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := e.run(t, "", append([]string{"fetch", "--render", "--sites", sites}, tt.args...)...)
			if code != tt.code || !strings.Contains(out, tt.out) || (tt.err == "") != (errOut == "") || !strings.Contains(errOut, tt.err) {
				t.Errorf("code %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if tt.name == "ordinary pages, one browser" && !strings.Contains(out, "Nothing sensitive here at all.") {
				t.Errorf("the first of two pages is missing:\n%s", out)
			}
			if tt.code != 0 && strings.Contains(out, "Balance") {
				t.Errorf("a refused page was printed:\n%s", out)
			}
		})
	}
}

// checkRenderGuardAfter is TestFetchRenderGuard's check once every case
// has run: the bank got no request at all (the isolated browser's proxy
// refuses the redirect's request to a deny rule's path), no browser is
// left, and the audit log holds the one refusal.
func checkRenderGuardAfter(t *testing.T, e *binEnv, mu *sync.Mutex, bankHits *int) {
	mu.Lock()
	hits := *bankHits
	mu.Unlock()
	if hits != 0 {
		t.Errorf("the bank got %d requests, want none: the proxy refuses the redirect's request", hits)
	}
	testutil.WaitNoProcessWith(t, e.tmp)

	// The audit log has one line per step, the refusals among them.
	f, err := os.Open(filepath.Join(e.dir, "state", "browseragent", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var denied []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e struct{ Tool, Decision, URL, PageURL string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		if e.Decision == "deny" {
			denied = append(denied, e.Tool)
		}
	}
	if diff := cmp.Diff([]string{"browser_open"}, denied); diff != "" {
		t.Errorf("refused calls in the audit log (-want +got)\n%s", diff)
	}
}

// TestFetchRenderConnect renders logged-in pages in the person's own
// browser through the guard, two at once, and leaves that browser as it
// was: same tabs, still running. It runs the binary, beside the other
// parallel tests.
func TestFetchRenderConnect(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	e := newBinEnv(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/autologin", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "person", Path: "/"})
		http.Redirect(w, r, "/home", http.StatusSeeOther)
	})
	mux.HandleFunc("/home", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<title>Home</title><h1>Home</h1>") })
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/bank/transfer", http.StatusFound) })
	mux.HandleFunc("/bank/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Bank</title><h1>Balance: 1 000 000</h1>")
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("session"); err == nil {
			fmt.Fprintf(w, "<title>Report</title><h1>Report for %s</h1><p>Quarterly numbers, only for people who signed in.</p>", c.Value)
			return
		}
		fmt.Fprint(w, "<title>Report</title><p>Please sign in.</p>")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	want := []string{srv.URL + "/home"}
	person := testutil.StartPersonsBrowser(t, chrome, []string{srv.URL + "/autologin"},
		func(pages []string) bool { return cmp.Equal(pages, want) })
	defer person.Close(t)

	// Two pages at once, each in a tab of its own next to the person's.
	code, out, errOut := e.run(t, "", "fetch", "--render", "--user-data-dir", person.Dir, "--format", "text", srv.URL+"/report", srv.URL+"/report?q=2")
	if code != 0 || strings.Count(out, "Quarterly numbers") != 2 || strings.Count(out, "Report for person") != 2 {
		t.Errorf("render with the person's login: code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	time.Sleep(300 * time.Millisecond) // a wrongly closed tab would be gone by now
	if diff := cmp.Diff(want, person.PageURLs()); diff != "" {
		t.Errorf("the person's tabs after fetch --render (-want +got)\n%s", diff)
	}

	// A redirect into a deny rule: the result is withheld, and the tab it
	// opened in the person's browser is closed all the same.
	sites := filepath.Join(t.TempDir(), "sites.yaml")
	os.WriteFile(sites, []byte("version: 1\nrules:\n  - name: local-bank\n    category: bank\n    hosts: [\"127.0.0.1\"]\n    paths: [\"/bank/*\"]\n    action: deny\n"), 0o644)
	code, out, errOut = e.run(t, "", "fetch", "--render", "--user-data-dir", person.Dir, "--sites", sites, srv.URL+"/go")
	if code != 1 || strings.Contains(out, "Balance") || !strings.Contains(errOut, "withheld the result of browser_open") {
		t.Errorf("render of a redirect into a deny rule: code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	time.Sleep(300 * time.Millisecond)
	if diff := cmp.Diff(want, person.PageURLs()); diff != "" {
		t.Errorf("the person's tabs after a withheld render (-want +got)\n%s", diff)
	}
	if !person.Running() {
		t.Errorf("the person's browser stopped")
	}
}

// TestFetchRenderConcurrent renders several URLs at once, up to
// --concurrency and never more: the server holds each page until two are
// loading together, and records how many ever were. Output stays in the
// order given, and the app pages, rendered, are not called JavaScript
// shells. It runs the binary, beside the other parallel tests.
func TestFetchRenderConcurrent(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	e := newBinEnv(t)
	tmp := e.tmp // the isolated profile lands here: our marker
	var mu sync.Mutex
	inflight, peak := 0, 0
	together := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/app/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inflight++
		peak = max(peak, inflight)
		wait := together
		if inflight == 2 {
			close(together)
			together = make(chan struct{})
		}
		mu.Unlock()
		select { // a serial render waits here in vain
		case <-wait:
		case <-time.After(5 * time.Second):
		}
		mu.Lock()
		inflight--
		mu.Unlock()
		fmt.Fprintf(w, `<!doctype html><title>App %[1]s</title><div id="app"></div>
<script>document.getElementById('app').innerHTML = '<h1>Page %[1]s</h1><p>Drawn by its script.</p>';</script>`, r.URL.Path)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	var urls []string
	for i := range 4 {
		urls = append(urls, fmt.Sprintf("%s/app/%d", srv.URL, i+1))
	}
	code, out, errOut := e.run(t, "", append([]string{"fetch", "--render", "--concurrency", "2", "--format", "json"}, urls...)...)
	if code != 0 || errOut != "" {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	type line struct {
		URL      string `json:"url"`
		Title    string `json:"title"`
		JSShell  bool   `json:"js_shell"`
		HasDrawn bool
	}
	var got, want []line
	for i, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var g line
		if err := json.Unmarshal([]byte(l), &g); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		g.HasDrawn = strings.Contains(l, "Drawn by its script")
		got = append(got, g)
	}
	for i, u := range urls {
		want = append(want, line{URL: u, Title: fmt.Sprintf("App /app/%d", i+1), HasDrawn: true})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered pages (-want +got)\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	if peak != 2 {
		t.Errorf("at most %d pages loaded at once, want exactly --concurrency 2", peak)
	}
	testutil.WaitNoProcessWith(t, tmp)
}

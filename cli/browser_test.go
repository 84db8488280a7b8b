package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

const spaPage = `<!doctype html><title>SPA</title><div id="app">Loading…</div>
<script>setTimeout(function () { document.getElementById('app').innerHTML =
'<h1>Rendered by JavaScript</h1><p>The answer is forty-two, computed in the browser.</p>'; }, 150);</script>`

// TestFetchRender runs the binary: the cases run in parallel, each with its
// own browser, and beside the package's other parallel tests.
func TestFetchRender(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	e := newBinEnv(t)
	tmp := e.tmp // the isolated profile lands here: our marker
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, spaPage) }))
	t.Cleanup(srv.Close) // the cases run after this function returns
	shot := filepath.Join(tmp, "spa.png")
	t.Cleanup(func() { // after every case
		if st, err := os.Stat(shot); err != nil || st.Size() < 1000 {
			t.Errorf("screenshot: %v", err)
		}
		testutil.WaitNoProcessWith(t, tmp)
	})
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"spa", []string{"fetch", "--render", srv.URL + "/spa"}, 0, "forty-two", ""},
		{"wait-for and screenshot", []string{"fetch", "--render", "--wait-for", "computed in the browser", "--screenshot", shot, "--format", "text", srv.URL + "/spa"}, 0, "forty-two", ""},
		// --timeout bounds the load too: a loaded machine needs more than a second for it.
		{"wait-for never", []string{"fetch", "--render", "--wait-for", "#nope", "--timeout", "4s", srv.URL + "/spa"}, 1, "", "#nope"},
		{"wait-for without render", []string{"fetch", "--wait-for", "x", srv.URL}, 2, "", "need --render"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := e.run(t, "", tt.args...)
			if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.err) {
				t.Errorf("code %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if strings.Contains(out, "Loading…") {
				t.Errorf("printed the page before JavaScript ran:\n%s", out)
			}
		})
	}
}

// TestBrowserTabs: browser tabs lists the person's tabs, attached by
// profile or by URL, and leaves them as they were. It runs the binary,
// beside the other parallel tests.
func TestBrowserTabs(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	e := newBinEnv(t)
	srv := cliServer(t)
	person := testutil.StartPersonsBrowser(t, chrome, []string{srv.URL + "/article"}, nil)
	defer person.Close(t)
	port := person.Port()
	var code int
	var out, errOut string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		code, out, errOut = e.run(t, "", "browser", "tabs", "--user-data-dir", person.Dir, "--json")
		if strings.Contains(out, "Valley Notes") {
			break
		}
	}
	var tabs []browser.Tab
	if err := json.Unmarshal([]byte(out), &tabs); code != 0 || err != nil || len(tabs) != 1 || tabs[0].Owned || tabs[0].Title != "Valley Notes" {
		t.Fatalf("code %d tabs %+v (%v)\nstdout: %s\nstderr: %s", code, tabs, err, out, errOut)
	}
	code, out, _ = e.run(t, "", "browser", "tabs", "--browser-url", "http://127.0.0.1:"+port)
	if code != 0 || !strings.Contains(out, `t1 [current, person's] "Valley Notes"`) {
		t.Errorf("text listing: code %d\n%s", code, out)
	}
	// Listing attached and detached: the tab is still there, the browser runs.
	resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
	if err != nil {
		t.Fatalf("the person's browser stopped: %v", err)
	}
	var list []struct{ Type string }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	pages := 0
	for _, p := range list {
		if p.Type == "page" {
			pages++
		}
	}
	if pages != 1 {
		t.Errorf("the person's browser has %d pages after listing, want 1", pages)
	}

	code, _, errOut = e.run(t, "", "browser", "tabs", "--user-data-dir", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "chrome://inspect/#remote-debugging") {
		t.Errorf("no debuggable browser: code %d stderr %s", code, errOut)
	}
}

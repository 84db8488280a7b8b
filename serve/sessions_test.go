package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestHTTPSessionsKeepTheirGrantsAndTabs: two hosts on one `mcp serve
// --http`, in the person's Chrome. Round three's attacker answered "always"
// in one session (a host with approval forms) and a second session, with
// no forms, then clicked under that grant, and read and navigated the first
// session's tab. A grant belongs to the session that gave it, and a
// session reads, navigates and acts only in its own tabs.
func TestHTTPSessionsKeepTheirGrantsAndTabs(t *testing.T) {
	testutil.Parallel(t)
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/hit", func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Board %s</title><h1>Board %s</h1><p>Private notes of %s.</p>
<button onclick="fetch('/hit',{method:'POST'})">Vote</button>`, r.URL.Path, r.URL.Path, r.URL.Path)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	f := newFixture(t, "bank.invalid", false)
	person := testutil.StartPersonsBrowser(t, chrome, []string{site.URL + "/person"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := f.sess.Connect(ctx, browser.Target{UserDataDir: person.Dir}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(f.srv.Handler(nil))
	t.Cleanup(hs.Close)
	dial := func(name string, opts *mcp.ClientOptions) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL + Path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	waitVotes := func(want int32) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for hits.Load() < want && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // a vote too many arrives by now
		if got := hits.Load(); got != want {
			t.Fatalf("the site received %d votes, want %d", got, want)
		}
	}
	answers := &answering{answers: []string{"tool", "once"}}
	a := dial("host-with-forms", &mcp.ClientOptions{ElicitationHandler: answers.handle})
	b := dial("host-without-forms", nil)

	if text, isErr := callTool(t, a, "browser_open", map[string]any{"url": site.URL + "/a"}); isErr {
		t.Fatalf("a: browser_open: %s", text)
	}
	if text, isErr := callTool(t, a, "browser_click", map[string]any{"ref": refOf(t, a, "Vote")}); isErr {
		t.Fatalf("a's click, approved always: %s", text)
	}
	waitVotes(1)
	if text, isErr := callTool(t, a, "browser_click", map[string]any{"ref": refOf(t, a, "Vote")}); isErr {
		t.Fatalf("a's second click, under its own grant: %s", text)
	}
	waitVotes(2)

	if text, isErr := callTool(t, b, "browser_open", map[string]any{"url": site.URL + "/b"}); isErr {
		t.Fatalf("b: browser_open: %s", text)
	}
	text, isErr := callTool(t, b, "browser_click", map[string]any{"ref": refOf(t, b, "Vote")})
	if !isErr || !strings.Contains(text, "cannot show approval forms") {
		t.Errorf("b's click ran under a's \"always\": isError=%v %q", isErr, text)
	}
	waitVotes(2)

	tabs, _ := callTool(t, a, "browser_tabs", nil)
	var aTab string
	for _, line := range strings.Split(tabs, "\n") {
		if strings.Contains(line, site.URL+"/a") {
			aTab = strings.Fields(line)[0]
		}
	}
	if aTab == "" {
		t.Fatalf("no tab of a's in its own list:\n%s", tabs)
	}
	if tabs, _ := callTool(t, b, "browser_tabs", nil); strings.Contains(tabs, site.URL+"/a") || !strings.Contains(tabs, site.URL+"/b") || !strings.Contains(tabs, "\n2 tabs (shared browser):\n") {
		t.Errorf("b's tab list shows a's tab (or not its own, or counts a's in its first line):\n%s", tabs)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_snapshot", map[string]any{"tab": aTab}},
		{"browser_extract", map[string]any{"tab": aTab}},
		{"browser_navigate", map[string]any{"tab": aTab, "url": site.URL + "/elsewhere"}},
		{"browser_eval", map[string]any{"tab": aTab, "js": "document.body.innerText"}},
	} {
		text, isErr := callTool(t, b, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, "another MCP session") || strings.Contains(text, "Private notes of /a") {
			t.Errorf("b's %s on a's tab: isError=%v %q", tc.tool, isErr, text)
		}
	}
	if text, _ := callTool(t, a, "browser_eval", map[string]any{"js": "location.pathname"}); !strings.Contains(text, "/a") {
		t.Errorf("a's tab moved: %q", text)
	}
	if len(answers.forms) != 2 { // a's first click, and its own eval in the person's Chrome
		t.Errorf("a's host was asked %d times, want 2", len(answers.forms))
	}
}

// TestHTTPWithoutTokenCannotAttachPersonsChrome: over HTTP without a
// bearer token any program on this machine can be a client (round three's
// attacker answered approvals as its own "person" that way), so
// browser_connect to the person's Chrome is refused before anything is
// dialled; over stdio the host that started the server may.
func TestHTTPWithoutTokenCannotAttachPersonsChrome(t *testing.T) {
	testutil.Parallel(t)
	f := newFixture(t, "bank.invalid", false)
	hs := httptest.NewServer(f.srv.Handler(nil))
	t.Cleanup(hs.Close)
	answers := &answering{answers: []string{"once"}} // it says yes to itself
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "local-program", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: answers.handle}).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL + Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	text, isErr := callTool(t, cs, "browser_connect", map[string]any{"user_data_dir": t.TempDir()})
	if !isErr || !strings.Contains(text, "without a bearer token") {
		t.Errorf("browser_connect over HTTP without a token: isError=%v %q", isErr, text)
	}
	if f.sess.Mode().String() != "isolated" {
		t.Errorf("the mode changed to %s", f.sess.Mode())
	}
}

// TestServeYesDoesNotUploadLocalFiles: `mcp serve --yes` approves writes
// on ordinary pages for a host that cannot show forms, and nothing more:
// browser_upload of ./.env (a file read) is refused, and the page's server
// receives nothing.
func TestServeYesDoesNotUploadLocalFiles(t *testing.T) {
	testutil.Parallel(t)
	got := make(chan string, 4)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			got <- r.URL.Path
		}
		fmt.Fprint(w, `<!doctype html><title>Apply</title><form method="post" enctype="multipart/form-data" action="/cv">
<label>CV <input type="file" name="cv" onchange="this.form.submit()"></label></form>`)
	}))
	t.Cleanup(site.Close)
	secrets := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(secrets, []byte("API_KEY=sk-live-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "bank.invalid", true)
	cs := f.connect(t, "bare-host", nil)
	if text, isErr := callTool(t, cs, "browser_open", map[string]any{"url": site.URL + "/"}); isErr {
		t.Fatalf("browser_open: %s", text)
	}
	text, isErr := callTool(t, cs, "browser_upload", map[string]any{"ref": refOf(t, cs, "CV"), "paths": []string{secrets}})
	if !isErr || !strings.Contains(text, "--yes never covers") {
		t.Errorf("browser_upload of .env under --yes: isError=%v %q", isErr, text)
	}
	time.Sleep(500 * time.Millisecond)
	select {
	case p := <-got:
		t.Errorf("the page's server received an upload at %s", p)
	default:
	}
}

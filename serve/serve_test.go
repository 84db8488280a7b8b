package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/session"
)

// bankSite is a page on loopback whose button sends a transfer request;
// hits counts the transfers the server received.
type bankSite struct {
	*httptest.Server
	hits atomic.Int32
}

func newBankSite(t *testing.T) *bankSite {
	b := &bankSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("/bank/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Bank</title><h1>Account</h1>
<button onclick="fetch('/bank/transfer',{method:'POST'}).then(()=>document.title='sent')">Transfer money</button>`)
	})
	mux.HandleFunc("/bank/transfer", func(w http.ResponseWriter, r *http.Request) { b.hits.Add(1) })
	mux.HandleFunc("/news/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>News</title><h1>Today</h1><p>Nothing happened today, at length.</p>`)
	})
	b.Server = httptest.NewServer(mux)
	t.Cleanup(b.Close)
	return b
}

// fixture is a served session with its own audit log.
type fixture struct {
	sess  *session.Session
	srv   *Server
	audit string
}

// newFixture opens a session (isolated browser, no MCP servers) judged by
// a rule that makes bank pages on host sensitive, and serves it. Its
// isolated browser is a fresh browser context in the package's shared
// Chromium.
func newFixture(t *testing.T, host string, yes bool) *fixture {
	t.Helper()
	testutil.Require(t, "chromium", browser.FindChrome)
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	testutil.Owns(t, "", nil) // its browser is a context in the shared Chromium: it launches nothing
	rules, err := guard.ParseRules([]byte(`version: 1
rules:
  - name: test-bank
    category: payment
    hosts: ["`+host+`"]
    paths: ["/bank*"]
    action: ask
`), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	sess, err := session.NewSession(&session.SessionOptions{Rules: rules, Yes: yes, AuditPath: audit, Approver: Approver{},
		Browser: browser.Options{Launch: browser.LaunchOptions{Host: shared.Endpoint(t)}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sess.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	srv := New(sess.Registry, &Options{Version: "test", Yes: yes, Modes: sess, ProgressEvery: 200 * time.Millisecond})
	t.Cleanup(srv.Close) // before the session's Close, as cmd does
	return &fixture{sess: sess, srv: srv, audit: audit}
}

// connect opens a go-sdk client session over in-memory transports; elicit
// nil makes a client without elicitation.
func (f *fixture) connect(t *testing.T, name string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return resultText(res), res.IsError
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

var refRE = regexp.MustCompile(`ref=(e\d+)`)

// refOf finds the ref of the snapshot line holding label.
func refOf(t *testing.T, cs *mcp.ClientSession, label string) string {
	t.Helper()
	snap, _ := callTool(t, cs, "browser_snapshot", nil)
	for _, line := range strings.Split(snap, "\n") {
		if m := refRE.FindStringSubmatch(line); m != nil && strings.Contains(line, label) {
			return m[1]
		}
	}
	t.Fatalf("no ref for %q in:\n%s", label, snap)
	return ""
}

// answering is an elicitation handler that answers decision with a queue
// of actions and records each form.
type answering struct {
	mu      sync.Mutex
	answers []string // "once", "deny", or "decline" (the form dismissed)
	forms   []*mcp.ElicitParams
}

func (a *answering) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.forms = append(a.forms, req.Params)
	ans := "decline"
	if len(a.answers) > 0 {
		ans, a.answers = a.answers[0], a.answers[1:]
	}
	if ans == "decline" {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": ans}}, nil
}

func readAudit(t *testing.T, path string) []guard.Entry {
	t.Helper()
	es, err := guard.ReadAudit(path, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// waitHits waits briefly for the bank to see want transfers (the click's
// fetch is asynchronous), and fails when it sees another number.
func waitHits(t *testing.T, b *bankSite, want int32) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for b.hits.Load() != want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := b.hits.Load(); got != want {
		t.Fatalf("the bank received %d transfers, want %d", got, want)
	}
}

// TestElicitedApproval: a click on a sensitive page is asked through the
// host as a form naming the tool, page and rule and offering only "once"
// and "deny"; yes runs it, no refuses it, and the page never hears of a
// refused click. A client that cannot show forms is refused with the
// reason, even with --yes.
func TestElicitedApproval(t *testing.T) {
	testutil.Parallel(t)
	bank := newBankSite(t)
	f := newFixture(t, "127.0.0.1", true)
	person := &answering{}
	cs := f.connect(t, "form-host", &mcp.ClientOptions{ElicitationHandler: person.handle})
	if _, isErr := callTool(t, cs, "browser_open", map[string]any{"url": bank.URL + "/bank/"}); isErr {
		t.Fatal("browser_open failed")
	}
	ref := refOf(t, cs, "Transfer money")

	person.answers = []string{"deny"}
	text, isErr := callTool(t, cs, "browser_click", map[string]any{"ref": ref})
	if !isErr || !strings.Contains(text, "declined") {
		t.Fatalf("denied click: isError=%v %q", isErr, text)
	}
	waitHits(t, bank, 0)

	person.answers = []string{"once"}
	if text, isErr := callTool(t, cs, "browser_click", map[string]any{"ref": ref}); isErr {
		t.Fatalf("approved click failed: %s", text)
	}
	waitHits(t, bank, 1)

	if len(person.forms) != 2 {
		t.Fatalf("asked %d times, want 2", len(person.forms))
	}
	form := person.forms[0]
	for _, want := range []string{"browser_click", bank.URL + "/bank/", "test-bank", "ref=" + `"` + ref + `"`} {
		if !strings.Contains(form.Message, want) {
			t.Errorf("form message lacks %q:\n%s", want, form.Message)
		}
	}
	schema, _ := json.Marshal(form.RequestedSchema)
	var s struct {
		Properties struct {
			Decision struct {
				Enum []string `json:"enum"`
			} `json:"decision"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	if diff := cmp.Diff([]string{"once", "deny"}, s.Properties.Decision.Enum); diff != "" {
		t.Errorf("answers offered on a sensitive page (-want +got):\n%s", diff)
	}

	// The same click from a host without elicitation: refused, nobody
	// asked, the bank hears nothing.
	bare := f.connect(t, "bare-host", nil)
	if _, isErr := callTool(t, bare, "browser_open", map[string]any{"url": bank.URL + "/bank/"}); isErr {
		t.Fatal("browser_open failed")
	}
	ref = refOf(t, bare, "Transfer money")
	text, isErr = callTool(t, bare, "browser_click", map[string]any{"ref": ref})
	if !isErr || !strings.Contains(text, "cannot show approval forms") || !strings.Contains(text, "--yes never covers a call that needs a fresh approval each time") {
		t.Fatalf("click without elicitation: isError=%v %q", isErr, text)
	}
	waitHits(t, bank, 1)
	if len(person.forms) != 2 {
		t.Errorf("the other session's host was asked (%d forms)", len(person.forms))
	}

	// The audit log names the client of each call.
	var clicks []string
	for _, e := range readAudit(t, f.audit) {
		if e.Tool == "browser_click" {
			clicks = append(clicks, e.Client+"/"+e.Session+" "+e.Decision+" "+e.DecidedBy)
		}
	}
	// The host answered, not (as far as browseragent knows) a person:
	// the audit says which host and session.
	byHost := guard.ByElicitation("form-host", "stdio")
	want := []string{"form-host/stdio deny " + byHost, "form-host/stdio allow " + byHost, "bare-host/stdio deny " + guard.ByCannotAsk}
	if diff := cmp.Diff(want, clicks); diff != "" {
		t.Errorf("audit of the clicks (-want +got):\n%s", diff)
	}
}

// TestToolDefinitions: every served tool is there, all definitions fit in
// 13 KB (8 KB until hover, drag, check, upload, download and dialog joined
// the 17 tools before them, 12 KB until html and pdf did), and the hints
// say what the guard says each tool does.
func TestToolDefinitions(t *testing.T) {
	testutil.Parallel(t)
	f := newFixture(t, "127.0.0.1", false)
	cs := f.connect(t, "lister", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.Tools)
	t.Logf("%d tools, %d bytes of definitions", len(res.Tools), len(raw))
	if len(raw) >= 13<<10 || f.srv.toolDefBytes() >= 13<<10 {
		t.Errorf("tool definitions take %d bytes (ToolDefBytes %d), want < 13 KB", len(raw), f.srv.toolDefBytes())
	}
	hints := map[string]string{}
	for _, tl := range res.Tools {
		a := tl.Annotations
		h := "write"
		switch {
		case a.ReadOnlyHint:
			h = "read"
		case a.DestructiveHint != nil && !*a.DestructiveHint:
			h = "additive"
		}
		hints[tl.Name] = h
	}
	want := map[string]string{"web_fetch": "read", "browser_snapshot": "read", "browser_open": "additive",
		"browser_click": "write", "browser_eval": "write", "browser_close": "write", "browser_connect": "write"}
	for name, h := range want {
		if hints[name] != h {
			t.Errorf("%s is annotated %q, want %q", name, hints[name], h)
		}
	}
	for _, tl := range res.Tools { // the catalogue's word on reaching the web
		open := tl.Annotations.OpenWorldHint != nil && *tl.Annotations.OpenWorldHint
		if want := tl.Name != "browser_tabs" && tl.Name != "browser_select_tab" && tl.Name != "browser_close" &&
			tl.Name != "browser_connect" && tl.Name != "browser_disconnect"; open != want {
			t.Errorf("%s: openWorldHint %v, want %v", tl.Name, open, want)
		}
	}
	for _, name := range []string{"web_fetch", "browser_open", "browser_tabs", "browser_disconnect"} {
		if _, ok := hints[name]; !ok {
			t.Errorf("%s is not served", name)
		}
	}
}

// TestSessionsCloseOnlyTheirTabs: two sessions share the browser; each
// works in its own current tab and may close only the tabs it opened.
func TestSessionsCloseOnlyTheirTabs(t *testing.T) {
	testutil.Parallel(t)
	site := newBankSite(t)
	f := newFixture(t, "127.0.0.1", false)
	a := f.connect(t, "host-a", nil)
	b := f.connect(t, "host-b", nil)
	callTool(t, a, "browser_open", map[string]any{"url": site.URL + "/news/a"})
	callTool(t, b, "browser_open", map[string]any{"url": site.URL + "/news/b"})

	// A's page tools still act on A's tab, though B opened one after it.
	if text, _ := callTool(t, a, "browser_eval", map[string]any{"js": "location.pathname"}); !strings.Contains(text, "/news/a") {
		t.Errorf("a's eval ran on %q, want its own tab /news/a", text)
	}
	text, isErr := callTool(t, b, "browser_tabs", nil) // a's own list leaves b's tabs out
	if isErr {
		t.Fatal(text)
	}
	var bTab string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "/news/b") {
			bTab = strings.Fields(line)[0]
		}
	}
	if bTab == "" {
		t.Fatalf("no tab of b's in:\n%s", text)
	}
	text, isErr = callTool(t, a, "browser_close", map[string]any{"tab": bTab})
	if !isErr || !strings.Contains(text, "another MCP session") {
		t.Fatalf("a closing b's tab: isError=%v %q", isErr, text)
	}
	if text, isErr := callTool(t, b, "browser_close", nil); isErr {
		t.Fatalf("b closing its own tab: %s", text)
	}
	if text, isErr := callTool(t, a, "browser_close", nil); isErr {
		t.Fatalf("a closing its own tab: %s", text)
	}
	var closes []string
	for _, e := range readAudit(t, f.audit) {
		if e.Tool == "browser_close" {
			closes = append(closes, e.Client+" "+e.Decision)
		}
	}
	if diff := cmp.Diff([]string{"host-a deny", "host-b allow", "host-a allow"}, closes); diff != "" {
		t.Errorf("audit of the closes (-want +got):\n%s", diff)
	}
}

// TestProgressAndCancel: a long call reports progress to a client that
// asked for it, and cancelling the request ends the call at once.
func TestProgressAndCancel(t *testing.T) {
	testutil.Parallel(t)
	site := newBankSite(t)
	f := newFixture(t, "127.0.0.1", false)
	var progress atomic.Int32
	cs := f.connect(t, "waiter", &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		progress.Add(1)
	}})
	callTool(t, cs, "browser_open", map[string]any{"url": site.URL + "/news/"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "browser_wait", Arguments: map[string]any{"text": "never on the page", "timeout": 60}}
		p.SetProgressToken("wait-1")
		_, err := cs.CallTool(ctx, p)
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for progress.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if progress.Load() < 2 {
		t.Fatalf("got %d progress notifications in 10 s, want at least 2", progress.Load())
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	// The server ended the call because of the cancel, not its timeout:
	// the audit line says so.
	deadline = time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range readAudit(t, f.audit) {
			if e.Tool == "browser_wait" {
				if !strings.Contains(e.Error, "cancel") {
					t.Errorf("the cancelled wait ended with %q, want a cancellation", e.Error)
				}
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the cancelled browser_wait never ended on the server")
}

func TestMain(m *testing.M) {
	// Screenshots and the browser's profile go to a private temp dir.
	dir, err := os.MkdirTemp("", "serve-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", dir)
	testutil.RaiseParallel()
	code := m.Run()
	if err := shared.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		code = 1
	}
	if err := testutil.NoneLeft(); err != nil { // what the parallel tests did not check (testutil.Parallel)
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// shared is the one Chromium the package's tests share, a browser context
// per fixture (browser.LaunchOptions.Host), started on first use.
var shared = testutil.NewSharedBrowser(browser.FindChrome, func(dir string) []string {
	return browser.LaunchArgs(dir, browser.LaunchOptions{})
})

// TestModeSwitchResetsTrust: browser_connect and browser_disconnect run
// through the registry (asked through the host, audited), and each switch
// leaves the session owning no tab; in the person's Chrome it may close
// the tab it opened there, never the person's.
func TestModeSwitchResetsTrust(t *testing.T) {
	testutil.Parallel(t)
	site := newBankSite(t)
	f := newFixture(t, "127.0.0.1", false)
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	person := testutil.StartPersonsBrowser(t, chrome, []string{site.URL + "/news/person"}, nil)
	host := &answering{}
	cs := f.connect(t, "switcher", &mcp.ClientOptions{ElicitationHandler: host.handle})
	callTool(t, cs, "browser_open", map[string]any{"url": site.URL + "/news/isolated"})

	host.answers = []string{"once"}
	text, isErr := callTool(t, cs, "browser_connect", map[string]any{"user_data_dir": person.Dir})
	if isErr || !strings.Contains(text, "shared mode") {
		t.Fatalf("browser_connect: isError=%v %q", isErr, text)
	}
	if len(host.forms) != 1 {
		t.Errorf("browser_connect asked %d times, want once", len(host.forms))
	}
	// The tab opened before the switch is no longer this session's.
	if text, isErr := callTool(t, cs, "browser_close", nil); !isErr || !strings.Contains(text, "Refused") {
		t.Errorf("close after the switch: isError=%v %q", isErr, text)
	}
	tabs, _ := callTool(t, cs, "browser_tabs", nil)
	var personTab string
	for _, line := range strings.Split(tabs, "\n") {
		if strings.Contains(line, "/news/person") {
			personTab = strings.Fields(line)[0]
		}
	}
	if personTab == "" {
		t.Fatalf("the person's tab is not listed:\n%s", tabs)
	}
	if text, isErr := callTool(t, cs, "browser_close", map[string]any{"tab": personTab}); !isErr {
		t.Errorf("closing the person's tab was allowed: %q", text)
	}
	callTool(t, cs, "browser_open", map[string]any{"url": site.URL + "/news/mine"})
	if text, isErr := callTool(t, cs, "browser_close", nil); isErr {
		t.Errorf("closing its own tab in the person's Chrome: %q", text)
	}
	host.answers = []string{"once"}
	if text, isErr := callTool(t, cs, "browser_disconnect", nil); isErr || !strings.Contains(text, "isolated mode") {
		t.Fatalf("browser_disconnect: isError=%v %q", isErr, text)
	}
	var pages []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if pages = person.PageURLs(); len(pages) == 1 {
			break
		}
	}
	if len(pages) != 1 || !strings.HasSuffix(pages[0], "/news/person") {
		t.Errorf("the person's Chrome has the pages %v, want only its own", pages)
	}
	var modes []string
	for _, e := range readAudit(t, f.audit) {
		if strings.HasPrefix(e.Tool, "browser_") && strings.Contains(e.Tool, "connect") {
			modes = append(modes, e.Tool+" "+e.Decision+" "+e.DecidedBy)
		}
	}
	if diff := cmp.Diff([]string{"browser_connect allow " + guard.ByElicitation("switcher", "stdio"), "browser_disconnect allow " + guard.ByElicitation("switcher", "stdio")}, modes); diff != "" {
		t.Errorf("audit of the switches (-want +got):\n%s", diff)
	}
}

// TestLoggingAtClientLevel: each call's outcome is logged through
// notifications/message at the level the client set, and nothing below it.
func TestLoggingAtClientLevel(t *testing.T) {
	testutil.Parallel(t)
	site := newBankSite(t)
	f := newFixture(t, "127.0.0.1", false)
	var mu sync.Mutex
	var logs []string
	cs := f.connect(t, "listener", &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		mu.Lock()
		defer mu.Unlock()
		b, _ := json.Marshal(r.Params.Data)
		logs = append(logs, string(r.Params.Level)+" "+string(b))
	}})
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := logs
		logs = nil
		return out
	}
	ctx := context.Background()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	callTool(t, cs, "web_fetch", map[string]any{"url": site.URL + "/news/"})
	callTool(t, cs, "browser_click", map[string]any{"ref": "e1", "tab": "t99"})
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	callTool(t, cs, "web_fetch", map[string]any{"url": site.URL + "/news/"})
	// Notifications travel apart from the results: wait for the last one.
	deadline := time.Now().Add(5 * time.Second)
	var all []string
	for len(all) < 2 && time.Now().Before(deadline) {
		all = append(all, got()...)
		time.Sleep(20 * time.Millisecond)
	}
	if len(all) != 2 || !strings.HasPrefix(all[0], "warning ") || !strings.Contains(all[0], "browser_click") ||
		!strings.HasPrefix(all[1], "info ") || !strings.Contains(all[1], "web_fetch done") {
		t.Errorf("log messages: %q; want a warning for the failed click, then info for the second fetch only", all)
	}
}

// TestScreenshotIsImage: browser_screenshot comes back as image content.
func TestScreenshotIsImage(t *testing.T) {
	testutil.Parallel(t)
	site := newBankSite(t)
	f := newFixture(t, "127.0.0.1", false)
	cs := f.connect(t, "viewer", nil)
	callTool(t, cs, "browser_open", map[string]any{"url": site.URL + "/news/"})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser_screenshot", Arguments: map[string]any{"format": "png"}})
	if err != nil || res.IsError {
		t.Fatalf("browser_screenshot: %v %s", err, resultText(res))
	}
	var images []string
	for _, c := range res.Content {
		if im, ok := c.(*mcp.ImageContent); ok && len(im.Data) > 100 {
			images = append(images, im.MIMEType)
		}
	}
	if diff := cmp.Diff([]string{"image/png"}, images); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
}

// TestHTTPSessionEndClosesItsTabs: over Streamable HTTP two sessions share
// the browser; when one ends, the tabs it opened are closed (as its own
// calls, in the audit log) and the other's stay.
func TestHTTPSessionEndClosesItsTabs(t *testing.T) {
	testutil.Parallel(t)
	site := newBankSite(t)
	f := newFixture(t, "127.0.0.1", false)
	hs := httptest.NewServer(f.srv.Handler(nil))
	t.Cleanup(hs.Close)
	dial := func(name string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL + Path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	a, b := dial("host-a"), dial("host-b")
	t.Cleanup(func() { b.Close() })
	callTool(t, a, "browser_open", map[string]any{"url": site.URL + "/news/a"})
	callTool(t, b, "browser_open", map[string]any{"url": site.URL + "/news/b"})
	a.Close()
	deadline := time.Now().Add(10 * time.Second)
	var tabs string
	for time.Now().Before(deadline) {
		tabs, _ = callTool(t, b, "browser_tabs", nil)
		if !strings.Contains(tabs, "/news/a") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(tabs, "/news/a") || !strings.Contains(tabs, "/news/b") {
		t.Fatalf("after host-a left, the tabs are:\n%s", tabs)
	}
	// b's list never showed a's tab (TestHTTPSessionsKeepTheirGrantsAndTabs):
	// the close is seen in the audit log.
	for time.Now().Before(deadline) && !slices.ContainsFunc(readAudit(t, f.audit), func(e guard.Entry) bool { return e.Tool == "browser_close" }) {
		time.Sleep(100 * time.Millisecond)
	}
	var closes []string
	for _, e := range readAudit(t, f.audit) {
		if e.Tool == "browser_close" {
			closes = append(closes, e.Client+" "+e.Decision)
			if e.Session == "" || e.Session == "stdio" {
				t.Errorf("HTTP session id missing in %+v", e)
			}
		}
	}
	if diff := cmp.Diff([]string{"host-a allow"}, closes); diff != "" {
		t.Errorf("audit of the closes (-want +got):\n%s", diff)
	}
}

// TestNoFormOrdinaryWrite: in the person's Chrome a write on an ordinary
// page needs approval; a host that cannot show forms is refused with the
// sentence naming --yes, and with --yes the call runs, logged as approved
// by --yes, not by a person.
func TestNoFormOrdinaryWrite(t *testing.T) {
	testutil.Parallel(t)
	site := newBankSite(t)
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	for _, yes := range []bool{false, true} {
		t.Run(fmt.Sprintf("yes=%v", yes), func(t *testing.T) {
			testutil.Parallel(t) // a fixture and a person's browser each
			f := newFixture(t, "127.0.0.1", yes)
			person := testutil.StartPersonsBrowser(t, chrome, []string{site.URL + "/news/person"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := f.sess.Connect(ctx, browser.Target{UserDataDir: person.Dir}); err != nil {
				t.Fatal(err)
			}
			cs := f.connect(t, "bare-host", nil)
			if text, isErr := callTool(t, cs, "browser_open", map[string]any{"url": site.URL + "/news/mine"}); isErr {
				t.Fatalf("browser_open: %s", text)
			}
			text, isErr := callTool(t, cs, "browser_scroll", map[string]any{"direction": "down"})
			switch {
			case !yes && (!isErr || !strings.Contains(text, "browseragent mcp serve --yes")):
				t.Errorf("without --yes: isError=%v %q", isErr, text)
			case yes && isErr:
				t.Errorf("with --yes: %q", text)
			}
			var got []string
			for _, e := range readAudit(t, f.audit) {
				if e.Tool == "browser_scroll" {
					got = append(got, e.Decision+" "+e.DecidedBy)
				}
			}
			want := []string{"deny " + guard.ByCannotAsk}
			if yes {
				want = []string{"allow --yes"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("audit of the scroll (-want +got):\n%s", diff)
			}
			callTool(t, cs, "browser_close", nil)
		})
	}
}

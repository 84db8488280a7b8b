//go:build linux

// The person's browser is a second Chromium in its own process group, and
// the no-child check reads /proc: these tests are Linux-only.

package session

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// personAtTerminal is a scripted person: it answers approval questions from
// a queue (no when the queue is empty) and remembers every question.
type personAtTerminal struct {
	mu      sync.Mutex
	answers []tools.Answer
	asked   []tools.ApprovalRequest
}

func (p *personAtTerminal) Approve(_ context.Context, req tools.ApprovalRequest) (tools.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, req)
	if len(p.answers) == 0 {
		return tools.AnswerDeny, nil
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	return a, nil
}

// will queues the answers to the next questions.
func (p *personAtTerminal) will(a ...tools.Answer) {
	p.mu.Lock()
	p.answers = append(p.answers, a...)
	p.mu.Unlock()
}

func (p *personAtTerminal) questions() []tools.ApprovalRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asked)
}

// sharedSite is the person's local web site: a cookie login, an article, a
// shop with a click counter, a vault page that a sensitive-site rule
// names, and a page of download links, two of them to the vault's file.
func sharedSite(t *testing.T, more ...func(*http.ServeMux)) *httptest.Server {
	t.Helper()
	const counter = `<button onclick="n=(window.n||0)+1;document.getElementById('c').textContent='clicked '+n">Press me</button><p id="c">not clicked</p>`
	mux := http.NewServeMux()
	mux.HandleFunc("/autologin", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: r.FormValue("user"), Path: "/"})
		http.Redirect(w, r, "/account", http.StatusSeeOther)
	})
	mux.HandleFunc("/account", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("session"); err == nil {
			fmt.Fprintf(w, "<title>Account</title><h1>Welcome back, %s</h1>", html.EscapeString(c.Value))
			return
		}
		fmt.Fprint(w, "<title>Account</title><p>Please sign in.</p>")
	})
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Article</title><h1>The person's reading</h1>")
	})
	mux.HandleFunc("/shop", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Shop</title><h1>Shop</h1>"+counter)
	})
	mux.HandleFunc("/vault/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Vault</title><h1>Vault</h1>"+counter)
	})
	mux.HandleFunc("/files", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Files</title><a href="/vault/statement.csv" download>Statement</a>
<a href="/to-vault" download>Latest statement</a> <a href="/prices.csv" download>Price list</a>`)
	})
	mux.HandleFunc("/vault/statement.csv", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "balance,1000000\n")
	})
	mux.HandleFunc("/to-vault", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/vault/statement.csv", http.StatusFound)
	})
	mux.HandleFunc("/prices.csv", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "tea,4\n") })
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>MCP tab</title><h1>Opened through MCP</h1>")
	})
	for _, add := range more {
		add(mux)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// personsBrowser is the person's browser (see testutil.PersonsBrowser)
// with the waits these tests need.
type personsBrowser struct{ *testutil.PersonsBrowser }

// startPersonsBrowser launches it logged into site in one tab with the
// article in a second. Its cleanup, registered first so it runs last, checks
// that the browser is still running (nothing of ours closed it), stops it
// and then checks that no child process of the test is left.
func startPersonsBrowser(t *testing.T, site string) *personsBrowser {
	t.Helper()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	p := testutil.StartPersonsBrowser(t, chrome, []string{site + "/autologin?user=person", site + "/article"},
		func(urls []string) bool { return len(urls) == 2 && slices.Contains(urls, site+"/account") })
	t.Cleanup(func() {
		if !p.Running() {
			t.Errorf("the person's browser was not running at the end of the test: something of ours closed it")
		}
		p.Stop()
		testutil.WaitNoDescendants(t)
	})
	return &personsBrowser{p}
}

// tabURLs asks the person's browser itself, not our packages, which pages
// it has open, sorted.
func (p *personsBrowser) tabURLs() []string {
	urls := p.PageURLs()
	slices.Sort(urls)
	return urls
}

// waitTabs waits (bounded) until the person's browser shows exactly want.
func (p *personsBrowser) waitTabs(t *testing.T, want []string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	var got []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = p.tabURLs(); slices.Equal(got, want) {
			return
		}
	}
	t.Errorf("tabs of the person's browser (-want +got)\n%s", cmp.Diff(want, got))
}

// newSharedSession builds a Session with the person at its terminal. Its
// cleanup only closes the session: the person's browser cleanup, registered
// before, runs after it and checks for left-over processes.
func newSharedSession(t *testing.T, withMCP bool, rules string) (*Session, *personAtTerminal) {
	t.Helper()
	person := &personAtTerminal{}
	return openSession(t, withMCP, rules, person), person
}

func connect(t *testing.T, s *Session, dir string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	msg, err := s.Connect(ctx, browser.Target{UserDataDir: dir})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return msg
}

// tabLine is one line of browser_tabs.
type tabLine struct{ ID, Flags, Title, URL string }

var tabLineRE = regexp.MustCompile(`^(t\d+) \[([^\]]*)\] "(.*)" (\S+)$`)

// listTabs calls browser_tabs through the registry, as the LLM would.
func listTabs(t *testing.T, s *Session) map[string]tabLine {
	t.Helper()
	res := call(t, s, "browser_tabs", map[string]any{})
	tabs := map[string]tabLine{}
	for _, line := range strings.Split(res.Text, "\n") {
		if m := tabLineRE.FindStringSubmatch(line); m != nil {
			tabs[m[4]] = tabLine{m[1], m[2], m[3], m[4]}
		}
	}
	return tabs
}

var snapRefRE = regexp.MustCompile(`ref=(e\d+)`)

// pressRef reads the current page through browser_snapshot and returns the
// ref of its "Press me" button.
func pressRef(t *testing.T, s *Session) string {
	t.Helper()
	snap := call(t, s, "browser_snapshot", map[string]any{}).Text
	for _, line := range strings.Split(snap, "\n") {
		if m := snapRefRE.FindStringSubmatch(line); m != nil && strings.Contains(line, "Press me") {
			return m[1]
		}
	}
	t.Fatalf("no ref for the button in:\n%s", snap)
	return ""
}

// pageSays reports whether the current page's text holds want (read
// through browser_extract, a read the guard always allows).
func pageSays(t *testing.T, s *Session, want string) bool {
	t.Helper()
	res := call(t, s, "browser_extract", map[string]any{})
	return !res.IsError() && strings.Contains(res.Text, want)
}

// TestSessionSharedMode attaches a Session to the person's running Chromium
// and drives it only through Registry.Call, as the LLM and the slash
// commands do: the person's tabs are listed and never closed (natively or
// through chrome-devtools-mcp), the agent's own tabs may be, writes ask the
// person, an "always" grant dies with a reconnect, a sensitive page asks
// every time, and Disconnect closes the agent's tabs (saying how many)
// and leaves the person's and the browser running.
func TestSessionSharedMode(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	site := sharedSite(t)
	person := startPersonsBrowser(t, site.URL)
	s, answers := newSharedSession(t, true, `version: 1
rules:
  - name: local-vault
    category: password-manager
    hosts: ["127.0.0.1"]
    paths: ["/vault/*"]
    action: ask
`)
	personTabs := []string{site.URL + "/account", site.URL + "/article"}
	msg := connect(t, s, person.Dir)
	if s.Mode() != guard.Shared || msg != "" {
		t.Fatalf("Connect: mode %v, message %q", s.Mode(), msg)
	}
	// No Start: Connect (re)starts chrome-devtools-mcp against the person's
	// browser, and the session has no other MCP server.

	t.Run("person's tabs listed, logged in, never closed", func(t *testing.T) {
		tabs := listTabs(t, s)
		for _, u := range personTabs {
			if tab, ok := tabs[u]; !ok || !strings.Contains(tab.Flags, "person's") {
				t.Fatalf("browser_tabs does not list %s as the person's: %+v", u, tabs)
			}
		}
		account := tabs[site.URL+"/account"].ID
		call(t, s, "browser_select_tab", map[string]any{"tab": account})
		if !pageSays(t, s, "Welcome back, person") {
			t.Errorf("the agent does not see the person's logged-in page")
		}
		res := call(t, s, "browser_close", map[string]any{"tab": account})
		if !res.IsError() || !strings.Contains(res.Text, "tab the person opened") || !strings.Contains(res.Text, "leave this tab open") {
			t.Errorf("closing the person's tab: want a refusal the LLM can act on, got %+v", res)
		}
		person.waitTabs(t, personTabs)
	})

	t.Run("agent's own tab may be closed", func(t *testing.T) {
		if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"}); res.IsError() {
			t.Fatalf("browser_open: %s", res.Text)
		}
		if tab := listTabs(t, s)[site.URL+"/shop"]; !strings.Contains(tab.Flags, "agent") || !strings.Contains(tab.Flags, "current") {
			t.Errorf("the opened tab is not the agent's current tab: %+v", tab)
		}
		person.waitTabs(t, append(slices.Clone(personTabs), site.URL+"/shop"))
		if res := call(t, s, "browser_close", map[string]any{}); res.IsError() {
			t.Fatalf("closing the agent's own tab was refused: %s", res.Text)
		}
		person.waitTabs(t, personTabs)
	})

	t.Run("chrome-devtools-mcp close_page", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
			logs, _ := s.MCP.Logs(mcpclient.DefaultServerName)
			t.Fatalf("chrome-devtools-mcp not ready against the person's browser: %v\n%s", err, strings.Join(logs, "\n"))
		}
		article := mcpPageID(t, s, site.URL+"/article")
		res := call(t, s, "mcp__chrome-devtools__close_page", map[string]any{"pageId": article})
		if !res.IsError() || !strings.Contains(res.Text, "tab the person opened") {
			t.Errorf("close_page of the person's tab through MCP: want a refusal, got %+v", res)
		}
		person.waitTabs(t, personTabs)

		if res := call(t, s, "mcp__chrome-devtools__new_page", map[string]any{"url": site.URL + "/mcp"}); res.IsError() {
			t.Fatalf("new_page: %s", res.Text)
		}
		person.waitTabs(t, append(slices.Clone(personTabs), site.URL+"/mcp"))
		opened := mcpPageID(t, s, site.URL+"/mcp")
		if res := call(t, s, "mcp__chrome-devtools__close_page", map[string]any{"pageId": opened}); res.IsError() {
			t.Errorf("close_page of the page new_page opened was refused: %s", res.Text)
		}
		person.waitTabs(t, personTabs)
	})
	if n := len(answers.questions()); n != 0 {
		t.Fatalf("opening, reading and closing asked the person %d question(s): %+v", n, answers.questions())
	}

	t.Run("approvals and trust reset", func(t *testing.T) {
		call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"})
		ref := pressRef(t, s)
		answers.will(tools.AnswerTool)
		if res := call(t, s, "browser_click", map[string]any{"ref": ref}); res.IsError() || !pageSays(t, s, "clicked 1") {
			t.Fatalf("click approved for the tool did not run: %+v", res)
		}
		if q := answers.questions(); len(q) != 1 || q[0].Tool != "browser_click" || q[0].Sensitive || !strings.HasSuffix(q[0].PageURL, "/shop") {
			t.Fatalf("a click in the person's browser must ask once about the shop page: %+v", q)
		}
		if res := call(t, s, "browser_click", map[string]any{"ref": ref}); res.IsError() || !pageSays(t, s, "clicked 2") {
			t.Fatalf("second click under the \"always\" grant: %+v", res)
		}
		if n := len(answers.questions()); n != 1 {
			t.Errorf("the \"always\" grant did not cover the second click: %d questions", n)
		}

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		msg, err := s.Disconnect(ctx)
		if err != nil || msg != `Closed the tab the agent opened in your Chrome. Dropped 1 "always allow" grant.` {
			t.Fatalf("Disconnect: %q, %v", msg, err)
		}
		// The agent's shop tab went with the connection: after a reconnect
		// nothing it opened is left to count as the person's.
		person.waitTabs(t, personTabs)
		if msg := connect(t, s, person.Dir); msg != "" {
			t.Errorf("Connect again with no grants to drop: the message is %q, want none", msg)
		}
		call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"})
		ref = pressRef(t, s)
		answers.will(tools.AnswerOnce)
		if res := call(t, s, "browser_click", map[string]any{"ref": ref}); res.IsError() || !pageSays(t, s, "clicked 1") {
			t.Fatalf("click after reconnect, approved once: %+v", res)
		}
		if n := len(answers.questions()); n != 2 {
			t.Errorf("after Disconnect and Connect the old grant still covered a click: %d questions, want 2", n)
		}
	})

	t.Run("sensitive page asks every time", func(t *testing.T) {
		call(t, s, "browser_open", map[string]any{"url": site.URL + "/vault/settings"})
		ref := pressRef(t, s)
		before := len(answers.questions())
		answers.will(tools.AnswerTool)
		res := call(t, s, "browser_click", map[string]any{"ref": ref})
		if !res.IsError() || !strings.Contains(res.Text, "fresh approval every time") || !pageSays(t, s, "not clicked") {
			t.Errorf("\"always\" on a sensitive page must be refused and the click not run: %+v", res)
		}
		for i := range 2 {
			answers.will(tools.AnswerOnce)
			if res := call(t, s, "browser_click", map[string]any{"ref": ref}); res.IsError() || !pageSays(t, s, fmt.Sprintf("clicked %d", i+1)) {
				t.Fatalf("click %d approved once: %+v", i+1, res)
			}
		}
		q := answers.questions()[before:]
		if len(q) != 3 {
			t.Fatalf("want a question for each of 3 clicks on the vault page, got %d: %+v", len(q), q)
		}
		for _, r := range q {
			if !r.Sensitive || r.Rule != "local-vault" {
				t.Errorf("question about the vault page must be sensitive and name the rule: %+v", r)
			}
		}
	})

	t.Run("Disconnect closes the agent's tabs only", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		msg, err := s.Disconnect(ctx)
		if err != nil || !strings.HasPrefix(msg, "Closed the 2 tabs the agent opened in your Chrome.") {
			t.Fatalf("Disconnect: %q, %v", msg, err)
		}
		time.Sleep(300 * time.Millisecond) // a wrongly closed tab would be gone by now
		person.waitTabs(t, personTabs)
		if !person.Running() {
			t.Errorf("the person's browser stopped after Disconnect")
		}
		if s.Mode() != guard.Isolated {
			t.Errorf("mode after Disconnect: %v", s.Mode())
		}
	})
}

// mcpPageID finds the chrome-devtools-mcp pageId of the tab showing url,
// through list_pages called on the registry.
func mcpPageID(t *testing.T, s *Session, url string) int {
	t.Helper()
	list := call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{})
	for _, p := range browser.ParseListPages(list.Text) {
		if p.URL == url {
			return p.ID
		}
	}
	t.Fatalf("chrome-devtools-mcp does not list %s:\n%s", url, list.Text)
	return -1
}

// TestSessionConnectOneTabAndBack: connected to a Chrome that shows one
// tab, that tab is the current one (a read needs no tab argument);
// Disconnect brings back the isolated browser's tabs from
// before Connect, without starting a new Chromium "for its first use".
func TestSessionConnectOneTabAndBack(t *testing.T) {
	testutil.Parallel(t)
	site := sharedSite(t)
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	person := testutil.StartPersonsBrowser(t, chrome, []string{site.URL + "/article"},
		func(urls []string) bool { return slices.Equal(urls, []string{site.URL + "/article"}) })
	t.Cleanup(func() { person.Stop(); testutil.WaitNoDescendants(t) })
	answers := &personAtTerminal{}
	r, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notices []string
	opts := &SessionOptions{Rules: r, Approver: answers, AuditPath: "-", OnNotice: func(m string) {
		mu.Lock()
		notices = append(notices, m)
		mu.Unlock()
	}}
	opts.Browser.Launch.Host = shared.Endpoint(t)
	ownBrowser(t, opts)
	s, err := NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	noticeCount := func() int { mu.Lock(); defer mu.Unlock(); return len(notices) }

	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"}); res.IsError() {
		t.Fatalf("browser_open in the isolated browser: %s", res.Text)
	}
	if n := noticeCount(); n != 1 {
		t.Fatalf("notices after the first browser call: %d, want the one first-use notice", n)
	}
	connect(t, s, person.Dir)
	if res := call(t, s, "browser_extract", map[string]any{}); res.IsError() || !strings.Contains(res.Text, "The person's reading") {
		t.Errorf("browser_extract after /connect to a Chrome with one tab: want that tab read, got %+v", res)
	}
	if res := call(t, s, "browser_snapshot", map[string]any{}); res.IsError() || !strings.Contains(res.Text, "The person's reading") {
		t.Errorf("browser_snapshot after /connect to a Chrome with one tab: want that tab, got %+v", res)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.Disconnect(ctx); err != nil {
		t.Fatal(err)
	}
	tabs := listTabs(t, s)
	if _, ok := tabs[site.URL+"/shop"]; !ok {
		t.Errorf("after Disconnect the isolated browser's tab from before /connect is gone: %+v", tabs)
	}
	if !pageSays(t, s, "Shop") {
		t.Errorf("after Disconnect the current tab is not the isolated one from before")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 1 {
		t.Errorf("notices = %q, want only the first start's", notices)
	}
	if q := answers.questions(); len(q) != 0 {
		t.Errorf("reads asked the person: %+v", q)
	}
}

package session

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// shared is the one Chromium the package's tests share, a browser context
// per test (browser.LaunchOptions.Host); see openSession.
var shared = testutil.NewSharedBrowser(browser.FindChrome, func(dir string) []string {
	return browser.LaunchArgs(dir, browser.LaunchOptions{})
})

func TestMain(m *testing.M) { testutil.Main(m, shared) }

// newTestSession opens a started Session for one test. Its cleanup,
// registered before the session's so it runs after the Close, checks that
// no child process of the test (browser, MCP server) is left.
func newTestSession(t *testing.T, withMCP bool, rules string) *Session {
	t.Helper()
	testutil.Require(t, "chromium", browser.FindChrome)
	if withMCP {
		testutil.RequireProgram(t, "npx")
	}
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	s := openSession(t, withMCP, rules, nil)
	s.Start(context.Background())
	return s
}

// openSession opens a Session with the sensitive-site rules, approver (nil:
// nobody is asked) and, withMCP, the default MCP server. A cleanup closes
// it.
func openSession(t *testing.T, withMCP bool, rules string, approver tools.Approver) *Session {
	t.Helper()
	r, err := guard.ParseRules([]byte(rules), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts := &SessionOptions{Rules: r, Approver: approver}
	if withMCP {
		opts.MCP = mcpclient.DefaultConfig()
	} else {
		// Without chrome-devtools-mcp, which sees the whole browser, the
		// isolated browser is a fresh context in the package's Chromium.
		opts.Browser.Launch.Host = shared.Endpoint(t)
	}
	return openSessionWith(t, opts)
}

// openSessionWith opens a Session with opts (no sensitive-site rules when
// it names none, and an audit log of the test's own), its browser and MCP
// servers the test's (ownBrowser, ownMCP). A cleanup closes it.
func openSessionWith(t *testing.T, opts *SessionOptions) *Session {
	t.Helper()
	if opts.Rules == nil {
		r, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
		if err != nil {
			t.Fatal(err)
		}
		opts.Rules = r
	}
	if opts.AuditPath == "" {
		opts.AuditPath = filepath.Join(t.TempDir(), "audit.jsonl")
	}
	ownBrowser(t, opts)
	s, err := NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	ownMCP(t, s)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// ownBrowser tells the process checks of a parallel test (testutil.Owns)
// which Chromium is the session's: the one it launches carries a marker
// of the test on its command line. A session in the package's shared
// Chromium launches none.
//
// It also gives the MCP servers the start allowance the mcpclient tests
// give Node servers (2 min): with the package's tests running side by
// side on a loaded machine, Node and chrome-devtools-mcp's puppeteer can
// take longer to come up than the 60 s a person's session allows, and
// these tests judge what the session does once the server is up, not how
// fast it comes up.
func ownBrowser(t *testing.T, opts *SessionOptions) {
	if opts.MCPOptions.InitTimeout == 0 {
		opts.MCPOptions.InitTimeout = 2 * time.Minute
	}
	if opts.Browser.Launch.Host != "" {
		testutil.Owns(t, "", nil)
		return
	}
	marker := t.TempDir()
	opts.Browser.Launch.ExtraFlags = append(opts.Browser.Launch.ExtraFlags, "--browseragent-test="+marker)
	testutil.Owns(t, marker, nil)
}

// ownMCP tells them that the session's MCP servers are the test's: the
// process (and group) ids its manager reports, asked until the test ends.
func ownMCP(t *testing.T, s *Session) {
	if s.MCP == nil {
		return
	}
	testutil.Owns(t, "", func() []int {
		var pids []int
		for _, st := range s.MCP.Status() {
			if st.PID != 0 {
				pids = append(pids, st.PID)
			}
		}
		return pids
	})
}

func call(t *testing.T, s *Session, tool string, args any) *tools.ToolResult {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := s.Registry.Call(ctx, tool, raw, tools.OriginCommand)
	if errors.Is(err, guard.ErrDenied) {
		if !res.IsError() || res.Text != err.Error() {
			t.Fatalf("%s: a refusal's result must be an error result carrying its reason: %+v (err %v)", tool, res, err)
		}
		return res // the tests judge refusals by the result the caller sees
	}
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// TestSessionNativeAndMCPShareOneBrowser drives a page opened by the native
// tools through chrome-devtools-mcp, proving both see the same browser, and
// that the guard judges MCP calls by the live URL behind their pageId.
func TestSessionNativeAndMCPShareOneBrowser(t *testing.T) {
	testutil.Parallel(t)
	site := serveSite(t)
	host := strings.TrimPrefix(site.URL, "http://")
	s := newTestSession(t, true, `version: 1
rules:
  - name: local-vault
    category: password-manager
    hosts: ["`+strings.Split(host, ":")[0]+`"]
    paths: ["/vault*"]
    action: ask
`)
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/article"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
		st, _ := s.MCP.ServerStatus(mcpclient.DefaultServerName)
		logs, _ := s.MCP.Logs(mcpclient.DefaultServerName)
		t.Fatalf("chrome-devtools-mcp not ready: %v (%v)\n%s", err, st.Err, strings.Join(logs, "\n"))
	}
	list := call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{})
	var id int = -1
	for _, p := range browser.ParseListPages(list.Text) {
		if strings.HasSuffix(p.URL, "/article") {
			id = p.ID
		}
	}
	if id < 0 {
		t.Fatalf("chrome-devtools-mcp does not see the page the native tools opened:\n%s", list.Text)
	}
	snap := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": id})
	if snap.IsError() || !strings.Contains(snap.Text, "Heading of /article") {
		t.Fatalf("take_snapshot through MCP:\n%s", snap.Text)
	}
	// The guard judges an MCP write by the page behind pageId, asked live:
	// nobody is there to approve a write on a sensitive page.
	if nav := call(t, s, "browser_navigate", map[string]any{"url": site.URL + "/vault"}); nav.IsError() {
		t.Fatalf("navigating to a sensitive page is allowed, got: %s", nav.Text)
	}
	click := call(t, s, "mcp__chrome-devtools__press_key", map[string]any{"pageId": id, "key": "Enter"})
	if !click.IsError() || !strings.Contains(click.Text, "local-vault") {
		t.Fatalf("write on a sensitive page through MCP, with nobody to approve, was not refused: %q", click.Text)
	}
}

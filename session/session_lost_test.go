//go:build linux

package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// TestSessionSharedBrowserLost: the person's Chrome dies while connected.
// Without any call the whole session is back in isolated mode (browser,
// guard policy with trust reset, prompt facts) and says so once through
// OnBrowserLost; the next browser call reports the loss in one sentence;
// the call after works in a fresh isolated browser where writes no longer
// ask the person; Disconnect says the connection was already lost; and
// chrome-devtools-mcp was restarted against the isolated browser.
func TestSessionSharedBrowserLost(t *testing.T) {
	testutil.Parallel(t)
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	site := sharedSite(t)
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	person := testutil.StartPersonsBrowser(t, chrome, []string{site.URL + "/article"}, nil)
	s, asker := newSharedSession(t, true, "version: 1\nrules: []\n")
	notices := make(chan string, 4)
	s.OnBrowserLost(func(msg string) { notices <- msg })
	s.Start(context.Background())

	connect(t, s, person.Dir)
	waitMCP(t, s)
	if got := mcpPageURLs(t, s); !strings.Contains(got, site.URL+"/article") {
		t.Fatalf("chrome-devtools-mcp does not see the person's tab:\n%s", got)
	}

	person.Kill()
	var msg string
	select {
	case msg = <-notices:
	case <-time.After(30 * time.Second):
		t.Fatal("no notice within 30 s of the person's browser dying")
	}
	for _, want := range []string{"Lost the connection to your Chrome", "back to the isolated browser, trust reset"} {
		if !strings.Contains(msg, want) {
			t.Errorf("notice %q lacks %q", msg, want)
		}
	}
	if s.Mode() != guard.Isolated || s.Policy.Mode() != guard.Isolated || s.Browser.Mode() != browser.ModeIsolated {
		t.Errorf("after the loss: session %v, policy %v, browser %v; want isolated everywhere", s.Mode(), s.Policy.Mode(), s.Browser.Mode())
	}
	if f := s.Facts(); !strings.Contains(f, "Browser mode: isolated") {
		t.Errorf("prompt facts after the loss: %q", f)
	}

	_, err := s.Registry.Call(context.Background(), "browser_tabs", json.RawMessage(`{}`), tools.OriginCommand)
	if !errors.Is(err, browser.ErrLost) || !strings.Contains(err.Error(), "person's Chrome") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("first browser call after the loss: err = %v, want one sentence about the person's Chrome", err)
	}
	if _, err := s.Disconnect(context.Background()); !errors.Is(err, ErrAlreadyLost) {
		t.Errorf("Disconnect after the loss: err = %v, want ErrAlreadyLost", err)
	}

	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"}); res.IsError() {
		t.Fatalf("browser_open in the fresh isolated browser: %s", res.Text)
	}
	if res := call(t, s, "browser_click", map[string]any{"ref": pressRef(t, s)}); res.IsError() {
		t.Fatalf("click in the isolated browser: %s", res.Text)
	}
	if !pageSays(t, s, "clicked 1") {
		t.Errorf("the click did not run")
	}
	if q := asker.questions(); len(q) != 0 {
		t.Errorf("isolated mode asked the person %d time(s), first: %+v", len(q), q[0])
	}

	waitMCP(t, s)
	if got := mcpPageURLs(t, s); !strings.Contains(got, site.URL+"/shop") || strings.Contains(got, "/article") {
		t.Errorf("chrome-devtools-mcp after the loss should list only the isolated browser's /shop:\n%s", got)
	}
}

func waitMCP(t *testing.T, s *Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
		logs, _ := s.MCP.Logs(mcpclient.DefaultServerName)
		t.Fatalf("chrome-devtools-mcp not ready: %v\n%s", err, strings.Join(logs, "\n"))
	}
}

// mcpPageURLs is chrome-devtools-mcp's list_pages, called as the LLM would.
func mcpPageURLs(t *testing.T, s *Session) string {
	t.Helper()
	res := call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{})
	if res.IsError() {
		t.Fatalf("list_pages: %s", res.Text)
	}
	var urls []string
	for _, p := range browser.ParseListPages(res.Text) {
		urls = append(urls, p.URL)
	}
	return strings.Join(urls, "\n")
}

//go:build linux

package session

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
)

// TestSessionMCPTabIdentity is the attack where the person and the agent
// each have a tab on the same URL and chrome-devtools-mcp was restarted
// (as /connect does), so it lists pages in an order of its own: close_page
// on the agent's page must close the agent's tab, and close_page on the
// person's page must be refused, in every round. Matching pages to tabs by
// URL in list order closed the person's tab in about half the rounds.
func TestSessionMCPTabIdentity(t *testing.T) {
	testutil.Parallel(t)
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	var loads atomic.Int32
	site := sharedSite(t)
	twin := newTestSite(t)
	twin.handle("/twin", func(w http.ResponseWriter, r *http.Request) {
		// Same URL, a title of its own per load: the test (not the code
		// under test, which never reads titles) tells the tabs apart by it.
		fmt.Fprintf(w, "<title>Twin %d</title><h1>Same URL</h1>", loads.Add(1))
	})
	twinURL := twin.URL + "/twin"

	p := testutil.StartPersonsBrowser(t, chrome, []string{site.URL + "/article", twinURL},
		func(urls []string) bool { return slices.Contains(urls, twinURL) })
	t.Cleanup(func() {
		if !p.Running() {
			t.Errorf("the person's browser was not running at the end of the test")
		}
		p.Stop()
		testutil.WaitNoDescendants(t)
	})
	var personsTwin testutil.Page
	for deadline := time.Now().Add(10 * time.Second); personsTwin.Title != "Twin 1" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, pg := range p.Pages() {
			if pg.URL == twinURL {
				personsTwin = pg
			}
		}
	}
	if personsTwin.Title != "Twin 1" {
		t.Fatalf("the person's twin tab did not load: %+v", p.Pages())
	}

	s, answers := newSharedSession(t, true, "version: 1\nrules: []\n")
	connect(t, s, p.Dir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	const rounds = 5
	for round := range rounds {
		if res := call(t, s, "browser_open", map[string]any{"url": twinURL}); res.IsError() {
			t.Fatalf("round %d: browser_open: %s", round, res.Text)
		}
		agentsTitle := fmt.Sprintf("Twin %d", loads.Load())
		// A fresh server lists the pages in an order of its own.
		if err := s.MCP.Restart(ctx, mcpclient.DefaultServerName); err != nil {
			t.Fatalf("round %d: restart chrome-devtools-mcp: %v", round, err)
		}
		if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
			logs, _ := s.MCP.Logs(mcpclient.DefaultServerName)
			t.Fatalf("round %d: chrome-devtools-mcp not ready: %v\n%s", round, err, strings.Join(logs, "\n"))
		}
		var persons, agents = -1, -1
		list := call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{})
		for _, pg := range browser.ParseListPages(list.Text) {
			switch {
			case pg.URL == twinURL && pg.Title == "Twin 1":
				persons = pg.ID
			case pg.URL == twinURL && pg.Title == agentsTitle:
				agents = pg.ID
			}
		}
		if persons < 0 || agents < 0 {
			t.Fatalf("round %d: want both twins (%q and %q) listed:\n%s", round, "Twin 1", agentsTitle, list.Text)
		}
		res := call(t, s, "mcp__chrome-devtools__close_page", map[string]any{"pageId": persons})
		if !res.IsError() || !strings.Contains(res.Text, "tab the person opened") {
			t.Errorf("round %d: close_page of the person's twin: want a refusal, got %+v", round, res)
		}
		res = call(t, s, "mcp__chrome-devtools__close_page", map[string]any{"pageId": agents})
		if res.IsError() {
			t.Errorf("round %d: close_page of the agent's own twin was refused: %s", round, res.Text)
		}
		want := []testutil.Page{personsTwin}
		var got []testutil.Page
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			got = nil
			for _, pg := range p.Pages() {
				if pg.URL == twinURL {
					got = append(got, pg)
				}
			}
			if slices.Equal(got, want) {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: the person's browser must show exactly the person's twin tab %+v, shows %+v", round, want, got)
		}
	}
	if q := answers.questions(); len(q) != 0 {
		t.Errorf("opening and closing the agent's own tabs asked the person: %+v", q)
	}
}

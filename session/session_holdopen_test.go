//go:build linux

package session

import (
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// TestSessionScriptCannotClosePersonsTab: the person approves a script on
// their own tab (the native one, and chrome-devtools-mcp's evaluate_script,
// each through the registry) and the script calls window.close(): the tab
// stays open.
func TestSessionScriptCannotClosePersonsTab(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	site := sharedSite(t)
	person := startPersonsBrowser(t, site.URL)
	s, answers := newSharedSession(t, true, "version: 1\nrules: []\n")
	connect(t, s, person.Dir)
	personTabs := []string{site.URL + "/account", site.URL + "/article"}
	waitMCP(t, s)

	article := mcpPageID(t, s, site.URL+"/article")
	answers.will(tools.AnswerOnce)
	res := call(t, s, "mcp__chrome-devtools__evaluate_script", map[string]any{"pageId": article,
		"function": `() => { setTimeout(() => window.close(), 0); window.close(); return "tried" }`})
	if res.IsError() {
		t.Fatalf("evaluate_script approved once: %s", res.Text)
	}
	time.Sleep(500 * time.Millisecond) // a closing tab is gone by now
	person.waitTabs(t, personTabs)

	account := listTabs(t, s)[site.URL+"/account"].ID
	call(t, s, "browser_select_tab", map[string]any{"tab": account})
	answers.will(tools.AnswerOnce)
	if res := call(t, s, "browser_eval", map[string]any{"js": `window.close(); "tried"`}); res.IsError() {
		t.Fatalf("browser_eval approved once: %s", res.Text)
	}
	time.Sleep(500 * time.Millisecond)
	person.waitTabs(t, personTabs)
	if q := answers.questions(); len(q) != 2 || !strings.Contains(q[0].Tool, "evaluate_script") || q[1].Tool != "browser_eval" {
		t.Errorf("want one question per script, got %+v", q)
	}
}

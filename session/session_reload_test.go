//go:build linux

package session

import (
	"slices"
	"testing"

	"github.com/browseragent/browseragent/tools"
)

// TestSessionReloadOfPersonsTabAsksEveryTime: chrome-devtools-mcp's
// performance_start_trace reloads the page it traces (reload defaults to
// true), as lighthouse_audit's navigation mode does. On a tab the person
// opened that leaves whatever they had there behind, like navigating it,
// which asks every time; it was judged as an ordinary write in their
// browser, and "always allow" would have covered every later reload.
func TestSessionReloadOfPersonsTabAsksEveryTime(t *testing.T) {
	site := sharedSite(t)
	person := startPersonsBrowser(t, site.URL)
	s, asked := newSharedSession(t, true, "version: 1\nrules: []\n")
	connect(t, s, person.Dir)
	waitMCP(t, s)
	page := mcpPageID(t, s, site.URL+"/article")
	res := call(t, s, "mcp__chrome-devtools__performance_start_trace", map[string]any{"pageId": page})
	q := asked.questions()
	if !res.IsError() || len(q) != 1 || slices.Contains(q[0].Choices, tools.AnswerTool) || !q[0].Sensitive {
		t.Errorf("a trace that reloads the person's tab: want one declined question offering only once, got %+v, questions %+v", res, q)
	}
	person.waitTabs(t, []string{site.URL + "/account", site.URL + "/article"})
}

//go:build linux

package session

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// TestSessionInputLeavingPersonsTabAsksEveryTime: in the person's Chrome,
// round three's attacker had the model click a link (and a button whose
// script sets location) in a tab the person opened, under one "always"
// approval of browser_click or --yes: their tab went away, although
// navigating it asks every time. A click there may leave their page, so it
// is asked about as a navigation is: once only, every time.
func TestSessionInputLeavingPersonsTabAsksEveryTime(t *testing.T) {
	testutil.Parallel(t)
	site := newTestSite(t) // /away and /away-by-script are its generic pages
	site.page("/inbox", `<!doctype html><title>Inbox</title><h1>Inbox</h1><p>A draft the person is writing.</p>
<a href="/away">Read the news</a> <button onclick="location='/away-by-script'">Tidy up</button>`)
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	person := &personsBrowser{testutil.StartPersonsBrowser(t, chrome, []string{site.URL + "/inbox"}, nil)}
	t.Cleanup(func() { person.Stop(); testutil.WaitNoDescendants(t) })
	s, answers := newSharedSession(t, false, "version: 1\nrules: []\n")
	connect(t, s, person.Dir)
	inbox := listTabs(t, s)[site.URL+"/inbox"].ID
	if inbox == "" {
		t.Fatalf("the person's inbox tab is not listed: %v", listTabs(t, s))
	}
	refOf := func(t *testing.T, label string) string {
		t.Helper()
		var snap string
		for range 20 { // the person's Chrome may still be loading the page
			snap = call(t, s, "browser_snapshot", map[string]any{"tab": inbox}).Text
			for _, line := range strings.Split(snap, "\n") {
				if m := snapRefRE.FindStringSubmatch(line); m != nil && strings.Contains(line, label) {
					return m[1]
				}
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Fatalf("no ref for %q in:\n%s", label, snap)
		return ""
	}
	for _, label := range []string{"Read the news", "Tidy up"} {
		t.Run(label, func(t *testing.T) {
			before := len(answers.questions())
			answers.will(tools.AnswerTool) // "always" is not on offer: refused
			res := call(t, s, "browser_click", map[string]any{"tab": inbox, "ref": refOf(t, label)})
			if !res.IsError() {
				t.Errorf("an \"always\" answer was accepted for a click in the person's tab: %s", res.Text)
			}
			time.Sleep(500 * time.Millisecond) // a navigation the click started lands by now
			if !slices.Contains(person.tabURLs(), site.URL+"/inbox") {
				t.Fatalf("the person's tab left their inbox: %v", person.tabURLs())
			}
			q := answers.questions()[before:]
			if len(q) != 1 || !cmp.Equal([]tools.Answer{tools.AnswerOnce}, q[0].Choices) || !q[0].Sensitive {
				t.Errorf("want one once-only question, got %+v", q)
			}
		})
	}
}

package browser

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestTabTitlesStayCurrent: browser_tabs and Tabs show the page's title, not
// the URL Chrome uses until the page loaded, and follow document.title when
// a script changes it (Chrome sends no target event for that).
func TestTabTitlesStayCurrent(t *testing.T) {
	testutil.Parallel(t)
	site := newSite(t)
	b := newTestBrowser(t, nil)
	ignoreURL := cmpopts.IgnoreFields(Tab{}, "URL")
	steps := []struct {
		name     string
		tool     string
		args     map[string]any
		wantTabs []Tab
		wantText string
	}{
		{
			name:     "open a page with a <title>",
			tool:     "browser_open",
			args:     map[string]any{"url": site.URL + "/form.html"},
			wantTabs: []Tab{{ID: "t1", Title: "Order Form", Owned: true, Current: true}},
			wantText: "1 tab (isolated browser):\nt1 [current, agent] \"Order Form\" " + site.URL + "/form.html",
		},
		{
			name:     "a script sets document.title",
			tool:     "browser_eval",
			args:     map[string]any{"js": "document.title = 'Contact form'"},
			wantTabs: []Tab{{ID: "t1", Title: "Contact form", Owned: true, Current: true}},
			wantText: "1 tab (isolated browser):\nt1 [current, agent] \"Contact form\" " + site.URL + "/form.html",
		},
		{
			name: "a second tab, titled by its page",
			tool: "browser_open",
			args: map[string]any{"url": site.URL + "/article.html"},
			wantTabs: []Tab{
				{ID: "t1", Title: "Contact form", Owned: true},
				{ID: "t2", Title: "Static Article", Owned: true, Current: true},
			},
			wantText: "2 tabs (isolated browser):\nt1 [agent] \"Contact form\" " + site.URL + "/form.html\n" +
				"t2 [current, agent] \"Static Article\" " + site.URL + "/article.html",
		},
		{
			name: "a title changed in a tab that is not current",
			tool: "browser_eval",
			args: map[string]any{"js": "document.title = 'Renamed in t1'", "tab": "t1"},
			wantTabs: []Tab{
				{ID: "t1", Title: "Renamed in t1", Owned: true},
				{ID: "t2", Title: "Static Article", Owned: true, Current: true},
			},
			wantText: "2 tabs (isolated browser):\nt1 [agent] \"Renamed in t1\" " + site.URL + "/form.html\n" +
				"t2 [current, agent] \"Static Article\" " + site.URL + "/article.html",
		},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			mustCall(t, b, st.tool, st.args)
			if diff := cmp.Diff(st.wantTabs, b.Tabs(), ignoreURL); diff != "" {
				t.Errorf("Tabs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(st.wantText, mustCall(t, b, "browser_tabs", nil).Text); diff != "" {
				t.Errorf("browser_tabs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatTabsCount(t *testing.T) {
	testutil.Parallel(t)
	tab := Tab{ID: "t1", URL: "http://127.0.0.1/", Title: "Home", Owned: true}
	tests := []struct {
		name string
		tabs []Tab
		want string
	}{
		{"none", nil, "No tabs open."},
		{"one", []Tab{tab}, "1 tab (shared browser):\nt1 [agent] \"Home\" http://127.0.0.1/"},
		{"two", []Tab{tab, {ID: "t2", URL: "about:blank"}}, "2 tabs (shared browser):\nt1 [agent] \"Home\" http://127.0.0.1/\nt2 [person's] \"\" about:blank"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, FormatTabs(tc.tabs, ModeShared)); diff != "" {
				t.Errorf("FormatTabs (-want +got):\n%s", diff)
			}
		})
	}
}

package session

import (
	"regexp"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestSessionToolsOnNamedTab drives a tab that is not the current one by
// its id through Registry.Call: the guard judges the named tab's live URL
// (a write on the sensitive page is refused even while an ordinary page is
// current, and allowed on the ordinary page while the sensitive one is
// current), reads return the named tab's page, and the current tab stays.
func TestSessionToolsOnNamedTab(t *testing.T) {
	testutil.Parallel(t)
	site := serveSite(t)
	host := strings.Split(strings.TrimPrefix(site.URL, "http://"), ":")[0]
	s := newTestSession(t, false, `version: 1
rules:
  - name: local-vault
    category: password-manager
    hosts: ["`+host+`"]
    paths: ["/vault*"]
    action: ask
`)
	loaded := regexp.MustCompile(`^Loaded tab (t\d+)`)
	open := func(path string) string {
		r := call(t, s, "browser_open", map[string]any{"url": site.URL + path})
		m := loaded.FindStringSubmatch(r.Text)
		if r.IsError() || m == nil {
			t.Fatalf("browser_open %s: %s", path, r.Text)
		}
		return m[1]
	}
	vault := open("/vault")
	plain := open("/article")

	tests := []struct {
		name    string
		current string // the tab made current first
		tool    string
		args    map[string]any
		refused bool
		want    string // in the result text
	}{
		{"read the sensitive tab by id", plain, "browser_extract", map[string]any{"tab": vault}, false, "Heading of /vault"},
		{"screenshot the sensitive tab by id", plain, "browser_screenshot", map[string]any{"tab": vault, "max_width": 300}, false, "Screenshot of tab " + vault},
		{"write on the sensitive tab by id", plain, "browser_press", map[string]any{"tab": vault, "key": "Enter"}, true, "local-vault"},
		{"write on the current sensitive tab", vault, "browser_press", map[string]any{"key": "Enter"}, true, "local-vault"},
		{"write on the plain tab by id", vault, "browser_press", map[string]any{"tab": plain, "key": "Enter"}, false, "Pressed Enter in tab " + plain},
		{"read the plain tab by id", vault, "browser_extract", map[string]any{"tab": plain}, false, "Heading of /article"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := call(t, s, "browser_select_tab", map[string]any{"tab": tt.current}); r.IsError() {
				t.Fatalf("select tab: %s", r.Text)
			}
			r := call(t, s, tt.tool, tt.args)
			if r.IsError() != tt.refused || !strings.Contains(r.Text, tt.want) {
				t.Errorf("%s %v: refused=%v, want %v; want %q in:\n%s", tt.tool, tt.args, r.IsError(), tt.refused, tt.want, r.Text)
			}
			if tt.tool == "browser_screenshot" && len(r.Images) != 1 {
				t.Errorf("screenshot returned %d images", len(r.Images))
			}
			if cur := s.Browser.CurrentTab(); cur != tt.current {
				t.Errorf("current tab is %s after the call, want %s unchanged", cur, tt.current)
			}
		})
	}
}

//go:build linux

package session

import (
	"strings"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// Ownership is one fact about one browser tab, whichever tool family looks.
func TestSharedOwnershipAcrossNativeAndMCP(t *testing.T) {
	testutil.Parallel(t)
	site := sharedSite(t)
	person := startPersonsBrowser(t, site.URL)
	s, _ := newSharedSession(t, true, "version: 1\nrules: []\n")
	connect(t, s, person.Dir)
	waitMCP(t, s)
	call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"})
	if res := call(t, s, "mcp__chrome-devtools__close_page", map[string]any{"pageId": mcpPageID(t, s, site.URL+"/shop")}); res.IsError() {
		t.Errorf("MCP close_page of the tab browser_open opened: %s", res.Text)
	}
	call(t, s, "mcp__chrome-devtools__new_page", map[string]any{"url": site.URL + "/mcp"})
	tab := listTabs(t, s)[site.URL+"/mcp"]
	if !strings.Contains(tab.Flags, "agent") {
		t.Errorf("browser_tabs calls the page new_page opened the person's: %+v", tab)
	}
	if res := call(t, s, "browser_close", map[string]any{"tab": tab.ID}); res.IsError() {
		t.Errorf("browser_close of the tab new_page opened: %s", res.Text)
	}
}

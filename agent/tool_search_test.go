package agent

import (
	"fmt"
	"slices"
	"testing"

	"github.com/browseragent/browseragent/tools"
)

// TestBoundToolsKeepsBuiltins: whatever the bounds, builtin and browser
// tools are sent; MCP tools fill the rest in order.
func TestBoundToolsKeepsBuiltins(t *testing.T) {
	defs := []tools.ToolDef{webFetchDef(), {Name: "browser_open", Source: tools.SourceBrowser, Description: "Open a page."}}
	for i := range 10 {
		defs = append(defs, tools.ToolDef{Name: fmt.Sprintf("mcp__s__t%d", i), Source: tools.SourceMCP, Server: "s", Description: "An MCP tool."})
	}
	sh := &toolShelf{}
	got := sh.bound(defs, ToolBounds{MaxTools: 5})
	var names []string
	for _, d := range got {
		names = append(names, d.Name)
	}
	want := []string{"web_fetch", "browser_open", "mcp__s__t0", "mcp__s__t1", ToolSearchName}
	if !slices.Equal(want, names) {
		t.Errorf("offered %v, want %v", names, want)
	}
	if n := len(sh.Deferred()); n != 8 {
		t.Errorf("%d deferred, want 8", n)
	}
	if all := sh.bound(defs, ToolBounds{}); len(all) != len(defs) || len(sh.Deferred()) != 0 {
		t.Errorf("within the default bounds: %d offered, %d deferred; want all, none", len(all), len(sh.Deferred()))
	}
}

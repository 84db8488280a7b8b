package serve

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/tools"
)

// closedWorld are the tools that touch only browseragent's own state (its
// tab list, the mode), not the web.
var closedWorld = map[string]bool{
	"browser_tabs": true, "browser_select_tab": true, "browser_close": true,
	"browser_connect": true, "browser_disconnect": true,
}

// annotations are a tool's MCP hints, derived from what the guard says the
// tool does before any URL is known: reads are read-only; opening a tab
// adds without destroying; navigating, closing and every write may destroy
// what was there (a submitted form, a person's page left behind).
func annotations(p *guard.Policy, d tools.ToolDef) *mcp.ToolAnnotations {
	eff := p.Effect(guard.Call{Tool: d.Name, Name: d.RawName})
	open := !closedWorld[d.Name]
	a := &mcp.ToolAnnotations{OpenWorldHint: &open}
	switch eff {
	case guard.Read:
		a.ReadOnlyHint = true
	case guard.Open:
		no := false
		a.DestructiveHint = &no
	default:
		yes := true
		a.DestructiveHint = &yes
	}
	return a
}

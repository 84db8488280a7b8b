package serve

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/tools"
)

// annotations are a tool's MCP hints, read from its catalogue entry: the one
// place that says what a tool does, so the hints a host sees are the facts
// the guard judges by.
func annotations(d tools.ToolDef) *mcp.ToolAnnotations {
	c := tools.EntryOf(d).Annotations
	a := &mcp.ToolAnnotations{ReadOnlyHint: c.ReadOnly, IdempotentHint: c.Idempotent, OpenWorldHint: &c.OpenWorld}
	if !c.ReadOnly {
		a.DestructiveHint = &c.Destructive
	}
	return a
}

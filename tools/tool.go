package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/media"
)

// Source says where a tool comes from.
type Source int

const (
	SourceBuiltin Source = iota // web_fetch
	SourceBrowser               // native browser_* tools
	SourceMCP                   // mcp__server__tool
)

func (s Source) String() string {
	switch s {
	case SourceBuiltin:
		return "builtin"
	case SourceBrowser:
		return "browser"
	case SourceMCP:
		return "mcp"
	}
	return "unknown"
}

// ToolDef describes one tool as the LLM sees it.
type ToolDef struct {
	Name        string         // legal LLM name: web_fetch, browser_click, mcp__server__tool
	Description string         // short, for the model
	Parameters  map[string]any // JSON Schema, always type object with properties
	Source      Source
	Server      string // MCP server name; "" for builtin and browser tools
	RawName     string // the tool's own name at its source (MCP name before legalising)

	// MCP annotations, kept for the guard; nil when the server said nothing.
	ReadOnlyHint    *bool
	DestructiveHint *bool

	// Entry is the catalogue's description of the tool, carried with it
	// by its provider: a native tool's from its registration (browser's
	// addTool, web_fetch), an MCP tool's from catalog.Describe. The
	// registry refuses to run a builtin or browser tool without one.
	Entry catalog.Entry

	// Timeout is the limit its source declares for one call (an MCP
	// server's callTimeout, web_fetch's configured timeout); 0 leaves it
	// to the catalogue entry.
	Timeout time.Duration
}

// ToolResult is what a tool returned. IsError marks a failure the model can
// act on (a 404, a bad selector, a guard denial); Go errors are reserved for
// broken infrastructure.
type ToolResult struct {
	Text    string
	Images  []media.Image
	IsError bool
	Path    string // a file the tool wrote (a screenshot), if any
	// Tab is the browser tab a native browser tool acted on or opened
	// (its short id, t3); "" for other tools. It stays when the result's
	// content is withheld, so the tab can still be closed.
	Tab string
	// Note is guidance from browseragent itself (not from the page), such
	// as "this is a JavaScript shell: use the browser". For the LLM it stays
	// outside the untrusted block that wraps Text.
	Note string
	// Display is the result as a person reads it (the shell, mcp call,
	// run's progress lines), where it differs from what the model reads:
	// plain sentences that name the shell's commands (/tabs) where Text
	// names tools (browser_tabs) or tells the model what to ask the
	// person. "" means Text and Note read as well for both; ForPerson
	// picks.
	Display string
	// Data is the tool's typed outcome for Go callers that need more than
	// words (the fetch subcommand prints fetch's own JSON): web_fetch sets
	// a *Fetched; nil for other tools. The model never sees it.
	Data any
	// Secret marks a call that typed into a password, one-time-code or
	// card field: its typed value is redacted in the audit log and the
	// approval box, and the shell keeps it out of its history.
	Secret bool
	// Withheld is set by the result screen (RegistryOptions.Screen) when it
	// replaced the result because its content came from somewhere a deny
	// rule names (the tab landed there): Registry.Call then answers it as a
	// refusal, guard.ErrDenied with Text as the reason, so no caller takes
	// it for a failure to try again.
	Withheld bool
	// ours marks a result browseragent wrote itself (a timeout), which is
	// not wrapped as untrusted.
	ours bool
}

// Full returns Text followed by Note, for people and scripts.
func (r *ToolResult) Full() string {
	switch {
	case r.Note == "":
		return r.Text
	case r.Text == "":
		return r.Note
	}
	return r.Text + "\n\n" + r.Note
}

// ForPerson is the result as the person at the terminal reads it: Display,
// else Full; a failure's Go wordings ("context canceled", "dial tcp …")
// made plain sentences (a page's own text is left as it is).
func (r *ToolResult) ForPerson() string {
	s := r.Display
	if s == "" {
		s = r.Full()
	}
	if r.IsError {
		s = words.Text(s)
	}
	return s
}

// Origin says who asked for a tool call; the guard treats them alike, but
// results are only capped for the LLM.
type Origin int

const (
	OriginAgent   Origin = iota // the LLM, through the agent loop
	OriginCommand               // a slash command typed in the shell
	OriginScript                // a non-interactive subcommand
	OriginMCP                   // an MCP client of `browseragent mcp serve`
)

func (o Origin) String() string {
	switch o {
	case OriginAgent:
		return "agent"
	case OriginCommand:
		return "command"
	case OriginScript:
		return "script"
	case OriginMCP:
		return "mcp client"
	}
	return "unknown"
}

// Caller is the one tool-call path: every tool call, from any entry point,
// goes through Call. *Registry implements it.
type Caller interface {
	Tools() []ToolDef
	Call(ctx context.Context, name string, args json.RawMessage, origin Origin) (*ToolResult, error)
}

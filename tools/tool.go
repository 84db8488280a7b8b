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

// Outcome says how a tool call ended: the one statement of it, instead of
// flags to combine.
type Outcome int

const (
	// OK: the tool ran and did what it was asked.
	OK Outcome = iota
	// Failed: the tool ran, or tried to, and failed in a way the model can
	// act on (a 404, a stale ref, a timeout); Failure says how.
	Failed
	// Refused: the guard or the person refused the call before it ran
	// (Registry.Call also returns guard.ErrDenied); Text is the reason.
	Refused
	// Withheld: the call ran, but what it returned came from somewhere a
	// deny rule names, so the result screen replaced it with the reason
	// (Registry.Call also returns guard.ErrDenied).
	Withheld
)

// String returns "ok", "failed", "refused" or "withheld".
func (o Outcome) String() string {
	switch o {
	case OK:
		return "ok"
	case Failed:
		return "failed"
	case Refused:
		return "refused"
	case Withheld:
		return "withheld"
	}
	return "unknown"
}

// Failure says how a Failed call failed.
type Failure int

const (
	// NoFailure: the call did not fail.
	NoFailure Failure = iota
	// ToolError: the tool or the page said no (a 404, a bad selector, a
	// stale ref, a script's exception).
	ToolError
	// TimedOut: the call ran out of its one timeout (or web_fetch out of
	// its configured limit).
	TimedOut
)

// String returns "", "tool error" or "timed out".
func (f Failure) String() string {
	switch f {
	case ToolError:
		return "tool error"
	case TimedOut:
		return "timed out"
	}
	return ""
}

// ToolResult is what a tool returned. Outcome says how the call ended; a
// failure the model can act on (a 404, a bad selector, a guard denial) is
// a result, not a Go error: Go errors are reserved for broken
// infrastructure.
type ToolResult struct {
	Outcome Outcome
	// Failure says how a Failed call failed (ToolError when the tool said
	// no more); NoFailure otherwise.
	Failure Failure
	Text    string
	Images  []media.Image
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
	// ours marks a result browseragent wrote itself (a timeout), which is
	// not wrapped as untrusted.
	ours bool
}

// IsError reports whether the call did not succeed: it failed, was
// refused, or its result was withheld.
func (r *ToolResult) IsError() bool { return r.Outcome != OK }

// Fail marks r as a tool's own failure (ToolError) unless it says more
// already; it returns r.
func (r *ToolResult) Fail() *ToolResult {
	r.Outcome = Failed
	if r.Failure == NoFailure {
		r.Failure = ToolError
	}
	return r
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
	if r.IsError() {
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

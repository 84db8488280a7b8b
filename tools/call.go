package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/guard"
)

// ResolvedCall is one tool call as the registry resolved it, once: its
// arguments decoded, its catalogue entry, the tab it acts on (by CDP target
// id), the address it goes to as the browser will load it, the local files
// it touches. The guard judges this value and the tool provider receives
// the same value; nothing below the registry decodes or resolves again.
type ResolvedCall struct {
	// Def is the tool as offered.
	Def ToolDef
	// Entry is the catalogue's description of the tool.
	Entry catalog.Entry
	// Args are the decoded arguments, as the tool receives them: the URL
	// parameter already fixed up (guard.LoadURL), file parameters resolved
	// to absolute paths, the tab parameter filled in when the call named
	// none (chrome-devtools-mcp's pageId), so the tool acts on what was
	// judged.
	Args map[string]any
	// Raw is Args encoded: what is sent to the tool.
	Raw json.RawMessage
	// Page is the tab the call acts on and its live URL; zero when the
	// call acts on no tab.
	Page Page
	// URL is where the call goes (a navigation's target, web_fetch's
	// address), as it will load; "" for none.
	URL string
	// Files are the local files the call reads or writes, resolved.
	Files []guard.File
	// FrameURL is the live URL of the frame (of Page.Frames) the guard
	// judged the call by, when stricter than the page itself; "" means the
	// page (guard.Decision.Frame).
	FrameURL string
	// Foreign says the result can carry content of pages other than the
	// one judged (a snapshot after the input, frames, network bodies): a
	// result filter should check where what it returns came from.
	Foreign bool
	// Origin is who asked for the call.
	Origin Origin
	// Client is the client the call came from when several share the
	// browser (WithClient): its grants, its tabs, its name in the audit
	// log. A tab list leaves out the tabs Client.Others says another
	// client opened. Nil for the shell's and the agent's own calls.
	Client *Client

	// judged is set by Registry.Call once the guard (and the person, when
	// asked) allowed the call, just before the provider runs it.
	judged bool
	// judge is the registry's guard, which ScreenResult asks; screened
	// holds its answers about this call's result so far.
	judge    Guard
	screenMu sync.Mutex
	screened map[guard.Frame]*guard.Decision
}

// ErrNotJudged is returned by a provider given a call the registry did not
// judge: nothing drives a page or a server without the guard.
var ErrNotJudged = errors.New("tool call did not come through the registry (tools.Registry.Call): not run")

// Judged returns nil when the registry judged and allowed c, else
// ErrNotJudged. A provider checks it before it acts.
func (c *ResolvedCall) Judged() error {
	if c == nil || !c.judged {
		return ErrNotJudged
	}
	return nil
}

// ScreenResult is the one question about the documents the call's result
// shows (Guard.Screen): for each of from, the decision that denies showing
// it, or nil. Only what this call's result was not yet asked about is
// asked, in one question; earlier answers are reused. So a provider that
// judged the frames its result outlines while it ran (a snapshot taken
// after a click: browser.Options.FrameWithheld), naming the top document
// with them, leaves the result screen nothing to ask again about the same
// documents: the result is one question however many parts ask.
func (c *ResolvedCall) ScreenResult(from []guard.Frame) []*guard.Decision {
	c.screenMu.Lock()
	defer c.screenMu.Unlock()
	var ask []guard.Frame
	for _, f := range from {
		if _, ok := c.screened[f]; !ok && f.URL != "" && !slices.Contains(ask, f) {
			ask = append(ask, f)
		}
	}
	if len(ask) > 0 {
		if c.screened == nil {
			c.screened = map[guard.Frame]*guard.Decision{}
		}
		for i, d := range c.judge.Screen(ask) {
			c.screened[ask[i]] = d
		}
	}
	out := make([]*guard.Decision, len(from))
	for i, f := range from {
		out[i] = c.screened[f]
	}
	return out
}

// GuardCall is the value the guard judges.
func (c *ResolvedCall) GuardCall() guard.Call {
	e := c.Entry
	gc := guard.Call{Tool: c.Def.Name, Server: c.Def.Server, Name: c.Def.RawName, Args: c.Args,
		Entry: &e, ReadOnlyHint: c.Def.ReadOnlyHint, DestructiveHint: c.Def.DestructiveHint,
		PageURL: c.Page.URL, PageAddr: c.Page.Addr, Frames: c.Page.Frames, TargetURL: c.URL, TabID: c.Page.TabID, Files: c.Files}
	if c.Files == nil {
		gc.Files = []guard.File{}
	}
	return gc
}

// judgedURL is the address the call was judged by: the frame the guard
// was strictest about (FrameURL), else the page's.
func (c *ResolvedCall) judgedURL() string { return cmp.Or(c.FrameURL, c.Page.URL) }

// EntryOf is the catalogue's description of def: the entry it carries
// (with the limit its source declares, if any), else derived from an MCP
// server's annotations and schema, else unknown (the most dangerous kind).
func EntryOf(def ToolDef) catalog.Entry {
	if def.Entry.Known() {
		e := def.Entry
		if def.Timeout > 0 {
			e.Timeout = def.Timeout
		}
		return e
	}
	raw := cmp.Or(def.RawName, def.Name)
	if def.Source == SourceMCP {
		e := catalog.Describe(def.Server, raw, catalog.Hints{ReadOnly: def.ReadOnlyHint,
			Destructive: def.DestructiveHint}, def.Parameters)
		if def.Timeout > 0 {
			e.Timeout = def.Timeout // the server's config declares it
		}
		return e
	}
	return catalog.Describe("", def.Name, catalog.Hints{}, nil)
}

// prepare decodes args and fixes the parts of them that do not depend on
// the live browser: the address as it will load, the files as absolute
// resolved paths; it notes the client ctx carries.
func prepare(ctx context.Context, def ToolDef, args json.RawMessage, origin Origin) (*ResolvedCall, error) {
	if def.Source != SourceMCP && !def.Entry.Known() {
		return nil, fmt.Errorf("%w: %s tool %s has no catalogue entry (catalog/tools.go)", errNoEntry, def.Source, def.Name)
	}
	m, err := parseArgs(args)
	if err != nil {
		return nil, err
	}
	c := &ResolvedCall{Def: def, Entry: EntryOf(def), Args: m, Origin: origin, Client: clientFrom(ctx)}
	e := c.Entry
	if u, ok := m[e.URL].(string); ok && e.URL != "" && !e.IsHistoryMove(m) {
		if e.Browser {
			u = guard.LoadURL(u)
			m[e.URL] = u
		}
		c.URL = u
	}
	fileDefaults(m, e, def.Parameters)
	c.Files = guard.FilesOf(e, m, "")
	setPaths(m, c.Files)
	c.Foreign = e.ForeignResult(m)
	return c, c.Encode()
}

// fileDefaults puts the default its schema declares into each file
// parameter the call left out: the tool would touch that file all the
// same (browser_download's folder), so it is judged, and the tool gets the
// path that was judged.
func fileDefaults(m map[string]any, e catalog.Entry, schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	for _, f := range e.Files {
		prop, _ := props[f.Param].(map[string]any)
		if v, ok := prop["default"].(string); ok && v != "" {
			if cur, _ := m[f.Param].(string); strings.TrimSpace(cur) == "" {
				m[f.Param] = v
			}
		}
	}
}

// setPaths puts the resolved paths back into their arguments, so the tool
// touches the files that were judged. files are in argument order
// (guard.FilesOf), blank entries of a list skipped.
func setPaths(m map[string]any, files []guard.File) {
	next := map[string]int{}
	for _, f := range files {
		switch v := m[f.Param].(type) {
		case string:
			m[f.Param] = f.Path
		case []any:
			for i := next[f.Param]; i < len(v); i++ {
				if s, ok := v[i].(string); ok && strings.TrimSpace(s) != "" {
					v[i], next[f.Param] = f.Path, i+1
					break
				}
			}
		}
	}
}

// Encode sets Raw from Args.
func (c *ResolvedCall) Encode() error {
	b, err := json.Marshal(c.Args)
	if err != nil {
		return fmt.Errorf("encode arguments: %w", err)
	}
	c.Raw = b
	return nil
}

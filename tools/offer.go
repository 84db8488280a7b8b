package tools

import (
	"context"
	"slices"
	"strings"

	"github.com/browseragent/browseragent/catalog"
)

// Offer is the one rule for which of the registered tools a model is
// offered: what the agent sends, what the shell's /tools lists and what a
// model's call may name (Registry.Call refuses any other, see WithOffer).
// chrome-devtools-mcp's developer tools are left out unless devTools; a
// chrome-devtools-mcp tool is left out when the native tool doing all it
// does (its catalogue Twin) is offered — except the snapshot that makes
// the uids its other tools take: a uid-taking tool is never offered
// without it, and is left out when the server has none. Tools of a server
// that is not ready are not registered at all, so they are in no offer.
// defs is not modified; the order is kept.
func Offer(defs []ToolDef, devTools bool) []ToolDef {
	names := make(map[string]bool, len(defs))
	for _, d := range defs {
		names[d.Name] = true
	}
	kept := make([]ToolDef, 0, len(defs))
	uidSource := map[string]bool{} // servers with a uid source
	uidTakers := map[string]bool{}
	for _, d := range defs {
		e := EntryOf(d)
		if e.Kind == catalog.DevTools {
			if e.DevOnly && !devTools {
				continue
			}
			if e.MakesUIDs {
				uidSource[d.Server] = true
				kept = append(kept, d) // judged below, once it is known what needs it
				continue
			}
			if e.Twin != "" && names[e.Twin] {
				continue
			}
			if takesUIDs(d.Parameters) {
				uidTakers[d.Server] = true
			}
		}
		kept = append(kept, d)
	}
	out := kept[:0:0]
	for _, d := range kept {
		e := EntryOf(d)
		switch {
		case e.Kind != catalog.DevTools:
		case e.MakesUIDs:
			if !uidTakers[d.Server] && e.Twin != "" && names[e.Twin] {
				continue // nothing offered needs its uids; the native twin reads the page
			}
		case takesUIDs(d.Parameters):
			if _, ok := uidSource[d.Server]; !ok {
				continue // no way to get the uids it takes
			}
		}
		out = append(out, d)
	}
	return out
}

// takesUIDs reports whether a schema has a parameter, at any depth, that is
// an element uid of chrome-devtools-mcp's snapshot (uid, from_uid, to_uid;
// fill_form's elements[].uid).
func takesUIDs(schema any) bool {
	switch s := schema.(type) {
	case map[string]any:
		if props, ok := s["properties"].(map[string]any); ok {
			for name, p := range props {
				if name == "uid" || strings.HasSuffix(name, "_uid") || takesUIDs(p) {
					return true
				}
			}
		}
		if items, ok := s["items"]; ok && takesUIDs(items) {
			return true
		}
	}
	return false
}

type offerKey struct{}

// WithOffer returns ctx carrying the names of the tools a model was
// offered for the step it calls from: Registry.Call refuses a call of the
// agent's or an MCP client's to any other tool as unknown, so a tool left
// out of a step (trimmed, deferred, not yet ready) does not run when it is
// named anyway.
func WithOffer(ctx context.Context, names []string) context.Context {
	return context.WithValue(ctx, offerKey{}, slices.Clone(names))
}

// offered reports whether name may be called from ctx: true when ctx
// carries no offer.
func offered(ctx context.Context, name string) bool {
	names, ok := ctx.Value(offerKey{}).([]string)
	return !ok || slices.Contains(names, name)
}

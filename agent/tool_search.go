package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/browseragent/browseragent/tools"
)

// Bounds on the tools sent with one request. OpenAI refuses more than 128
// tools; past a few tens of kilobytes of definitions every request pays
// for tools the task never needs (a server with 1 054 tools sent 506 KB).
const (
	MaxRequestTools   = 128
	MaxToolDefBytes   = 32_000
	maxSearchResults  = 8
	maxChosenTools    = 32
	ToolSearchName    = "tool_search"
	toolSearchSummary = "Search the tools that are not listed here (%d more, from MCP servers) by words of their name or description; the matching tools are offered from the next step on."
)

// ToolBounds limits the tools of one request; zero fields mean the
// defaults above.
type ToolBounds struct {
	MaxTools int
	MaxBytes int
}

func (b ToolBounds) withDefaults() ToolBounds {
	if b.MaxTools <= 0 {
		b.MaxTools = MaxRequestTools
	}
	if b.MaxBytes <= 0 {
		b.MaxBytes = MaxToolDefBytes
	}
	return b
}

// toolShelf keeps, for one agent, the tools tool_search chose (offered on
// every later step, newest first) and which tools the last request
// deferred. It is safe for concurrent use: the shell's /tools reads it.
type toolShelf struct {
	mu       sync.Mutex
	chosen   []string // most recent first
	deferred []tools.ToolDef
}

// bound splits defs (already compacted) into those offered with the next
// request and those deferred behind tool_search. Builtin and browser
// tools always stay; then the tools tool_search chose; then MCP tools in
// order while the count and the bytes allow. When any is deferred,
// tool_search is offered too, and its own room is kept.
func (sh *toolShelf) bound(defs []tools.ToolDef, b ToolBounds) []tools.ToolDef {
	b = b.withDefaults()
	sh.mu.Lock()
	chosen := slices.Clone(sh.chosen)
	sh.mu.Unlock()
	if len(defs) <= b.MaxTools && ToolDefBytes(defs) <= b.MaxBytes {
		sh.setDeferred(nil)
		return defs
	}
	rank := func(d tools.ToolDef) int {
		switch {
		case d.Source != tools.SourceMCP:
			return 0
		case slices.Contains(chosen, d.Name):
			return 1
		}
		return 2
	}
	order := slices.Clone(defs)
	sort.SliceStable(order, func(i, j int) bool {
		ri, rj := rank(order[i]), rank(order[j])
		if ri == 1 && rj == 1 {
			return slices.Index(chosen, order[i].Name) < slices.Index(chosen, order[j].Name)
		}
		return ri < rj
	})
	search := toolSearchDef(0)
	room := b.MaxBytes - toolBytes(search) - 2
	var offered, deferred []tools.ToolDef
	used, full := 0, false
	for _, d := range order {
		size := toolBytes(d) + 1
		// In order, until the first that does not fit: a smaller tool
		// further on does not jump the queue.
		full = full || len(offered)+1 >= b.MaxTools || used+size > room
		if rank(d) == 0 || !full {
			offered = append(offered, d)
			used += size
			continue
		}
		deferred = append(deferred, d)
	}
	sh.setDeferred(deferred)
	if len(deferred) == 0 {
		return offered
	}
	return append(offered, toolSearchDef(len(deferred)))
}

func (sh *toolShelf) setDeferred(d []tools.ToolDef) {
	sh.mu.Lock()
	sh.deferred = d
	sh.mu.Unlock()
}

// Deferred are the tools the last request left behind tool_search.
func (sh *toolShelf) Deferred() []tools.ToolDef {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return slices.Clone(sh.deferred)
}

// choose puts names first among the chosen tools, keeping at most
// maxChosenTools.
func (sh *toolShelf) choose(names []string) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for i := len(names) - 1; i >= 0; i-- {
		sh.chosen = slices.DeleteFunc(sh.chosen, func(n string) bool { return n == names[i] })
		sh.chosen = slices.Insert(sh.chosen, 0, names[i])
	}
	if len(sh.chosen) > maxChosenTools {
		sh.chosen = sh.chosen[:maxChosenTools]
	}
}

func (sh *toolShelf) reset() {
	sh.mu.Lock()
	sh.chosen, sh.deferred = nil, nil
	sh.mu.Unlock()
}

// search answers a tool_search call: the deferred tools whose name or
// description holds the most of the query's words, best first, and
// chooses them for the next step.
func (sh *toolShelf) search(args string) *tools.ToolResult {
	var in struct {
		Query string   `json:"query"`
		Names []string `json:"names"`
	}
	if err := json.Unmarshal([]byte(first(strings.TrimSpace(args), "{}")), &in); err != nil {
		return &tools.ToolResult{Outcome: tools.Failed, Failure: tools.ToolError, Text: "tool_search takes {\"query\": \"words\"}: the arguments are not that JSON object"}
	}
	deferred := sh.Deferred()
	type hit struct {
		d     tools.ToolDef
		score int
	}
	var hits []hit
	words := strings.Fields(strings.ToLower(strings.NewReplacer("_", " ", "-", " ").Replace(in.Query)))
	for _, d := range deferred {
		if slices.Contains(in.Names, d.Name) {
			hits = append(hits, hit{d, 1 << 20})
			continue
		}
		hay := strings.ToLower(strings.NewReplacer("_", " ", "-", " ").Replace(d.Name + " " + d.Description))
		score := 0
		for _, w := range words {
			if strings.Contains(hay, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{d, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if len(hits) > maxSearchResults {
		hits = hits[:maxSearchResults]
	}
	if len(hits) == 0 {
		return &tools.ToolResult{Text: fmt.Sprintf("No tool matches %q among the %d not listed. Try other words.", in.Query, len(deferred))}
	}
	var b strings.Builder
	names := make([]string, 0, len(hits))
	fmt.Fprintf(&b, "%d tool(s) found; they are offered from your next step on:\n", len(hits))
	for _, h := range hits {
		names = append(names, h.d.Name)
		fmt.Fprintf(&b, "- %s: %s\n", h.d.Name, tighten(h.d.Description, 160))
	}
	sh.choose(names)
	return &tools.ToolResult{Text: strings.TrimRight(b.String(), "\n")}
}

func toolSearchDef(n int) tools.ToolDef {
	return tools.ToolDef{
		Name: ToolSearchName, Source: tools.SourceBuiltin,
		Description: fmt.Sprintf(toolSearchSummary, n),
		Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"query": map[string]any{"type": "string", "description": "words to look for, e.g. \"github issue create\""},
			"names": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "exact tool names to offer"},
		}, "required": []any{"query"}},
	}
}

func toolBytes(d tools.ToolDef) int { return ToolDefBytes([]tools.ToolDef{d}) - 2 }

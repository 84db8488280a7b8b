package agent

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/tools"
)

// Caps for tool text sent with every request. Long descriptions are cut at
// a sentence end within the cap.
// An MCP server's text is cut shorter than ours, which is written to size.
const (
	maxToolDescChars     = 320
	maxParamDescChars    = 160
	maxMCPToolDescChars  = 160
	maxMCPParamDescChars = 100
)

// ToolEconomy says which tools to leave out when offering tools to the model.
type ToolEconomy struct {
	// DevTools keeps chrome-devtools-mcp's developer tools (tracing, heap,
	// lighthouse, emulation, console, CSS, network requests).
	DevTools bool
}

// CompactTools returns the tools to offer the model: tools.Offer's choice
// (developer-only and duplicated chrome-devtools-mcp tools left out, never
// a uid-taking tool without its uid source), descriptions tightened and
// schema noise removed. The description of a browser tool's tab parameter (the
// catalogue's Tab: "tab" of the native tools, "pageId" of chrome-devtools-
// mcp's) is left out: the system prompt says once what it is, instead of
// every tool saying it again. Every tool kept keeps every parameter, its
// type, enum and required list. defs is not modified.
func CompactTools(defs []tools.ToolDef, e ToolEconomy) []tools.ToolDef {
	kept := tools.Offer(defs, e.DevTools)
	out := make([]tools.ToolDef, 0, len(kept))
	for _, d := range kept {
		ent := tools.EntryOf(d)
		descCap, paramCap := maxToolDescChars, maxParamDescChars
		if d.Source == tools.SourceMCP {
			descCap, paramCap = maxMCPToolDescChars, maxMCPParamDescChars
		}
		d.Description = tighten(d.Description, descCap)
		if p, ok := compactSchema(d.Parameters, paramCap).(map[string]any); ok {
			if ent.Tab != "" && (ent.Kind == catalog.DevTools || d.Source == tools.SourceBrowser) {
				p = withoutParamDescription(p, ent.Tab)
			}
			d.Parameters = p
		}
		out = append(out, d)
	}
	return out
}

// withoutParamDescription drops the description of parameter name from
// schema (a copy that compactSchema made, so it is edited in place).
func withoutParamDescription(schema map[string]any, name string) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	if p, ok := props[name].(map[string]any); ok {
		delete(p, "description")
	}
	return schema
}

// ToolDefBytes is the size in bytes of the tool definitions as sent in one
// Chat Completions request (the "tools" array).
func ToolDefBytes(defs []tools.ToolDef) int {
	b, err := json.Marshal(openAITools(defs))
	if err != nil {
		return 0
	}
	return len(b)
}

func openAITools(defs []tools.ToolDef) []openai.Tool {
	toolList := make([]openai.Tool, 0, len(defs))
	for _, d := range defs {
		params := d.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		toolList = append(toolList, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        d.Name,
				Description: d.Description,
				Parameters:  params,
			},
		})
	}
	return toolList
}

// noiseKeys carry no meaning for a model calling the tool.
var noiseKeys = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "additionalProperties": true,
	"title": true, "examples": true, "markdownDescription": true,
}

// jsSafeIntBound is the bound zod emits for every integer; it says nothing.
const jsSafeIntBound = 9007199254740991

// compactSchema copies a JSON schema without noise keys and with tightened
// descriptions.
func compactSchema(v any, descCap int) any {
	switch s := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(s))
		for k, val := range s {
			if noiseKeys[k] || isSafeIntBound(k, val) || k == "default" && val == false {
				continue // an omitted boolean is false everywhere
			}
			switch k {
			case "description":
				if str, ok := val.(string); ok {
					val = tighten(rephrase(dropDefaultFalse(str, s)), descCap)
					if val == "" {
						continue
					}
				}
			case "properties":
				// property names are data here, not schema keywords
				if props, ok := val.(map[string]any); ok {
					cp := make(map[string]any, len(props))
					for name, p := range props {
						cp[name] = compactSchema(p, descCap)
					}
					val = cp
					out[k] = val
					continue
				}
			}
			out[k] = compactSchema(val, descCap)
		}
		return out
	case []any:
		out := make([]any, len(s))
		for i, x := range s {
			out[i] = compactSchema(x, descCap)
		}
		return out
	}
	return v
}

func isSafeIntBound(key string, val any) bool {
	if key != "maximum" && key != "minimum" {
		return false
	}
	f, ok := val.(float64)
	if !ok {
		if i, isInt := val.(int); isInt {
			f, ok = float64(i), true
		}
	}
	return ok && (f == jsSafeIntBound || f == -jsSafeIntBound)
}

var defaultFalse = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\s*Defaults? (is|to) false\.?`)
})

// wordy are long phrasings common in MCP tool schemas and the short ones
// that say the same.
var wordy = sync.OnceValue(func() []rewording {
	return []rewording{
		{regexp.MustCompile(`(?i)^whether to (\w)`), "$1"},
		{regexp.MustCompile(`(?i)^set to true to (\w)`), "$1"},
		{regexp.MustCompile(`(?i)^if set to true,? `), "If true, "},
		{regexp.MustCompile(`(?i)the uid of an element on the page from the page content snapshot`), "Element uid from the snapshot"},
		{regexp.MustCompile(`(?i)the absolute path, or a path relative to the current working directory, to save the (\w+) to instead of attaching it to the response`), "File to save the $1 to instead of returning it"},
		{regexp.MustCompile(`(?i)the absolute (file )?path, or a (file )?path relative to the current working directory,`), "A path"},
		{regexp.MustCompile(`(?i)the absolute or relative path to`), "Path to"},
		{regexp.MustCompile(`(?i)\bin order to\b`), "to"},
		// chrome-devtools-mcp's, repeated in most of its tools
		{regexp.MustCompile(`(?i)^include a snapshot in the response\.?$`), "Also return a snapshot"},
	}
})

// rewording replaces what re matches with with.
type rewording struct {
	re   *regexp.Regexp
	with string
}

// rephrase applies the wordy table, keeping the first letter's case.
func rephrase(s string) string {
	for _, w := range wordy() {
		s = w.re.ReplaceAllString(s, w.with)
	}
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// dropDefaultFalse removes "Default is false." from a boolean's description:
// an omitted boolean is false everywhere.
func dropDefaultFalse(desc string, schema map[string]any) string {
	if schema["type"] != "boolean" {
		return desc
	}
	return strings.TrimSpace(defaultFalse().ReplaceAllString(desc, ""))
}

// tighten collapses whitespace and cuts text to at most max characters at
// the last sentence end, or word end, before the cap.
func tighten(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= limit {
		return s
	}
	cut := s[:limit]
	if i := strings.LastIndex(cut, ". "); i > limit/3 {
		return cut[:i+1]
	}
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return cut + "…"
}

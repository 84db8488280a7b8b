package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/fetch"
)

// WebFetchName is the builtin HTTP fetch tool's name.
const WebFetchName = "web_fetch"

// WebFetch is the builtin web_fetch tool: plain HTTP plus main-content
// extraction, the fast path for static and server-rendered pages.
type WebFetch struct {
	client *fetch.Client // one connection pool for every call
	def    ToolDef
}

// NewWebFetch returns the web_fetch provider; opts nil means defaults.
// Each call extracts with its own arguments (select, links), never with
// opts.Extract. Its calls are given opts.Timeout (fetch.DefaultTimeout
// when zero), the limit its errors name, as their one timeout.
func NewWebFetch(opts *fetch.Options) *WebFetch {
	def := webFetchTool
	def.Timeout = fetch.DefaultTimeout
	if opts != nil && opts.Timeout > 0 {
		def.Timeout = opts.Timeout
	}
	return &WebFetch{client: fetch.NewClient(opts), def: def}
}

// Close releases the idle connections.
func (w *WebFetch) Close() { w.client.Close() }

var webFetchTool = ToolDef{
	Name:        WebFetchName,
	RawName:     WebFetchName,
	Source:      SourceBuiltin,
	Description: "Fetch a URL over plain HTTP (no JavaScript) and return its main content as markdown. Fast; use it first for articles, docs and server-rendered pages. If it reports a JavaScript shell, use the browser tools instead.",
	Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"url":    map[string]any{"type": "string", "description": "absolute http(s) URL"},
			"select": map[string]any{"type": "string", "description": "CSS selector: return only the matching nodes"},
			"format": map[string]any{"type": "string", "enum": []string{"markdown", "text"}, "description": "default markdown"},
			"links":  map[string]any{"type": "boolean", "description": "also list the page's absolute links"},
		},
		"required": []string{"url"},
	},
	Entry: catalog.MustNative(WebFetchName),
}

// Tools implements ToolProvider.
func (w *WebFetch) Tools() []ToolDef { return []ToolDef{w.def} }

type webFetchArgs struct {
	URL    string `json:"url"`
	Select string `json:"select"`
	Format string `json:"format"`
	Links  bool   `json:"links"`
}

// Fetched is web_fetch's typed outcome, its results' Data: fetch's own
// Result and error as the client returned them (both on an HTTP error
// status), for Go callers that print fetch's output themselves (the fetch
// subcommand and its batches).
type Fetched struct {
	Result *extract.Result
	Err    error
}

// Call implements ToolProvider. Failures the model can fix (404, a bad
// selector, an unreachable host) come back as error results. Data is a
// *Fetched.
func (w *WebFetch) Call(ctx context.Context, c *ResolvedCall) (*ToolResult, error) {
	if err := c.Judged(); err != nil {
		return nil, err
	}
	var a webFetchArgs
	if err := json.Unmarshal(c.Raw, &a); err != nil || a.URL == "" {
		return (&ToolResult{ours: true, Text: `web_fetch needs {"url": "https://..."}`}).Fail(), nil
	}
	format := extract.FormatMarkdown
	if a.Format == "text" {
		format = extract.FormatText
	}
	res, err := w.client.FetchWith(ctx, a.URL, &extract.Options{Select: a.Select, Links: a.Links})
	data := &Fetched{Result: res, Err: err}
	if err != nil {
		var fe *extract.Error
		if errors.As(err, &fe) || ctx.Err() == nil {
			out := &ToolResult{Outcome: Failed, Failure: ToolError, Text: err.Error(), Data: data}
			if errors.Is(err, fetch.ErrTimeout) {
				out.Failure = TimedOut
			}
			return out, nil
		}
		return nil, err
	}
	body, err := res.Render(format)
	if err != nil {
		return (&ToolResult{Text: err.Error(), Data: data}).Fail(), nil
	}
	var b strings.Builder
	if res.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n", res.Title)
	}
	fmt.Fprintf(&b, "URL: %s\n\n%s", res.FinalURL, body)
	if a.Links && format != extract.FormatJSON {
		b.WriteString("\n\nLinks:\n" + res.LinksText(format))
	}
	out := &ToolResult{Text: b.String(), Note: res.Hint, Data: data}
	if res.JSShell {
		const shell = "This page is a JavaScript app shell: plain HTTP does not see its content. "
		out.Note = strings.TrimSpace(shell + "Open it in the browser (browser_open, then browser_snapshot). " + res.Hint)
		out.Display = out.Text + "\n\n" + strings.TrimSpace(shell+"Open it in the browser: /open "+res.FinalURL+", then /snapshot. "+res.Hint)
	}
	return out, nil
}

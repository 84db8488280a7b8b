package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/chromedp/cdproto/page"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/media"
)

// Tool describes one native browser tool for the registry to offer an LLM.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any // JSON Schema, type object
}

// Result is what a tool returned. IsError marks a failure the model can act
// on (a stale ref, a page that did not load); Go errors from Call mean the
// browser itself is broken or missing.
type Result struct {
	Text    string
	Images  []media.Image
	Path    string // a file the tool saved (a screenshot)
	IsError bool
	// Tab is the short id of the tab the call acted on, or opened: the
	// answer to "which tab?" when the text cannot be shown (screened).
	Tab string
	// Data is the result as data for Go callers: browser_snapshot's
	// *Snapshot; nil for the other tools.
	Data any
	// Display is Text as the person at the terminal reads it, where the
	// two differ: it names the shell's commands (/tabs, /snapshot) where
	// Text names the tools for the model; "" when Text reads as well.
	Display string
}

func failf(format string, a ...any) *Result {
	return &Result{Text: fmt.Sprintf(format, a...), IsError: true}
}

// failErr is a failure worded by err: for the model its text, for the
// person its person's wording (words.Error).
func failErr(err error) *Result {
	r := &Result{Text: err.Error(), IsError: true}
	if p := words.Error(err); p != r.Text {
		r.Display = p
	}
	return r
}

// say sets the person's wording of r.
func (r *Result) say(format string, a ...any) *Result {
	r.Display = fmt.Sprintf(format, a...)
	return r
}

// addLine appends one line for the model and, worded for the person,
// the same for the terminal.
func (r *Result) addLine(model, person string) {
	if r.Display == "" && person != model {
		r.Display = r.Text
	}
	r.Text += "\n" + model
	if r.Display != "" {
		r.Display += "\n" + person
	}
}

func obj(props map[string]any, required ...string) map[string]any {
	m := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		m["required"] = required
	}
	return m
}

func str(desc string) map[string]any  { return map[string]any{"type": "string", "description": desc} }
func boolean(d string) map[string]any { return map[string]any{"type": "boolean", "description": d} }
func num(desc string) map[string]any  { return map[string]any{"type": "integer", "description": desc} }
func strList(desc string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
}

var (
	refParam = str("element ref from browser_snapshot, e.g. e12")
	tabParam = str("tab id; default current")
)

// onTab is the schema of a page tool: its properties plus the optional tab
// it acts on, so several tabs can be worked without switching the current
// one.
func onTab(props map[string]any, required ...string) map[string]any {
	props["tab"] = tabParam
	return obj(props, required...)
}

// toolDefs is the catalogue; handlers live in toolFuncs. Every page tool
// (pageTools) takes the optional tab argument.
var toolDefs = []Tool{
	{Name: "browser_open", Description: "Open a URL in a new tab and make it current.", Parameters: obj(map[string]any{"url": str("absolute URL")}, "url")},
	{Name: "browser_navigate", Description: "Load a URL in the current tab (or 'back', 'forward', 'reload').", Parameters: onTab(map[string]any{"url": str("absolute URL, or back/forward/reload")}, "url")},
	{Name: "browser_snapshot", Description: "Outline of the current page and its iframes. Interactive elements carry refs like e12 (f1e3 in frame f1) for click/type/select. After an action, its result lists what changed.",
		Parameters: onTab(map[string]any{"selector": str("optional CSS selector to outline only that part"), "interactive": boolean("only the controls (refs) and headings, one line each: far smaller"),
			"max_chars": num("optional cap on the outline's size; the rest is named with from_line to read on"), "from_line": num("optional line to start at, to read past a cut")})},
	{Name: "browser_click", Description: "Click an element by ref; button=right for a context menu, count=2 for a double click.",
		Parameters: onTab(map[string]any{"ref": refParam, "button": str("left|right|middle"), "count": num("2: double click"),
			"modifiers": strList("keys held: Control, Shift, Alt, Meta")}, "ref")},
	{Name: "browser_hover", Description: "Move the pointer onto an element by ref (opens hover menus).", Parameters: onTab(map[string]any{"ref": refParam}, "ref")},
	{Name: "browser_drag", Description: "Drag ref onto to (HTML5 or mouse drag).",
		Parameters: onTab(map[string]any{"ref": refParam, "to": str("ref, or the drop zone's visible text")}, "ref", "to")},
	{Name: "browser_check", Description: "Check or uncheck a checkbox, radio or switch by ref; says its state after.",
		Parameters: onTab(map[string]any{"ref": refParam, "checked": boolean("false to uncheck")}, "ref")},
	{Name: "browser_upload", Description: "Choose local files for a file input by ref (the input, or the button opening the chooser).",
		Parameters: onTab(map[string]any{"ref": refParam, "paths": strList("files to upload")}, "ref", "paths")},
	{Name: "browser_dialog", Description: "Answer the open alert/confirm/prompt: accept=true (OK) or false (Cancel).",
		Parameters: onTab(map[string]any{"accept": boolean("OK or Cancel"), "text": str("a prompt's answer")}, "accept")},
	{Name: "browser_type", Description: "Replace the text of a field by ref; submit=true presses Enter after.", Parameters: onTab(map[string]any{"ref": refParam, "text": str("text to type"), "submit": boolean("press Enter afterwards")}, "ref", "text")},
	{Name: "browser_select", Description: "Choose an option of a <select> by ref, by value or visible label.", Parameters: onTab(map[string]any{"ref": refParam, "value": str("option value or label")}, "ref", "value")},
	{Name: "browser_press", Description: "Press a key in the page: Enter, Tab, Escape, Backspace, ArrowDown, PageDown, a letter; modifiers like Control+a.", Parameters: onTab(map[string]any{"key": str("key name")}, "key")},
	{Name: "browser_scroll", Description: "Scroll the page (down, up, top, bottom) or scroll an element into view by ref.", Parameters: onTab(map[string]any{"direction": str("down|up|top|bottom; default down"), "ref": str("optional element ref to scroll into view")})},
	{Name: "browser_wait", Description: "Wait until text appears on the page or a CSS selector matches a visible element.",
		Parameters: onTab(map[string]any{"text": str("text to wait for"), "selector": str("CSS selector to wait for"), "timeout": num("seconds, default 10, max 60")})},
	{Name: "browser_screenshot", Description: "Screenshot of the current page, saved to a file and returned as an image. Prefer browser_snapshot for reading.",
		Parameters: onTab(map[string]any{"full_page": boolean("whole page, not only the viewport"), "max_width": num("scale down to this width in pixels, default 1280"), "format": str("jpeg (default) or png")})},
	{Name: "browser_extract", Description: "Main content of the rendered current page as markdown; select=CSS selector to extract only matching parts.",
		Parameters: onTab(map[string]any{"select": str("optional CSS selector")})},
	{Name: "browser_download", Description: "Save what a link (ref) or url downloads; says the file saved.",
		Parameters: onTab(map[string]any{"ref": refParam, "url": str("or its address"), "dir": str("folder")})},
	{Name: "browser_tabs", Description: "List open tabs: id, title, URL, whether the agent opened it, which is current.", Parameters: obj(map[string]any{})},
	{Name: "browser_select_tab", Description: "Make a tab current by id (from browser_tabs).", Parameters: obj(map[string]any{"tab": str("tab id, e.g. t2")}, "tab")},
	{Name: "browser_close", Description: "Close a tab by id (default: the current tab). In the person's browser only tabs the agent opened.", Parameters: obj(map[string]any{"tab": tabParam})},
	{Name: "browser_eval", Description: "Run JavaScript in the current page and return its JSON result (awaits promises).", Parameters: onTab(map[string]any{"js": str("expression or IIFE")}, "js")},
}

// Tools returns the native tools as data for the registry. browser_download's
// folder carries its default (Options.DownloadDir) in its schema, so the
// registry judges the folder a call writes into even when the call names
// none.
func (b *Browser) Tools() []Tool {
	out := make([]Tool, len(toolDefs))
	copy(out, toolDefs)
	for i, t := range out {
		if t.Name == "browser_download" {
			out[i].Parameters = withDefault(t.Parameters, "dir", b.opts.DownloadDir)
		}
	}
	return out
}

// withDefault is schema with property p's default set to v.
func withDefault(schema map[string]any, p string, v any) map[string]any {
	props := map[string]any{}
	for k, x := range schema["properties"].(map[string]any) {
		props[k] = x
	}
	prop := map[string]any{"default": v}
	for k, x := range props[p].(map[string]any) {
		prop[k] = x
	}
	props[p] = prop
	out := map[string]any{}
	for k, x := range schema {
		out[k] = x
	}
	out["properties"] = props
	return out
}

// args is the union of every tool's arguments.
type args struct {
	URL      string `json:"url"`
	Selector string `json:"selector"`
	FromLine int    `json:"from_line"`
	// browser_snapshot
	Interactive bool   `json:"interactive"`
	MaxChars    int    `json:"max_chars"`
	Ref         string `json:"ref"`
	Text        string `json:"text"`
	Submit      bool   `json:"submit"`
	Value       string `json:"value"`
	Key         string `json:"key"`
	Direction   string `json:"direction"`
	Timeout     int    `json:"timeout"`
	FullPage    bool   `json:"full_page"`
	MaxWidth    int    `json:"max_width"`
	Format      string `json:"format"`
	Select      string `json:"select"`
	Tab         string `json:"tab"`
	JS          string `json:"js"`
	// browser_click, browser_hover, browser_drag, browser_check
	Button    string   `json:"button"`
	Count     int      `json:"count"`
	Modifiers []string `json:"modifiers"`
	To        string   `json:"to"`
	Checked   *bool    `json:"checked"`
	// browser_upload, browser_download, browser_dialog
	Paths  []string `json:"paths"`
	Dir    string   `json:"dir"`
	Accept *bool    `json:"accept"`
}

func parseArgs(raw json.RawMessage) (args, error) {
	var a args
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	err := json.Unmarshal(raw, &a)
	return a, err
}

// pageTool reports whether name acts on one tab (the tab argument, else
// the current tab), as the catalogue says.
func pageTool(name string) bool {
	e, ok := catalog.NativeTool(name)
	return ok && e.OnPage
}

// TabFor returns the id of the tab a call would act on: its tab argument
// (browser_select_tab, browser_close and every page tool take one), else the
// current tab for browser_close and page tools, "" for browser_open (a new
// tab) and browser_tabs. It is what the guard judges, so it must name the
// tab Call then acts on.
func (b *Browser) TabFor(name string, raw json.RawMessage) string {
	a, _ := parseArgs(raw)
	switch {
	case a.Tab != "" && pageTool(name):
		return a.Tab
	case pageTool(name) && name != "browser_select_tab":
		return b.CurrentTab()
	}
	return ""
}

// PageURL returns the live URL of the page a call acts on, asked from the
// browser now: for browser_open the URL it will open, for a tab the URL it
// shows, "" when the call acts on no page.
func (b *Browser) PageURL(ctx context.Context, name string, raw json.RawMessage) (string, error) {
	if name == "browser_open" {
		a, err := parseArgs(raw)
		return a.URL, err
	}
	id := b.TabFor(name, raw)
	if id == "" {
		return "", nil
	}
	return b.CurrentURL(ctx, id)
}

// Call runs one native tool on the tab its arguments name (or the current
// one). Failures the model can fix come back as a Result with IsError; an
// error means the browser could not be used at all.
func (b *Browser) Call(ctx context.Context, name string, raw json.RawMessage) (*Result, error) {
	return b.CallTab(ctx, name, "", raw)
}

// CallTab runs one native tool on the tab whose CDP target id is tab, the
// one the guard judged; "" means the tab the arguments name. When that tab
// has closed since, the call fails: it never falls back to another tab.
func (b *Browser) CallTab(ctx context.Context, name, tab string, raw json.RawMessage) (*Result, error) {
	h, ok := toolFuncs[name]
	if !ok {
		return failf("unknown browser tool %q", name), nil
	}
	a, err := parseArgs(raw)
	if err != nil {
		return failf("bad arguments for %s: %v", name, err), nil
	}
	s, err := b.session(ctx)
	if err != nil {
		return nil, err
	}
	if tab != "" {
		t, err := s.lookup(tab)
		if err != nil || string(t.id) != tab {
			return failf("the tab %s acts on closed after it was checked; nothing was done. List tabs with browser_tabs and try again.", name).
				say("the tab closed after it was checked; nothing was done. /tabs lists the tabs."), nil
		}
		a.Tab = tab
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	c := &call{b: b, s: s, a: a, name: name}
	defer func() {
		for i := len(c.release) - 1; i >= 0; i-- {
			c.release[i]()
		}
	}()
	res, err := h(ctx, c)
	if c.dialogCut.Load() && c.t != nil && c.t.openDialog() != nil && (err != nil || res.IsError) {
		// The dialog cut the call short: what it sent reached the page.
		res, err = &Result{Text: fmt.Sprintf("%s reached the page in tab %s, which then opened a dialog.", name, c.t.short)}, nil
	}
	if err != nil {
		if s.dead() {
			return nil, b.lostErr(s)
		}
		return nil, err
	}
	if c.t != nil && c.t.isCrashed() && res.IsError && !c.loading {
		res = crashedTab(c.t.short)
	}
	if c.t != nil {
		res.Tab = c.t.short
		if d := c.t.openDialog(); d != nil && !res.IsError {
			note := dialogNote(c.t, d, c.persons())
			res.addLine(note, note)
		}
	}
	return res, nil
}

// call is the state of one tool call.
type call struct {
	b   *Browser
	s   *session
	a   args
	t   *tab            // the tab acted on, once known
	ctx context.Context // chromedp context of t, bounded by the call

	name    string // the tool called
	release []func()
	loading bool // the call loads a page, which also revives a crashed tab
	// dialogCut is set when a dialog the page opened during the call
	// ended it: the page is paused, so nothing after would be answered.
	dialogCut atomic.Bool
}

// page resolves the tab of the call (current or the tab argument) and
// returns a chromedp context for it that ends with ctx.
func (c *call) page(ctx context.Context, short string) (context.Context, *Result, error) {
	t, err := c.s.lookup(short)
	if err != nil {
		return nil, failErr(err), nil
	}
	c.t = t
	t.dmu.Lock()
	crashed, crashCh := t.crashed, t.crashChan()
	t.dmu.Unlock()
	if crashed && !c.loading {
		return nil, crashedTab(t.short), nil
	}
	if d := t.openDialog(); d != nil && c.name != "browser_dialog" {
		return nil, c.dialogRefusal(d), nil
	}
	t.busy.Lock()
	c.release = append(c.release, t.busy.Unlock)
	pctx, err := c.s.attach(t)
	if err != nil {
		if errors.Is(err, ErrLost) || c.s.dead() {
			return nil, nil, c.b.lostErr(c.s)
		}
		return nil, failErr(err), nil
	}
	// Derived from the tab's context so chromedp finds the target; ended
	// with the call so no tool outlives its caller.
	cctx, cancel := context.WithCancel(pctx)
	stop := context.AfterFunc(ctx, cancel)
	if crashed {
		crashCh = nil // a reload revives it; no crash to wait for
	}
	// A renderer that dies never answers, and a page paused by a dialog
	// answers nothing until it is answered: either ends the call at once.
	dialogs, unwatch := t.events.watch(is[*page.EventJavascriptDialogOpening])
	go func() {
		select {
		case <-crashCh:
			cancel()
		case <-dialogs:
			c.dialogCut.Store(true)
			cancel()
		case <-cctx.Done():
		}
	}()
	c.release = append(c.release, func() { stop(); unwatch(); cancel() })
	c.ctx = cctx
	return cctx, nil, nil
}

// crashedTab says a tab's renderer died and how to go on.
func crashedTab(short string) *Result {
	return failf("tab %s crashed (its renderer died): load a page in it again with browser_navigate, or close it with browser_close", short).
		say("tab %s crashed (its renderer died): /navigate URL loads a page in it again, /close %s closes it", short, tabNum(short))
}

// tabNum is a tab id as the shell's commands take it: "t2" is 2.
func tabNum(short string) string { return strings.TrimPrefix(short, "t") }

package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/page"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/media"
	"github.com/browseragent/browseragent/tools"
)

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
	// *Snapshot, browser_extract's *Extracted; nil for the other tools.
	// The model never sees it.
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

// nativeTool is one native browser tool as one value: what the model is offered
// (its name, description and parameters, derived from its argument
// struct), its catalogue entry, and its handler. addTool makes it; a tool
// the catalogue has no entry for is an error there, never a fallback.
type nativeTool struct {
	Name        string
	Description string
	Parameters  map[string]any // JSON Schema of the argument struct, type object
	Entry       catalog.Entry

	// schema makes Parameters on first use: a command that runs no tool
	// (every `browser` command's own process) does not pay for reflecting
	// over every argument struct at start-up.
	schema func() (map[string]any, error)

	// run decodes the arguments into the tool's struct and calls its
	// handler.
	run func(ctx context.Context, c *call, raw json.RawMessage) (*Result, error)
}

// tabArg is the tab a page tool acts on, embedded in its argument struct so
// several tabs can be worked without switching the current one. The
// handler reads c.tab, which is the tab the guard judged.
type tabArg struct {
	Tab string `json:"tab,omitempty" jsonschema:"tab id; default current"`
}

// refArg is the element a tool acts on.
type refArg struct {
	Ref string `json:"ref" jsonschema:"element ref from browser_snapshot, e.g. e12"`
}

// nativeTools are the registered tools in the order they are offered;
// byName finds one. Both are filled once, at init, by addTool.
var (
	nativeTools []*nativeTool
	byName      = map[string]*nativeTool{}
)

// addTool registers native tool name, in the spirit of go-sdk's
// mcp.AddTool: its parameters are the JSON Schema of A (a field is
// required unless it is omitempty; its jsonschema tag is its
// description), its catalogue entry is catalog.NativeTool(name), and h
// receives the decoded arguments. A name with no catalogue entry, a second
// registration of a name, or an argument struct with no schema is an
// error: the program does not start with a tool nobody described.
func addTool[A any](name, description string, h func(ctx context.Context, c *call, a A) (*Result, error)) error {
	t, err := newTool(name, description, h)
	if err != nil {
		return err
	}
	if _, dup := byName[name]; dup {
		return fmt.Errorf("browser tool %s registered twice", name)
	}
	nativeTools = append(nativeTools, t)
	byName[name] = t
	return nil
}

func newTool[A any](name, description string, h func(ctx context.Context, c *call, a A) (*Result, error)) (*nativeTool, error) {
	e, ok := catalog.NativeTool(name)
	if !ok {
		return nil, fmt.Errorf("browser tool %s has no catalogue entry (catalog/tools.go): say what it touches there first", name)
	}
	if reflect.TypeFor[A]().Kind() != reflect.Struct {
		// the one check of schemaOf that does not wait for the schema
		return nil, fmt.Errorf("browser tool %s: its arguments must be a struct, an object schema", name)
	}
	run := func(ctx context.Context, c *call, raw json.RawMessage) (*Result, error) {
		var a A
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &a); err != nil {
				return failf("bad arguments for %s: %v", name, err), nil
			}
		}
		return h(ctx, c, a)
	}
	return &nativeTool{Name: name, Description: description, Entry: e, run: run, schema: sync.OnceValues(schemaOf[A])}, nil
}

// schemaOf is the JSON Schema of A as a map, the form every tool
// definition takes. additionalProperties is left out: the model is
// offered what it may send, not a rule the registry does not enforce.
func schemaOf[A any]() (map[string]any, error) {
	s, err := jsonschema.For[A](nil)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "additionalProperties")
	if props, ok := m["properties"].(map[string]any); ok {
		for _, p := range props {
			notNull(p)
		}
	}
	if req, ok := m["required"].([]any); ok {
		names := make([]string, len(req))
		for i, r := range req {
			names[i], _ = r.(string)
		}
		m["required"] = names
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	if m["type"] != "object" {
		return nil, fmt.Errorf("arguments of type %T are not an object", *new(A))
	}
	return m, nil
}

// notNull makes a property jsonschema-go declared nullable (a slice, a
// pointer: ["null", "array"]) plain: a model omits an argument it does not
// give, it never sends null.
func notNull(p any) {
	m, ok := p.(map[string]any)
	if !ok {
		return
	}
	if ts, ok := m["type"].([]any); ok && len(ts) == 2 && ts[0] == "null" {
		m["type"] = ts[1]
	}
	notNull(m["items"])
}

// mustAdd stops the program at start when a registration failed.
func mustAdd(err error) {
	if err != nil {
		panic(err)
	}
}

// listTools returns the native tools as data for the registry, each with its
// catalogue entry. browser_download's folder carries its default
// (Options.DownloadDir) in its schema, so the registry judges the folder a
// call writes into even when the call names none.
func (b *Browser) listTools() []nativeTool {
	out := make([]nativeTool, len(nativeTools))
	for i, t := range nativeTools {
		out[i] = *t
		params, err := t.schema()
		if err != nil {
			panic(fmt.Sprintf("browser tool %s: %v", t.Name, err)) // TestToolSchemas makes every one
		}
		out[i].Parameters = params
		if t.Name == "browser_download" {
			out[i].Parameters = withDefault(params, "dir", b.opts.DownloadDir)
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

// TabFor returns the id of the tab a call would act on: its tab argument
// (browser_select_tab, browser_close and every page tool take one), else the
// current tab for browser_close and page tools, "" for browser_open (a new
// tab) and browser_tabs. It is what the guard judges, so it must name the
// tab the call then acts on.
func (b *Browser) TabFor(name string, tab string) string {
	t, ok := byName[name]
	switch {
	case !ok || !t.Entry.OnPage:
		return ""
	case tab != "":
		return tab
	case !t.Entry.Selects:
		return b.CurrentTab()
	}
	return ""
}

// run runs one native tool on the tab whose CDP target id is tab, the one
// the guard judged; "" means the tab the arguments name. When that tab has
// closed since, the call fails: it never falls back to another tab. It is
// bounded by ctx alone: the registry gives each call its one timeout.
func (b *Browser) run(ctx context.Context, name, tab string, raw json.RawMessage) (*Result, error) {
	return b.runFor(ctx, nil, name, tab, raw)
}

// runFor is run for the call rc the registry judged (nil: run directly,
// as tests do): the frames its result shows are judged with it
// (Options.FrameWithheld), and when it came from a client that shares the
// browser with others, a tab list leaves out the tabs another opened.
func (b *Browser) runFor(ctx context.Context, rc *tools.ResolvedCall, name, tab string, raw json.RawMessage) (*Result, error) {
	t, ok := byName[name]
	if !ok {
		return failf("unknown browser tool %q", name), nil
	}
	var named tabArg
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &named); err != nil {
			return failf("bad arguments for %s: %v", name, err), nil
		}
	}
	s, err := b.session(ctx)
	if err != nil {
		return nil, err
	}
	c := &call{b: b, s: s, tab: named.Tab, name: name, rc: rc}
	if rc != nil && rc.Client != nil {
		c.hidden = rc.Client.Others
	}
	if tab != "" {
		tt, err := s.lookup(tab)
		if err != nil || string(tt.id) != tab {
			return failf("the tab %s acts on closed after it was checked; nothing was done. List tabs with browser_tabs and try again.", name).
				say("the tab closed after it was checked; nothing was done. /tabs lists the tabs."), nil
		}
		c.tab = tab
	}
	defer func() {
		for i := len(c.release) - 1; i >= 0; i-- {
			c.release[i]()
		}
	}()
	res, err := t.run(ctx, c, raw)
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
	tab string          // the tab it acts on: the judged target id, the tab argument, or "" for the current one
	t   *tab            // the tab acted on, once known
	ctx context.Context // chromedp context of t, bounded by the call

	name    string                // the tool called
	rc      *tools.ResolvedCall   // the call as the registry judged it; nil when run directly (tests)
	hidden  func(tab string) bool // the tabs another caller opened (by short id); nil: none
	release []func()
	loading bool // the call loads a page, which also revives a crashed tab
	// dialogCut is set when a dialog the page opened during the call
	// ended it: the page is paused, so nothing after would be answered.
	dialogCut atomic.Bool
	// inputDoc is the document of the last ref the call resolved: the one
	// its input goes to, whose input watch the settle asks.
	inputDoc *docCtx
}

// page resolves the tab of the call (c.tab, else the current one) and
// returns a chromedp context for it that ends with ctx.
func (c *call) page(ctx context.Context) (context.Context, *Result, error) {
	t, err := c.s.lookup(c.tab)
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

package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

//go:embed refs.js
var refsJS string

func init() {
	for _, err := range []error{
		addTool("browser_open", "Open a URL in a new tab and make it current.", toolOpen),
		addTool("browser_navigate", "Load a URL in the current tab (or 'back', 'forward', 'reload').", toolNavigate),
		addTool("browser_snapshot", "Outline of the current page and its iframes. Interactive elements carry refs like e12 (f1e3 in frame f1) for click/type/select. After an action, its result lists what changed.", toolSnapshot),
		addTool("browser_click", "Click an element by ref; button=right for a context menu, count=2 for a double click.", toolClick),
		addTool("browser_hover", "Move the pointer onto an element by ref (opens hover menus).", toolHover),
		addTool("browser_drag", "Drag ref onto to (HTML5 or mouse drag).", toolDrag),
		addTool("browser_check", "Check or uncheck a checkbox, radio or switch by ref; says its state after.", toolCheck),
		addTool("browser_upload", "Choose local files for a file input by ref (the input, or the button opening the chooser).", toolUpload),
		addTool("browser_dialog", "Answer the open alert/confirm/prompt: accept=true (OK) or false (Cancel).", toolDialog),
		addTool("browser_type", "Replace the text of a field by ref; submit=true presses Enter after.", toolType),
		addTool("browser_select", "Choose an option of a <select> by ref, by value or visible label.", toolSelect),
		addTool("browser_press", "Press a key in the page: Enter, Tab, Escape, Backspace, ArrowDown, PageDown, a letter; modifiers like Control+a. text: type into the focused element.", toolPress),
		addTool("browser_scroll", "Scroll the page (down, up, top, bottom) or scroll an element into view by ref.", toolScroll),
		addTool("browser_wait", "Wait until text or a visible CSS selector match appears, in the page or its frames; load: until loaded and the network is quiet; none: until the page settled (no request, no DOM change for 0.5 s).", toolWait),
		addTool("browser_screenshot", "Screenshot of the current page, saved to a file and returned as an image. Prefer browser_snapshot for reading.", toolScreenshot),
		addTool("browser_extract", "Main content of the rendered current page as markdown; select=CSS selector to extract only matching parts.", toolExtract),
		addTool("browser_download", "Save what a link (ref) or url downloads; says the file saved.", toolDownload),
		addTool("browser_tabs", "List open tabs: id, title, URL, whether the agent opened it, which is current.", toolTabs),
		addTool("browser_select_tab", "Make a tab current by id (from browser_tabs).", toolSelectTab),
		addTool("browser_close", "Close a tab by id (default: the current tab). In the person's browser only tabs the agent opened.", toolClose),
		addTool("browser_eval", "Run JavaScript in the current page and return its JSON result (awaits promises).", toolEval),
	} {
		mustAdd(err)
	}
}

func jsArg(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// evalTimeout bounds one script in the page: a hung or crashed renderer
// must not hold a tool for the whole call timeout.
const evalTimeout = 20 * time.Second

// eval runs a JavaScript expression in the page and decodes its value.
func eval[T any](ctx context.Context, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, evalTimeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// onRef runs body as a function of the element behind ref, in the
// document it is in (refDoc).
func onRef[T any](d docCtx, ref, body string) (T, error) {
	return evalDoc[T](d, onRefExpr(ref, body))
}

// onRefExpr is the expression onRef evaluates.
func onRefExpr(ref, body string) string {
	return fmt.Sprintf("(function(el){%s})((%s)(%s))", body, refsJS, jsArg(ref))
}

// refDoc returns the document the call's ref names an element of: the
// tab's top document, or one of its frames (f2e7).
func (c *call) refDoc(ctx context.Context, ref string) (docCtx, *Result) {
	d, release, err := c.s.refDoc(ctx, c.ctx, c.t, ref)
	if err != nil {
		return docCtx{}, failErr(err).say("%s", jsWords.Replace(err.Error()))
	}
	c.release = append(c.release, release)
	c.inputDoc = &d
	return d, nil
}

// jsFail turns a page-side exception into a result the model can act on.
// jsWords rewords the hints of the page scripts' errors (refs.js,
// pointJS) for the person: the shell's /snapshot, not the tool.
var jsWords = strings.NewReplacer("take a new browser_snapshot", "take a new /snapshot",
	"(take a browser_snapshot)", "(/snapshot shows the page)")

func jsFail(err error) (*Result, error) {
	var ex *chromedp.ExceptionError
	if errors.As(err, &ex) {
		msg := ex.Error()
		if ex.Exception != nil && ex.Exception.Description != "" {
			msg = strings.SplitN(ex.Exception.Description, "\n", 2)[0]
		}
		msg = strings.TrimPrefix(msg, "Error: ")
		r := failf("%s", msg)
		if p := jsWords.Replace(msg); p != msg {
			r.Display = p
		}
		return r, nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return failf("the page did not answer in time (busy script or dialog?)"), nil
	}
	return nil, err
}

// navigate loads url in the tab with a bounded wait.
func (c *call) navigate(ctx context.Context, url string) (*Result, error) {
	nctx, cancel := context.WithTimeout(ctx, c.b.opts.NavTimeout)
	defer cancel()
	var act chromedp.Action[chromedp.Void]
	switch url {
	case "back":
		return c.historyMove(nctx, -1)
	case "forward":
		return c.historyMove(nctx, 1)
	case "reload":
		act = chromedp.Reload()
	default:
		url = strings.TrimSpace(url) // the registry already gave it its scheme (guard.LoadURL)
		// Best effort, and outside the load's time: browser_wait installs
		// the watch itself if need be, counting the page's changes from then.
		c.s.watchReady(ctx, c.t)
		c.t.setResponse(nil)
		resp, err := chromedp.Run(nctx, chromedp.NavigateResponse(url))
		c.t.setResponse(resp)
		if r, ok := navFail(err, nctx, ctx, url, c.b.opts.NavTimeout); ok {
			return r, nil
		} else if err != nil {
			return nil, err
		}
		res := c.pageLine(ctx, "Loaded")
		if resp != nil && resp.Status >= 400 {
			res.Text += fmt.Sprintf(" (HTTP %d %s)", resp.Status, resp.StatusText)
		}
		return res, nil
	}
	err := chromedp.Do(nctx, act)
	if r, ok := navFail(err, nctx, ctx, url, c.b.opts.NavTimeout); ok {
		return r, nil
	} else if err != nil {
		return nil, err
	}
	return c.pageLine(ctx, "Loaded"), nil
}

// historyMove goes back (-1) or forward (1) one page in the tab's history.
// It waits for the page to be there, not for a load event: a page the
// back-forward cache restores fires none, so chromedp's NavigateBack waits
// out the whole timeout on it.
func (c *call) historyMove(ctx context.Context, delta int64) (*Result, error) {
	h, err := chromedp.Call(ctx, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	i := h.CurrentIndex + delta
	if i < 0 || i >= int64(len(h.Entries)) {
		way := "back"
		if delta > 0 {
			way = "forward"
		}
		return failf("tab %s has no page to go %s to", c.t.short, way), nil
	}
	to := h.Entries[i]
	if _, err := chromedp.Call(ctx, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: to.ID}); err != nil {
		return nil, err
	}
	for ctx.Err() == nil {
		info, err := eval[[]string](ctx, "[location.href, document.readyState]")
		if err == nil && len(info) == 2 && info[0] == to.URL && info[1] != "loading" {
			return c.pageLine(ctx, "Loaded"), nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return failf("%s did not finish loading within %s; it may still be loading: browser_snapshot shows what has rendered so far", to.URL, c.b.opts.NavTimeout).
		say("%s did not finish loading within %s; it may still be loading: /snapshot shows what has rendered so far", to.URL, c.b.opts.NavTimeout), nil
}

// navFail maps a navigation error to a result the model can act on.
func navFail(err error, nctx, ctx context.Context, url string, wait time.Duration) (*Result, bool) {
	if err == nil {
		return nil, false
	}
	var le *chromedp.LoadError
	if errors.As(err, &le) {
		return failf("could not load %s: %s", url, le.ErrorText), true
	}
	if nctx.Err() != nil && ctx.Err() == nil {
		return failf("%s did not finish loading within %s; it may still be loading: browser_snapshot shows what has rendered so far", url, wait).
			say("%s did not finish loading within %s; it may still be loading: /snapshot shows what has rendered so far", url, wait), true
	}
	if ctx.Err() != nil {
		return failf("navigation to %s was cut short: the call timed out or was cancelled", url), true
	}
	return failf("could not load %s: %v", url, err), true
}

// pageLine describes the tab after an action: title and live URL.
func (c *call) pageLine(ctx context.Context, verb string) *Result {
	info, err := eval[[]string](ctx, "[document.title, location.href]")
	if err != nil || len(info) != 2 {
		return &Result{Text: fmt.Sprintf("%s tab %s.", verb, c.t.short)}
	}
	return c.pageLineOf(verb, info[0], info[1])
}

func (c *call) pageLineOf(verb, title, url string) *Result {
	return &Result{Text: fmt.Sprintf("%s tab %s: %q %s", verb, c.t.short, title, url)}
}

type openArgs struct {
	URL string `json:"url" jsonschema:"absolute URL"`
}

func toolOpen(ctx context.Context, c *call, a openArgs) (*Result, error) {
	if a.URL == "" {
		return failf("browser_open needs url"), nil
	}
	t, err := c.s.newTab(ctx, true)
	if err != nil {
		return nil, err
	}
	res, err := c.openIn(ctx, t, a.URL)
	if res != nil && res.IsError {
		// The tab exists even when its page failed: say which, so the
		// caller can close it or try again in it.
		res.addLine(fmt.Sprintf("Tab %s stays open: load a page in it with browser_navigate, or close it with browser_close.", t.short),
			fmt.Sprintf("Tab %s stays open: /navigate URL loads a page in it, /close %s closes it.", t.short, tabNum(t.short)))
	}
	return res, err
}

func (c *call) openIn(ctx context.Context, t *tab, url string) (*Result, error) {
	c.tab = t.short
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	return c.navigate(pctx, url)
}

type navigateArgs struct {
	URL string `json:"url" jsonschema:"absolute URL, or back/forward/reload"`
	tabArg
}

func toolNavigate(ctx context.Context, c *call, a navigateArgs) (*Result, error) {
	if a.URL == "" {
		return failf("browser_navigate needs url"), nil
	}
	c.loading = true
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	c.s.mu.Lock()
	c.t.used = true
	c.s.mu.Unlock()
	return c.navigate(pctx, a.URL)
}

// point scrolls the element into view and returns where to click, or why
// not.
const pointJS = `el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
const r = el.getBoundingClientRect();
if (r.width < 1 || r.height < 1) return {err: 'is not visible (zero size): it may be hidden or collapsed'};
const x = r.left + r.width / 2, y = r.top + r.height / 2;
const root = el.getRootNode(), top = (root.elementFromPoint ? root : document).elementFromPoint(x, y); // a shadow tree's own element, not its host
if (top && top !== el && !el.contains(top) && !top.contains(el) && !(el.labels && Array.from(el.labels).some(l => l.contains(top)))) {
  const d = top.tagName.toLowerCase() + (top.id ? '#' + top.id : '') + (top.className && typeof top.className === 'string' ? '.' + top.className.trim().split(/\s+/).join('.') : '');
  return {err: 'is covered by <' + d + '>: close or scroll that away first (take a browser_snapshot)'};
}
return {x, y};`

type point struct {
	X, Y float64
	Err  string
}

// action is what a call noted before an action on the page, for
// afterAction: the tabs open then, and the top frame's events from then on.
type action struct {
	tabs map[string]bool
	nav  <-chan any
	// leaving is set when a navigation asked for before the action goes
	// on because of it (a "leave this page?" accepted): its start came
	// before the watch, so the settle waits for its end from the outset.
	leaving bool
	// requests judges the document requests the action makes in the
	// person's Chrome (inputreqs.go); nil in the agent's own browser.
	requests *inputRequests
}

// beforeAction starts watching for what the action about to be taken may
// start: a navigation of the tab's top frame, a new window. The watch ends
// with the call.
func (c *call) beforeAction() action {
	top := cdp.FrameID(c.t.id) // a page's top frame has its target's id
	nav, stop := c.t.events.watch(func(ev any) bool {
		switch e := ev.(type) {
		case *page.EventFrameRequestedNavigation:
			return e.FrameID == top
		case *page.EventFrameStartedNavigating:
			return e.FrameID == top
		case *page.EventFrameStartedLoading:
			return e.FrameID == top
		case *page.EventFrameStoppedLoading:
			return e.FrameID == top
		case *page.EventWindowOpen:
			return true
		}
		return false
	})
	c.release = append(c.release, stop)
	return action{tabs: c.s.tabIDs(), nav: nav, requests: c.judgeInputRequests()}
}

// afterAction waits for a navigation the action may have started and names
// tabs it opened.
func (c *call) afterAction(ctx context.Context, before action, verb string) (*Result, error) {
	loaded, out := c.settle(ctx, before)
	// The outline after the action reads the page's title and URL too:
	// the action's line says them from it rather than asking again.
	now, model, person, ok := out.use(c)
	if !ok {
		now, model, person = c.outlineChanges(ctx)
	}
	var res *Result
	if now != nil {
		res = c.pageLineOf(verb, now.Title, now.URL)
	} else {
		res = c.pageLine(ctx, verb)
	}
	if !loaded {
		res.Text += " (the page is still loading)"
	}
	for _, t := range c.s.list() {
		if !before.tabs[t.ID] {
			res.addLine(fmt.Sprintf("Opened new tab %s %s: work in it with tab=%s or browser_select_tab.", t.ID, t.URL, t.ID),
				fmt.Sprintf("Opened new tab %s %s: /tab %s makes it the current one.", t.ID, t.URL, tabNum(t.ID)))
		}
	}
	if model != "" {
		res.addLine(model, person)
	}
	for _, why := range before.requests.refusals() {
		res.addLine(why, why)
		res.IsError = true
	}
	return res, nil
}

// settle waits, by what the browser reports, until the page has reacted
// to the action: what its handlers started has run (afterInputJS), then, only if the action began loading
// a new document in the tab, until that finished (bounded); then for a
// window it opened to show in the tab list. It reports false when the
// bound ran out with the document still loading. Where the page neither
// navigated nor opened a window, out is the outline of the page for the
// change list, taken in the same round trip as the wait (withOutline);
// else nil.
func (c *call) settle(ctx context.Context, a action) (loaded bool, out *outlined) {
	wait := min(c.b.opts.NavTimeout, 10*time.Second)
	deadline := time.Now().Add(wait)
	// The watch's own bound is 1 s; the outline taken with it (a big page
	// on a loaded machine) may take a few more.
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	// Each fails when a navigation replaces the document: fine.
	none, _ := c.t.framesKnownNone()
	switch {
	case c.inputDoc != nil && c.inputDoc.frame != nil:
		// The input went into a frame: its document's watch knows.
		d := *c.inputDoc
		var dcancel context.CancelFunc
		d.ctx, dcancel = context.WithTimeout(d.ctx, 5*time.Second)
		evalDoc[string](d, afterInputJS)
		dcancel()
	case c.inputDoc == nil && !none:
		// A key press or a dialog's answer may go into a frame, whose
		// handlers the top document's watch does not see.
		eval[string](fctx, nextFrameJS)
	default:
		if _, o, err := withOutline[string](c, fctx, afterInputJS); err == nil && o != nil {
			out = o
		} else if err == nil {
			eval[string](fctx, afterInputJS)
		}
	}
	cancel()
	var requested, stopped, opened bool
	started := a.leaving
	note := func(ev any) {
		switch ev.(type) {
		case *page.EventFrameRequestedNavigation:
			requested = true
		case *page.EventFrameStartedNavigating, *page.EventFrameStartedLoading:
			started, stopped = true, false
		case *page.EventFrameStoppedLoading:
			stopped = started
		case *page.EventWindowOpen:
			opened = true
		}
	}
	for drained := false; !drained; {
		select {
		case ev := <-a.nav:
			note(ev)
		default:
			drained = true
		}
	}
	if requested && !started {
		// Asked for, not begun: it begins at once or was cancelled (a
		// download, a handler, a 204).
		if ev := waitEvent(ctx, a.nav, 500*time.Millisecond); ev != nil {
			note(ev)
		}
	}
	for started && !stopped && time.Now().Before(deadline) && ctx.Err() == nil {
		if ev := waitEvent(ctx, a.nav, time.Until(deadline)); ev != nil {
			note(ev)
		}
	}
	if requested || started || opened {
		out = nil // the page may have changed since, or gone: outlined again
	}
	if opened {
		c.waitNewTab(ctx, a.tabs)
	}
	if !started {
		return true, out
	}
	for time.Now().Before(deadline) && ctx.Err() == nil {
		ectx, cancel := context.WithTimeout(ctx, 2*time.Second)
		rs, err := eval[string](ectx, "document.readyState")
		cancel()
		if err == nil && rs == "complete" {
			return true, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false, nil
}

// waitNewTab waits (bounded) until a tab not in before shows in the
// session's list: the window an action opened.
func (c *call) waitNewTab(ctx context.Context, before map[string]bool) {
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end) && ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
		for _, t := range c.s.list() {
			if !before[t.ID] {
				return
			}
		}
	}
}

// focusJS focuses a field and selects its content so typing replaces it.
const focusJS = `el.focus();
if (typeof el.select === 'function') { try { el.select(); } catch (e) {} }
else if (el.isContentEditable) { const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
const a = document.activeElement;
return a === el || el.contains(a) || (a && a.shadowRoot != null);`

// setValueJS sets a value the way a person's edit would, for fields that
// insertText cannot fill (date, color, range).
const setValueJS = `const v = %s;
if ('value' in el) {
  if (el.value === v) return true;
  const proto = Object.getPrototypeOf(el);
  const d = Object.getOwnPropertyDescriptor(proto, 'value');
  d && d.set ? d.set.call(el, v) : (el.value = v);
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return el.value === v;
}
return (el.innerText || '').includes(v);`

type typeArgs struct {
	refArg
	Text   string `json:"text" jsonschema:"text to type"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter afterwards"`
	tabArg
}

func toolType(ctx context.Context, c *call, a typeArgs) (*Result, error) {
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	d, r := c.refDoc(ctx, a.Ref)
	if r != nil {
		return r, nil
	}
	if d.frame != nil {
		// Focus moves into another frame only as a person's act would.
		d.gesture = true
	}
	ok, err := onRef[bool](d, a.Ref, focusJS)
	if err != nil {
		return jsFail(err)
	}
	if !ok {
		return failf("%s cannot take focus: is it a text field? (take a browser_snapshot)", a.Ref).
			say("%s cannot take focus: is it a text field? (/snapshot shows the fields)", a.Ref), nil
	}
	if a.Text == "" {
		err = chromedp.Do(pctx, chromedp.KeyEvent(kb.Delete))
	} else {
		_, err = chromedp.Call(pctx, input.InsertText, input.InsertTextParams{Text: a.Text})
	}
	if err != nil {
		return jsFail(err)
	}
	setValue := fmt.Sprintf(setValueJS, jsArg(a.Text))
	var out *outlined
	if !a.Submit && d.frame == nil {
		// The check and the change list in one round trip, where they can be.
		ok, o, err := withOutline[bool](c, d.ctx, onRefExpr(a.Ref, setValue))
		if err != nil {
			return jsFail(err)
		} else if o != nil && !ok {
			return failf("typed into %s but the field does not hold the text (it may reformat or reject it)", a.Ref), nil
		}
		out = o
	}
	if out == nil {
		if ok, err := onRef[bool](d, a.Ref, setValue); err != nil {
			return jsFail(err)
		} else if !ok {
			return failf("typed into %s but the field does not hold the text (it may reformat or reject it)", a.Ref), nil
		}
	}
	if !a.Submit {
		res := &Result{Text: fmt.Sprintf("Typed %d characters into %s.", len([]rune(a.Text)), a.Ref)}
		if _, model, person, ok := out.use(c); ok {
			if model != "" {
				res.addLine(model, person)
			}
			return res, nil
		}
		return c.withChanges(pctx, res), nil
	}
	before := c.beforeAction()
	if err := chromedp.Do(pctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		return jsFail(err)
	}
	return c.afterAction(pctx, before, fmt.Sprintf("Typed into %s and pressed Enter; now", a.Ref))
}

const selectJS = `if (el.tagName !== 'SELECT') throw new Error('not a <select>: click it and pick from the list instead');
const want = %s, wl = want.trim().toLowerCase();
const o = Array.from(el.options).find(o => o.value === want) || Array.from(el.options).find(o => o.label.trim().toLowerCase() === wl) || Array.from(el.options).find(o => o.label.toLowerCase().includes(wl));
if (!o) throw new Error('no option ' + JSON.stringify(want) + '; options: ' + Array.from(el.options, o => o.label.trim()).join(' | '));
el.value = o.value; o.selected = true;
el.dispatchEvent(new Event('input', {bubbles: true}));
el.dispatchEvent(new Event('change', {bubbles: true}));
return o.label.trim();`

type selectArgs struct {
	refArg
	Value string `json:"value" jsonschema:"option value or label"`
	tabArg
}

func toolSelect(ctx context.Context, c *call, a selectArgs) (*Result, error) {
	if _, r, err := c.page(ctx); r != nil || err != nil {
		return r, err
	}
	d, r := c.refDoc(ctx, a.Ref)
	if r != nil {
		return r, nil
	}
	label, err := onRef[string](d, a.Ref, fmt.Sprintf(selectJS, jsArg(a.Value)))
	if err != nil {
		return jsFail(err)
	}
	return c.withChanges(ctx, &Result{Text: fmt.Sprintf("Selected %q in %s.", label, a.Ref)}), nil
}

var keyNames = map[string]string{
	"enter": kb.Enter, "return": kb.Enter, "tab": kb.Tab, "escape": kb.Escape, "esc": kb.Escape,
	"backspace": kb.Backspace, "delete": kb.Delete, "arrowdown": kb.ArrowDown, "arrowup": kb.ArrowUp,
	"arrowleft": kb.ArrowLeft, "arrowright": kb.ArrowRight, "down": kb.ArrowDown, "up": kb.ArrowUp,
	"left": kb.ArrowLeft, "right": kb.ArrowRight, "pagedown": kb.PageDown, "pageup": kb.PageUp,
	"home": kb.Home, "end": kb.End, "space": " ",
}

var modNames = map[string]chromedp.Modifier{
	"control": chromedp.ModifierCtrl, "ctrl": chromedp.ModifierCtrl, "shift": chromedp.ModifierShift,
	"alt": chromedp.ModifierAlt, "meta": chromedp.ModifierMeta, "cmd": chromedp.ModifierMeta,
}

// parseKey turns "Control+a" into the key string and its modifiers.
func parseKey(s string) (string, []chromedp.Modifier, error) {
	parts := strings.Split(s, "+")
	if len(parts) > 1 && parts[len(parts)-1] == "" { // "Control++"
		parts = append(parts[:len(parts)-2], "+")
	}
	var mods []chromedp.Modifier
	for _, p := range parts[:len(parts)-1] {
		m, ok := modNames[strings.ToLower(p)]
		if !ok {
			return "", nil, fmt.Errorf("unknown modifier %q (use Control, Shift, Alt, Meta)", p)
		}
		mods = append(mods, m)
	}
	k := parts[len(parts)-1]
	if v, ok := keyNames[strings.ToLower(k)]; ok {
		return v, mods, nil
	}
	if len([]rune(k)) != 1 {
		return "", nil, fmt.Errorf("unknown key %q (use Enter, Tab, Escape, Backspace, ArrowDown, PageDown, or one character)", k)
	}
	return k, mods, nil
}

type pressArgs struct {
	Key  string `json:"key,omitempty" jsonschema:"key name"`
	Text string `json:"text,omitempty" jsonschema:"or text to type"`
	tabArg
}

// focusedFieldJS names the element that has the focus (inside open shadow
// roots too), where typed text goes: "" when nothing does, "!" before the
// name when it takes no text.
const focusedFieldJS = `(function(){
let el = document.activeElement;
while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
if (!el || el === document.body || el === document.documentElement) return '';
const t = (el.type || '').toLowerCase();
const takes = el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'IFRAME' ||
  (el.tagName === 'INPUT' && !['button', 'checkbox', 'radio', 'submit', 'reset', 'file', 'image', 'range', 'color', 'hidden'].includes(t));
const name = el.getAttribute('aria-label') || el.getAttribute('name') || el.id || '';
const d = '<' + el.tagName.toLowerCase() + (t && el.tagName === 'INPUT' ? ' type=' + t : '') + '>' + (name ? ' ' + JSON.stringify(name) : '');
return (takes ? '' : '!') + d;
})()`

func toolPress(ctx context.Context, c *call, a pressArgs) (*Result, error) {
	if (a.Key == "") == (a.Text == "") {
		return failf("browser_press needs key (a key to press) or text (to type into the focused element), one of them"), nil
	}
	if a.Text != "" {
		return c.typeFocused(ctx, a.Text)
	}
	key, mods, err := parseKey(a.Key)
	if err != nil {
		return failErr(err), nil
	}
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	before := c.beforeAction()
	if err := chromedp.Do(pctx, chromedp.KeyEvent(key, chromedp.KeyModifiers(mods...))); err != nil {
		return jsFail(err)
	}
	return c.afterAction(pctx, before, "Pressed "+a.Key+" in")
}

// typeFocused types text into the element that has the focus, as a
// keyboard's input method would (Input.insertText).
func (c *call) typeFocused(ctx context.Context, text string) (*Result, error) {
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	field, err := eval[string](pctx, focusedFieldJS)
	if err != nil {
		return jsFail(err)
	}
	switch {
	case field == "":
		return failf("nothing has the focus to type into: click a field first, or give browser_type its ref"), nil
	case strings.HasPrefix(field, "!"):
		return failf("the focused element %s takes no text: click a field first, or give browser_type its ref", field[1:]), nil
	}
	if _, err := chromedp.Call(pctx, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		return jsFail(err)
	}
	return c.withChanges(pctx, &Result{Text: fmt.Sprintf("Typed %d characters into the focused %s.", len([]rune(text)), field)}), nil
}

const scrollJS = `(function(dir){
const h = innerHeight * 0.85;
if (dir === 'up') scrollBy(0, -h); else if (dir === 'top') scrollTo(0, 0);
else if (dir === 'bottom') scrollTo(0, document.documentElement.scrollHeight); else scrollBy(0, h);
const max = Math.max(0, document.documentElement.scrollHeight - innerHeight);
return 'Scrolled ' + (dir || 'down') + ': now at ' + Math.round(scrollY) + ' of ' + Math.round(max) + ' px' + (scrollY >= max - 2 ? ' (bottom)' : '') + '.';
})(%s)`

type scrollArgs struct {
	Direction string `json:"direction,omitempty" jsonschema:"down|up|top|bottom; default down"`
	Ref       string `json:"ref,omitempty" jsonschema:"optional element ref to scroll into view"`
	tabArg
}

func toolScroll(ctx context.Context, c *call, a scrollArgs) (*Result, error) {
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	if a.Ref != "" {
		d, r := c.refDoc(ctx, a.Ref)
		if r != nil {
			return r, nil
		}
		if d.frame != nil {
			if _, _, err := c.s.frameOffset(ctx, pctx, c.t, d.frame, true); err != nil {
				return failErr(err), nil
			}
		}
		if _, err := onRef[bool](d, a.Ref, `el.scrollIntoView({block: 'center', behavior: 'instant'}); return true;`); err != nil {
			return jsFail(err)
		}
		return c.withChanges(pctx, &Result{Text: "Scrolled " + a.Ref + " into view."}), nil
	}
	switch a.Direction {
	case "", "down", "up", "top", "bottom":
	default:
		return failf("direction must be down, up, top or bottom"), nil
	}
	msg, err := eval[string](pctx, fmt.Sprintf(scrollJS, jsArg(a.Direction)))
	if err != nil {
		return jsFail(err)
	}
	return c.withChanges(pctx, &Result{Text: msg}), nil
}

// waitJS answers, of one document, whether text or a visible element
// matching sel is in it (ok), or why sel cannot be asked (bad), and the
// document's address, which the guard judges a frame's answer by.
const waitJS = `(function(text, sel){
const url = location.href;
if (sel) { let e; try { e = document.querySelector(sel); } catch (x) { return {bad: 'bad selector: ' + x.message, url}; }
  return {ok: !!e && (!e.checkVisibility || e.checkVisibility()), url}; }
return {ok: !!document.body && document.body.innerText.includes(text), url};
})(%s, %s)`

// waitHit is one document's answer to waitJS.
type waitHit struct {
	OK  bool   `json:"ok"`
	Bad string `json:"bad"`
	URL string `json:"url"`
}

type waitArgs struct {
	Text     string `json:"text,omitempty" jsonschema:"text to wait for"`
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector to wait for"`
	Load     bool   `json:"load,omitempty" jsonschema:"page loaded, network quiet 500 ms"`
	Timeout  int    `json:"timeout,omitempty" jsonschema:"seconds, default 10, max 60"`
	tabArg
}

func toolWait(ctx context.Context, c *call, a waitArgs) (*Result, error) {
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	timeout := time.Duration(a.Timeout) * time.Second
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	timeout = min(timeout, 60*time.Second)
	if a.Text == "" && a.Selector == "" && !a.Load {
		return c.waitSettled(ctx, pctx, timeout)
	}
	what := fmt.Sprintf("text %q", a.Text)
	if a.Selector != "" {
		what = fmt.Sprintf("selector %q", a.Selector)
	}
	if a.Load {
		loaded, err := waitLoad(pctx, c.t, timeout)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return failErr(err), nil
		}
		if !loaded {
			return failf("the page did not finish loading (or its network did not go quiet) within %s", timeout), nil
		}
		if a.Text == "" && a.Selector == "" {
			return c.pageLine(pctx, "Finished loading (network quiet) in"), nil
		}
	}
	found, in, err := c.waitFor(ctx, pctx, a.Text, a.Selector, timeout)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err() // cancelled by the caller: no "did not appear"
	}
	if err != nil {
		return failErr(err), nil
	}
	if !found {
		return failf("%s did not appear within %s", what, timeout), nil
	}
	if in != nil {
		return &Result{Text: fmt.Sprintf("Found %s in frame %s (%s).", what, in.key, in.url)}, nil
	}
	return &Result{Text: "Found " + what + "."}, nil
}

// waitFor polls the tab until text or selector shows up in its top
// document, or in one of its frames (same-origin or not, nested too) that
// the guard lets the model see, as the snapshot outlines them, or until
// timeout ends. A frame's answer is a fact about its content, so it counts
// only when its snapshot would show it: a frame a rule withholds never
// answers. in is the frame it was found in, nil for the top document.
func (c *call) waitFor(ctx, pctx context.Context, text, selector string, timeout time.Duration) (found bool, in *docFrame, err error) {
	deadline := time.Now().Add(timeout)
	expr := fmt.Sprintf(waitJS, jsArg(text), jsArg(selector))
	for {
		ectx, cancel := context.WithTimeout(pctx, 3*time.Second)
		top, err := eval[waitHit](ectx, expr)
		cancel()
		switch {
		case top.Bad != "":
			return false, nil, errors.New(top.Bad)
		case err == nil && top.OK:
			return true, nil, nil
		case err == nil:
			if f := c.waitInFrames(ctx, expr, top.URL); f != nil {
				return true, f, nil
			}
		}
		if pctx.Err() != nil {
			return false, nil, pctx.Err()
		}
		if time.Now().After(deadline) {
			return false, nil, nil
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// waitInFrames asks every frame of the tab waitJS's expr and returns the
// first that has it and may be shown (framesWithheld, judged as a
// snapshot of the page at topURL would judge it), nil when none.
func (c *call) waitInFrames(ctx context.Context, expr, topURL string) *docFrame {
	frames, release, err := c.s.listFrames(ctx, c.ctx, c.t)
	defer release()
	if err != nil || len(frames) == 0 {
		return nil
	}
	var hits []*docFrame
	var urls []string
	for _, f := range frames {
		d, done, err := c.s.frameDoc(ctx, c.ctx, c.t, f)
		if err != nil {
			continue
		}
		ectx, cancel := context.WithTimeout(d.ctx, 3*time.Second)
		d.ctx = ectx
		h, err := evalDoc[waitHit](d, expr)
		cancel()
		done()
		if err == nil && h.OK {
			hits, urls = append(hits, f), append(urls, h.URL)
		}
	}
	if len(hits) == 0 {
		return nil
	}
	for i, why := range c.framesWithheld(topURL, hits, urls) {
		if why == "" {
			f := *hits[i]
			f.url = urls[i]
			return &f
		}
	}
	return nil
}

type noArgs struct{}

// toolTabs lists the tabs; a caller sharing the browser with others (mcp
// serve's sessions) does not see the tabs they opened: their addresses and
// titles are their work.
func toolTabs(ctx context.Context, c *call, a noArgs) (*Result, error) {
	tabs := c.s.listFresh(ctx)
	if c.hidden != nil {
		tabs = slices.DeleteFunc(tabs, func(t Tab) bool { return c.hidden(t.ID) })
	}
	return &Result{Text: FormatTabs(tabs, c.s.mode)}, nil
}

// FormatTabs renders the tab list for the model and for `browser tabs`.
func FormatTabs(tabs []Tab, mode Mode) string {
	if len(tabs) == 0 {
		return "No tabs open."
	}
	var b strings.Builder
	noun := "tabs"
	if len(tabs) == 1 {
		noun = "tab"
	}
	fmt.Fprintf(&b, "%d %s (%s browser):\n", len(tabs), noun, mode)
	for _, t := range tabs {
		var flags []string
		if t.Current {
			flags = append(flags, "current")
		}
		if t.Owned {
			flags = append(flags, "agent")
		} else {
			flags = append(flags, "person's")
		}
		fmt.Fprintf(&b, "%s [%s] %q %s\n", t.ID, strings.Join(flags, ", "), t.Title, t.URL)
	}
	return strings.TrimRight(b.String(), "\n")
}

type selectTabArgs struct {
	Tab string `json:"tab" jsonschema:"tab id, e.g. t2"`
}

func toolSelectTab(ctx context.Context, c *call, a selectTabArgs) (*Result, error) {
	t, err := c.s.selectTab(c.tab)
	if err != nil {
		return failErr(err), nil
	}
	c.t = t
	return &Result{Text: "Current tab is now " + t.short + "."}, nil
}

type closeArgs struct {
	tabArg
}

func toolClose(ctx context.Context, c *call, a closeArgs) (*Result, error) {
	t, err := c.s.lookup(c.tab)
	if err != nil {
		return failErr(err), nil
	}
	if err := c.s.closeTab(ctx, t); err != nil {
		return failErr(err), nil
	}
	c.t = t // the result names the tab it closed
	return &Result{Text: "Closed tab " + t.short + "."}, nil
}

type evalArgs struct {
	JS string `json:"js" jsonschema:"expression or IIFE"`
	tabArg
}

func toolEval(ctx context.Context, c *call, a evalArgs) (*Result, error) {
	if strings.TrimSpace(a.JS) == "" {
		return failf("browser_eval needs js"), nil
	}
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	v, err := eval[json.RawMessage](pctx, a.JS)
	if err != nil {
		if errors.Is(err, chromedp.ErrJSUndefined) {
			return &Result{Text: "undefined"}, nil
		}
		return jsFail(err)
	}
	out := string(v)
	if len(out) > 20000 {
		out = out[:20000] + "\n[result cut at 20000 characters]"
	}
	return &Result{Text: out}, nil
}

// tabIDs returns the set of tab ids now open.
func (s *session) tabIDs() map[string]bool {
	m := map[string]bool{}
	for _, t := range s.list() {
		m[t.ID] = true
	}
	return m
}

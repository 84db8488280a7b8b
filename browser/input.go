package browser

import (
	"context"
	"fmt"
	"github.com/chromedp/cdproto/target"
	"strings"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// gesture is how a pointer action presses: which button, how many clicks,
// which keys are held.
type gesture struct {
	button  input.MouseButton
	buttons int64 // the pressed-buttons bit field of the button
	count   int
	mods    int64
	words   string // " (right button, double, Shift)" for the result; "" for a plain click
}

var mouseButtons = map[string]struct {
	b    input.MouseButton
	bits int64
}{
	"": {input.MouseButtonLeft, 1}, "left": {input.MouseButtonLeft, 1},
	"right": {input.MouseButtonRight, 2}, "middle": {input.MouseButtonMiddle, 4},
}

// modBits are the CDP modifier bits by the names browser_press also takes.
var modBits = map[string]int64{"alt": 1, "control": 2, "ctrl": 2, "meta": 4, "cmd": 4, "shift": 8}

// gestureOf reads button, count and modifiers.
func gestureOf(a clickArgs) (gesture, error) {
	btn, ok := mouseButtons[strings.ToLower(a.Button)]
	if !ok {
		return gesture{}, fmt.Errorf("button must be left, right or middle, not %q", a.Button)
	}
	g := gesture{button: btn.b, buttons: btn.bits, count: max(a.Count, 1)}
	if a.Count < 0 || a.Count > 3 {
		return gesture{}, fmt.Errorf("count must be 1, 2 (double click) or 3, not %d", a.Count)
	}
	var said []string
	if a.Button != "" && btn.b != input.MouseButtonLeft {
		said = append(said, string(btn.b)+" button")
	}
	if g.count == 2 {
		said = append(said, "double")
	} else if g.count == 3 {
		said = append(said, "triple")
	}
	for _, m := range a.Modifiers {
		bit, ok := modBits[strings.ToLower(m)]
		if !ok {
			return gesture{}, fmt.Errorf("unknown modifier %q (use Control, Shift, Alt, Meta)", m)
		}
		g.mods |= bit
		said = append(said, m)
	}
	if len(said) > 0 {
		g.words = " (" + strings.Join(said, ", ") + ")"
	}
	return g, nil
}

func mouseEvent(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, g gesture, button input.MouseButton, buttons int64, count int) error {
	_, err := chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
		Type: typ, X: x, Y: y, Modifiers: g.mods, Button: button, Buttons: buttons, ClickCount: int64(count)})
	return err
}

// press clicks at (x, y) as g says: the pointer moves there, then each
// click presses and releases with its running count, as a person's double
// click does (click, click, dblclick).
func press(ctx context.Context, x, y float64, g gesture) error {
	if err := mouseEvent(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, g, input.MouseButtonNone, 0, 0); err != nil {
		return err
	}
	for i := 1; i <= g.count; i++ {
		if err := mouseEvent(ctx, input.DispatchMouseEventTypeMousePressed, x, y, g, g.button, g.buttons, i); err != nil {
			return err
		}
		if err := mouseEvent(ctx, input.DispatchMouseEventTypeMouseReleased, x, y, g, g.button, 0, i); err != nil {
			return err
		}
	}
	return nil
}

// pointAt scrolls the element behind ref into view (in a frame: the frame
// first, then the element in it) and returns the point in the tab's
// viewport to act on, or the failure to report.
func (c *call) pointAt(ctx, pctx context.Context, ref string) (point, *Result, error) {
	d, r := c.refDoc(ctx, ref)
	if r != nil {
		return point{}, r, nil
	}
	if d.frame != nil {
		if _, _, err := c.s.frameOffset(ctx, pctx, c.t, d.frame, true); err != nil {
			return point{}, failErr(err), nil
		}
	}
	p, err := onRef[point](d, ref, pointJS)
	if err != nil {
		r, err := jsFail(err)
		return point{}, r, err
	}
	if p.Err != "" {
		return point{}, failf("%s %s", ref, p.Err).say("%s %s", ref, jsWords.Replace(p.Err)), nil
	}
	if d.frame != nil {
		// The mouse is the tab's: the point in its viewport.
		x, y, err := c.s.frameOffset(ctx, pctx, c.t, d.frame, false)
		if err != nil {
			return point{}, failErr(err), nil
		}
		p.X, p.Y = p.X+x, p.Y+y
	}
	return p, nil, nil
}

type clickArgs struct {
	refArg
	Button    string   `json:"button,omitempty" jsonschema:"left|right|middle"`
	Count     int      `json:"count,omitempty" jsonschema:"2: double click"`
	Modifiers []string `json:"modifiers,omitempty" jsonschema:"keys held: Control, Shift, Alt, Meta"`
	tabArg
}

func toolClick(ctx context.Context, c *call, a clickArgs) (*Result, error) {
	g, err := gestureOf(a)
	if err != nil {
		return failErr(err), nil
	}
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	p, r, err := c.pointAt(ctx, pctx, a.Ref)
	if r != nil || err != nil {
		return r, err
	}
	before := c.beforeAction()
	done := c.catchChooser(pctx, a.Ref)
	if err := press(pctx, p.X, p.Y, g); err != nil {
		done(0)
		return jsFail(err)
	}
	res, err := c.afterAction(pctx, before, "Clicked "+a.Ref+g.words+" in")
	if fc, _ := done(0); fc != nil && res != nil { // settled: a chooser has come
		res.addLine(chooserNote(a.Ref, fc), chooserNote(a.Ref, fc))
	}
	return res, err
}

type hoverArgs struct {
	refArg
	tabArg
}

// toolHover moves the pointer onto the element and leaves it there, so
// menus and tooltips that open on hover stay open for the next call.
func toolHover(ctx context.Context, c *call, a hoverArgs) (*Result, error) {
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	p, r, err := c.pointAt(ctx, pctx, a.Ref)
	if r != nil || err != nil {
		return r, err
	}
	if err := mouseEvent(pctx, input.DispatchMouseEventTypeMouseMoved, p.X, p.Y, gesture{}, input.MouseButtonNone, 0, 0); err != nil {
		return jsFail(err)
	}
	time.Sleep(150 * time.Millisecond) // hover menus open on a transition or a timer
	if model, person := c.changes(pctx); model != "" {
		// what it opened, against the last snapshot
		r := &Result{Text: "Hovered over " + a.Ref + "."}
		r.addLine(model, person)
		return r, nil
	}
	return &Result{Text: "Hovered over " + a.Ref + "; what it opened shows in a new browser_snapshot."}, nil
}

// checkStateJS reads whether el (or the control its label names) is
// checked: a checkbox, radio, or an ARIA checkbox/switch/radio.
const checkStateJS = `const t = (el.tagName === 'LABEL' && el.control) ? el.control : el;
if (t.tagName === 'INPUT' && (t.type === 'checkbox' || t.type === 'radio')) return {state: t.checked ? 'on' : 'off', kind: t.type};
const a = t.getAttribute && t.getAttribute('aria-checked');
if (a === 'true' || a === 'false' || a === 'mixed') return {state: a === 'true' ? 'on' : (a === 'mixed' ? 'mixed' : 'off'), kind: t.getAttribute('role') || 'checkbox'};
const p = t.getAttribute && t.getAttribute('aria-pressed');
if (p === 'true' || p === 'false') return {state: p === 'true' ? 'on' : 'off', kind: 'toggle button'};
return {state: '', kind: t.tagName.toLowerCase()};`

type checkState struct{ State, Kind string }

type checkArgs struct {
	refArg
	Checked *bool `json:"checked,omitempty" jsonschema:"false to uncheck"`
	tabArg
}

// toolCheck sets a checkbox, radio or switch to checked (default) or
// unchecked by clicking it as a person would, and says what state it is in
// afterwards, read from the page.
func toolCheck(ctx context.Context, c *call, a checkArgs) (*Result, error) {
	want := a.Checked == nil || *a.Checked
	wantS, word := "on", "checked"
	if !want {
		wantS, word = "off", "unchecked"
	}
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	d, r := c.refDoc(ctx, a.Ref)
	if r != nil {
		return r, nil
	}
	st, err := onRef[checkState](d, a.Ref, checkStateJS)
	if err != nil {
		return jsFail(err)
	}
	if st.State == "" {
		return failf("%s is a <%s>, not a checkbox, radio or switch: use browser_click", a.Ref, st.Kind), nil
	}
	if st.State == wantS {
		return &Result{Text: fmt.Sprintf("%s (%s) was already %s; nothing was done.", a.Ref, st.Kind, word)}, nil
	}
	if !want && st.Kind == "radio" {
		return failf("%s is a radio button: it is unchecked by checking another one of its group", a.Ref), nil
	}
	p, r, err := c.pointAt(ctx, pctx, a.Ref)
	if r != nil || err != nil {
		return r, err
	}
	if err := press(pctx, p.X, p.Y, gesture{button: input.MouseButtonLeft, buttons: 1, count: 1}); err != nil {
		return jsFail(err)
	}
	time.Sleep(100 * time.Millisecond) // a page may set the state in a handler that runs later
	after, err := onRef[checkState](d, a.Ref, checkStateJS)
	if err != nil {
		return jsFail(err)
	}
	if after.State != wantS {
		return failf("clicked %s (%s) but it is still %s: the page did not let it change", a.Ref, st.Kind, stateWord(after.State)), nil
	}
	return c.withChanges(pctx, &Result{Text: fmt.Sprintf("Clicked %s (%s): it is %s now.", a.Ref, st.Kind, word)}), nil
}

func stateWord(s string) string {
	switch s {
	case "on":
		return "checked"
	case "mixed":
		return "partly checked"
	}
	return "unchecked"
}

// catchChooser makes a file chooser the next input opens come to us
// instead of the screen — one the tab's own documents open, and one the
// out-of-process frame ref is in opens (its chooser is that frame's
// target's: the tab's events never show it); done, called once the input
// has settled (afterAction: the page handled it), stops that and returns
// the chooser that opened and the target it opened in, nil when none did;
// a frame's chooser is given up to wait more to come, as its events come
// apart from the tab's. It is recorded in the tab for browser_upload.
func (c *call) catchChooser(ctx context.Context, ref string) func(wait time.Duration) (*page.EventFileChooserOpened, target.ID) {
	ch, stop := c.t.events.watch(is[*page.EventFileChooserOpened])
	c.t.dmu.Lock()
	always := c.t.choosers
	c.t.dmu.Unlock()
	var err error
	if !always {
		_, err = chromedp.Call(ctx, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true})
	}
	frame := c.frameChooser(ref)
	return func(wait time.Duration) (*page.EventFileChooserOpened, target.ID) {
		defer stop()
		if fc, in := frame(wait); fc != nil {
			return fc, in
		}
		if err != nil {
			return nil, ""
		}
		var fc *page.EventFileChooserOpened
		select { // the input settled (afterAction): a chooser it opened has come
		case ev := <-ch:
			fc = ev.(*page.EventFileChooserOpened)
			c.t.setChooser(fc, c.t.id, ref)
		default:
		}
		if always {
			return fc, c.t.id
		}
		// Off again at once: in the person's tab a chooser they open
		// themselves must show.
		off, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		chromedp.Call(off, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: false})
		return fc, c.t.id
	}
}

// frameChooserWait is how long a click in an out-of-process frame waits,
// after the frame answered, for the event of a chooser it opened.
const frameChooserWait = 50 * time.Millisecond

// frameChooser catches a file chooser the out-of-process frame ref is in
// opens, as catchChooser does the tab's; its done returns nil where ref
// is in no such frame, or no chooser opened there.
func (c *call) frameChooser(ref string) func(wait time.Duration) (*page.EventFileChooserOpened, target.ID) {
	none := func(time.Duration) (*page.EventFileChooserOpened, target.ID) { return nil, "" }
	f := c.t.frameByKey(RefFrame(ref))
	if ref == "" || f == nil || f.target == c.t.id {
		return none
	}
	fctx, _, release, err := c.s.targetCtx(c.ctx, c.ctx, c.t, f.target)
	if err != nil {
		return none
	}
	ch := make(chan *page.EventFileChooserOpened, 1)
	lctx, cancel := context.WithCancel(fctx)
	if err := chromedp.Listen(lctx, func(ev any) {
		if e, ok := ev.(*page.EventFileChooserOpened); ok {
			select {
			case ch <- e:
			default:
			}
		}
	}); err != nil {
		cancel()
		release()
		return none
	}
	if _, err := chromedp.Call(fctx, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true}); err != nil {
		cancel()
		release()
		return none
	}
	return func(wait time.Duration) (*page.EventFileChooserOpened, target.ID) {
		defer release()
		defer cancel()
		// The frame's renderer ran the input's handlers before it answers
		// this; its chooser's event comes apart from the answer, soon.
		rctx, rcancel := context.WithTimeout(fctx, time.Second)
		chromedp.Call(rctx, runtime.Evaluate, runtime.EvaluateParams{Expression: "0"})
		rcancel()
		timer := time.NewTimer(max(wait, frameChooserWait))
		defer timer.Stop()
		var fc *page.EventFileChooserOpened
		select {
		case fc = <-ch:
			c.t.setChooser(fc, f.target, ref)
		case <-timer.C:
		}
		// Off again at once, as in the tab: a chooser the person opens
		// there must show.
		off, ocancel := context.WithTimeout(context.WithoutCancel(fctx), 2*time.Second)
		defer ocancel()
		chromedp.Call(off, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: false})
		if fc == nil {
			return nil, ""
		}
		return fc, f.target
	}
}

func chooserNote(ref string, fc *page.EventFileChooserOpened) string {
	n := "a file"
	if fc.Mode == page.FileChooserOpenedModeSelectMultiple {
		n = "files"
	}
	return fmt.Sprintf("A file chooser opened: browser_upload ref=%s paths=[...] chooses %s for it.", ref, n)
}

package browser

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// A drag is done the way the page listens for it. With drag interception
// on, the mouse presses on the source and moves; if that starts an HTML5
// drag (a draggable element: the page got dragstart), Chromium hands us
// the drag's data instead of starting an OS drag, and dragenter, dragover
// and drop are dispatched at the target with that data (a synthetic mouse
// drag alone never fires drop). If it starts none, it is a plain mouse
// drag (mousedown, mousemove, mouseup), which sortable lists and sliders
// listen for.

// dropWatchJS records, in the capturing phase so no page handler can hide
// it, the drop event the page receives next.
const dropWatchJS = `(function(){ const k = '__browseragent_drop';
if (!(k in window)) addEventListener('drop', e => { window[k] = {tag: e.target.tagName.toLowerCase(), id: e.target.id || ''} }, true);
window[k] = null;
return true; })()`

type dropSeen struct{ Tag, ID string }

// refRE is a snapshot ref.
var refPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(f[0-9]+)?e[0-9]+$`) })

// textTargetJS finds the innermost visible element whose own text is the
// given text (case and spacing aside), else the innermost that contains
// it, and returns a ref for it (refs.js resolves it like any other).
const textTargetJS = `(function(want){
const norm = s => (s || '').replace(/\s+/g, ' ').trim().toLowerCase(), w = norm(want);
let exact = null, part = null;
for (const el of document.body.querySelectorAll('*')) {
  if (el.checkVisibility && !el.checkVisibility()) continue;
  const own = norm(Array.from(el.childNodes).filter(n => n.nodeType === 3).map(n => n.data).join(' '));
  if (own === w) exact = el; else if (!part && own.includes(w)) part = el;
}
const el = exact || part;
if (!el) throw new Error('no element shows the text ' + JSON.stringify(want) + ': give to as a ref from browser_snapshot or the drop zone\'s visible text');
const st = window['__browseragent'];
let id = st.ids.get(el);
if (!id) { id = 'e' + (++st.n); st.ids.set(el, id); }
st.refs.set(id, new WeakRef(el));
return id;
})(%s)`

// dragPoints scrolls both elements into view (the target first, then the
// source) and returns where each is.
func (c *call) dragPoints(ctx, pctx context.Context, a *dragArgs) (from, to point, r *Result, err error) {
	if !refPattern().MatchString(a.To) {
		// A drop zone is often a plain box the snapshot gives no ref (a
		// board's column): it is named by its visible text instead, and
		// given a ref here.
		ref, err := eval[string](pctx, fmt.Sprintf(textTargetJS, jsArg(a.To)))
		if err != nil {
			r, err := jsFail(err)
			return from, to, r, err
		}
		if n, err := strconv.Atoi(ref[1:]); err == nil {
			c.t.noteRefs(n)
		}
		a.To = ref
	}
	if r, err := c.scrollNear(ctx, pctx, a.To); r != nil || err != nil {
		return from, to, r, err
	}
	if from, r, err = c.pointAt(ctx, pctx, a.Ref); r != nil || err != nil {
		return from, to, r, err
	}
	d, r := c.refDoc(ctx, a.To)
	if r != nil {
		return from, to, r, nil
	}
	to, err = onRef[point](d, a.To, `const r = el.getBoundingClientRect();
if (r.width < 1 || r.height < 1) return {err: 'is not visible (zero size): it may be hidden or collapsed'};
return {x: r.left + r.width / 2, y: r.top + r.height / 2};`)
	if err != nil {
		r, err := jsFail(err)
		return from, to, r, err
	}
	if d.frame != nil {
		x, y, err := c.s.frameOffset(ctx, pctx, c.t, d.frame, false)
		if err != nil {
			return from, to, failErr(err), nil
		}
		to.X, to.Y = to.X+x, to.Y+y
	}
	if to.Err == "" {
		to.Err, err = eval[string](pctx, fmt.Sprintf(`(%v < 0 || %v > innerHeight || %v < 0 || %v > innerWidth) ? 'is not in view together with the dragged element: scroll so both show, or drag in steps' : ''`, to.Y, to.Y, to.X, to.X))
		if err != nil {
			r, err := jsFail(err)
			return from, to, r, err
		}
	}
	if to.Err != "" {
		return from, to, failf("%s %s", a.onto, to.Err), nil
	}
	return from, to, nil, nil
}

// scrollNear scrolls the element behind ref into view as little as can be.
func (c *call) scrollNear(ctx, pctx context.Context, ref string) (*Result, error) {
	d, r := c.refDoc(ctx, ref)
	if r != nil {
		return r, nil
	}
	if d.frame != nil {
		if _, _, err := c.s.frameOffset(ctx, pctx, c.t, d.frame, true); err != nil {
			return failErr(err), nil
		}
	}
	if _, err := onRef[bool](d, ref, `el.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'}); return true;`); err != nil {
		return jsFail(err)
	}
	return nil, nil
}

type dragArgs struct {
	refArg
	To string `json:"to" jsonschema:"ref, or the drop zone's visible text"`
	tabArg
	// onto names the target as the caller did: its ref, or its text in
	// quotes when it was named by its text (the ref given to it then is
	// in no snapshot the caller saw).
	onto string
}

func toolDrag(ctx context.Context, c *call, a dragArgs) (*Result, error) {
	if a.Ref == "" || a.To == "" {
		return failf("browser_drag needs ref (what to drag) and to (where to drop it)"), nil
	}
	a.onto = a.To
	if !refPattern().MatchString(a.To) {
		a.onto = strconv.Quote(a.To)
	}
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	from, to, r, err := c.dragPoints(ctx, pctx, &a)
	if r != nil || err != nil {
		return r, err
	}
	if _, err := eval[bool](pctx, dropWatchJS); err != nil {
		return jsFail(err)
	}
	drags, stop := c.t.events.watch(is[*input.EventDragIntercepted])
	defer stop()
	if _, err := chromedp.Call(pctx, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: true}); err != nil {
		return jsFail(err)
	}
	defer func() {
		off, cancel := context.WithTimeout(context.WithoutCancel(pctx), 2*time.Second)
		defer cancel()
		chromedp.Call(off, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: false})
	}()
	before := c.beforeAction()
	g := gesture{button: input.MouseButtonLeft, buttons: 1}
	if err := mouseEvent(pctx, input.DispatchMouseEventTypeMouseMoved, from.X, from.Y, g, input.MouseButtonNone, 0, 0); err != nil {
		return jsFail(err)
	}
	if err := mouseEvent(pctx, input.DispatchMouseEventTypeMousePressed, from.X, from.Y, g, g.button, 1, 1); err != nil {
		return jsFail(err)
	}
	// Move in steps, as a hand does: pages start a drag past a few pixels.
	var data *input.DragData
	for i := 1; i <= 5 && data == nil; i++ {
		x, y := from.X+(to.X-from.X)*float64(i)/5, from.Y+(to.Y-from.Y)*float64(i)/5
		if err := mouseEvent(pctx, input.DispatchMouseEventTypeMouseMoved, x, y, g, g.button, 1, 0); err != nil {
			return jsFail(err)
		}
		if ev := waitEvent(pctx, drags, 30*time.Millisecond); ev != nil {
			data = ev.(*input.EventDragIntercepted).Data
		}
	}
	if data == nil {
		if err := mouseEvent(pctx, input.DispatchMouseEventTypeMouseReleased, to.X, to.Y, g, g.button, 0, 1); err != nil {
			return jsFail(err)
		}
		return c.afterAction(pctx, before, fmt.Sprintf("Dragged %s to %s with the mouse (it is not an HTML5 draggable, so no drop event is involved); now in", a.Ref, a.onto))
	}
	for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
		if _, err := chromedp.Call(pctx, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: to.X, Y: to.Y, Data: data}); err != nil {
			return jsFail(err)
		}
	}
	if err := mouseEvent(pctx, input.DispatchMouseEventTypeMouseReleased, to.X, to.Y, g, g.button, 0, 1); err != nil {
		return jsFail(err)
	}
	seen, err := eval[*dropSeen](pctx, `window['__browseragent_drop'] || null`)
	if err != nil {
		return jsFail(err)
	}
	if seen == nil {
		return failf("dragged %s over %s, but it did not take the drop (no drop event: it is not a drop zone for this item)", a.Ref, a.onto), nil
	}
	return c.afterAction(pctx, before, fmt.Sprintf("Dragged %s onto %s (HTML5 drag and drop: the page received the drop); now in", a.Ref, a.onto))
}

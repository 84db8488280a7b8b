package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A docFrame is a frame of a tab whose document the snapshot outlines: an
// iframe of the page (same-origin or not) or of another frame. Its key (f1,
// f2, …) prefixes the refs of its elements (f1e7), so a ref says which
// document it names; keys stay the same for a frame as long as the tab
// lives, and ref numbers never repeat within a tab, so a ref of a frame's
// old document never names an element of its new one.
type docFrame struct {
	key string
	id  cdp.FrameID
	url string // as the frame tree or target list gave it when listed
	// target runs the frame's document: the tab's own target, or an
	// out-of-process frame's (a cross-site iframe), whose id is the id of
	// its root frame. owner holds the frame's <iframe> element: the
	// target of its parent frame.
	target, owner target.ID
}

// worlds are the main-world execution contexts of one target's frames, as
// the target announced them (Runtime.executionContextCreated with
// isDefault): where a frame's snapshot runs, so it shares its refs with
// later calls. It also keeps the isolated worlds named secretWorld that
// the secret-field check made, one per document, so the check need not
// make one on every call; a world ends with its document (the context's
// destroyed event). Safe for concurrent use.
type worlds struct {
	mu  sync.Mutex
	ids map[cdp.FrameID]runtime.ExecutionContextID
	uid map[string]cdp.FrameID
	// secret: the secretWorld context of each frame's document, and by
	// its unique id, the frame.
	secret    map[cdp.FrameID]isoWorld
	secretUID map[string]cdp.FrameID
}

// isoWorld is an isolated world's context: its id, and its system-unique
// id, which names no other context even across renderer processes.
type isoWorld struct {
	id  runtime.ExecutionContextID
	uid string
}

func newWorlds() *worlds {
	return &worlds{ids: map[cdp.FrameID]runtime.ExecutionContextID{}, uid: map[string]cdp.FrameID{},
		secret: map[cdp.FrameID]isoWorld{}, secretUID: map[string]cdp.FrameID{}}
}

// note keeps the worlds current from a target's events; it runs in the
// target's read loop.
func (w *worlds) note(ev any) {
	switch e := ev.(type) {
	case *runtime.EventExecutionContextCreated:
		var aux struct {
			FrameID   cdp.FrameID `json:"frameId"`
			IsDefault bool        `json:"isDefault"`
			Type      string      `json:"type"`
		}
		if e.Context == nil || json.Unmarshal(e.Context.AuxData, &aux) != nil || aux.FrameID == "" {
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		switch {
		case aux.IsDefault:
			w.ids[aux.FrameID], w.uid[e.Context.UniqueID] = e.Context.ID, aux.FrameID
		case aux.Type == "isolated" && e.Context.Name == secretWorld:
			w.secret[aux.FrameID] = isoWorld{id: e.Context.ID, uid: e.Context.UniqueID}
			w.secretUID[e.Context.UniqueID] = aux.FrameID
		}
	case *runtime.EventExecutionContextDestroyed:
		w.mu.Lock()
		if f, ok := w.uid[e.ExecutionContextUniqueID]; ok {
			delete(w.ids, f)
			delete(w.uid, e.ExecutionContextUniqueID)
		}
		if f, ok := w.secretUID[e.ExecutionContextUniqueID]; ok {
			delete(w.secret, f)
			delete(w.secretUID, e.ExecutionContextUniqueID)
		}
		w.mu.Unlock()
	case *runtime.EventExecutionContextsCleared:
		w.mu.Lock()
		clear(w.ids)
		clear(w.uid)
		clear(w.secret)
		clear(w.secretUID)
		w.mu.Unlock()
	}
}

// secretOf returns the frame's secretWorld context as its events
// announced it; ok is false when it has none now.
func (w *worlds) secretOf(f cdp.FrameID) (isoWorld, bool) {
	if w == nil {
		return isoWorld{}, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	iw, ok := w.secret[f]
	return iw, ok
}

// secretByID returns the unique id of the secretWorld context id, ""
// when its event has not been seen.
func (w *worlds) secretByID(id runtime.ExecutionContextID) string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, iw := range w.secret {
		if iw.id == id {
			return iw.uid
		}
	}
	return ""
}

// of returns the frame's main world, 0 when it has none (yet).
func (w *worlds) of(f cdp.FrameID) runtime.ExecutionContextID {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ids[f]
}

// frameTarget is our attachment to an out-of-process frame of a tab, made
// on first use and ended with the tab's attachment; it detaches on
// cancel, so dropping it never closes the frame.
type frameTarget struct {
	ctx    context.Context
	cancel context.CancelFunc
	worlds *worlds
}

// frameRefRE is a ref of an element inside a frame: the frame's key and
// the element's number.
var frameRefRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(f\d+)e\d+$`) })

// RefFrame returns the key of the frame a snapshot ref names an element
// of (f2 for f2e7), "" for an element of the tab's top document.
func RefFrame(ref string) string {
	if m := frameRefRE().FindStringSubmatch(ref); m != nil {
		return m[1]
	}
	return ""
}

// frameFor returns the tab's record of the frame id, made with the next
// key when it is new, now run by target and owned by owner.
func (t *tab) frameFor(id cdp.FrameID, url string, run, owner target.ID) *docFrame {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	if t.frames == nil {
		t.frames, t.frameKeys = map[string]*docFrame{}, map[cdp.FrameID]string{}
	}
	key, ok := t.frameKeys[id]
	if !ok {
		key = "f" + strconv.Itoa(len(t.frameKeys)+1)
		t.frameKeys[id] = key
	}
	f := &docFrame{key: key, id: id, url: url, target: run, owner: owner}
	t.frames[key] = f
	return f
}

// frameByKey returns the tab's frame of key as the last snapshot found it.
func (t *tab) frameByKey(key string) *docFrame {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	return t.frames[key]
}

// docCtx is where a document of a tab is asked: a chromedp context of the
// target that runs it, and its main world there (0: the target's main
// frame's). frame is nil for the top document.
type docCtx struct {
	ctx   context.Context
	exec  runtime.ExecutionContextID
	frame *docFrame
	// worlds are the contexts of the target that runs the document.
	worlds *worlds
	// gesture runs scripts as if the person acted (user activation): a
	// frame's field takes the focus only so.
	gesture bool
}

func (d docCtx) opts() []chromedp.EvaluateOption {
	opts := []chromedp.EvaluateOption{chromedp.EvalAwaitPromise}
	if d.exec != 0 || d.gesture {
		opts = append(opts, func(p *runtime.EvaluateParams) {
			p.ContextID = d.exec
			if d.gesture {
				p.UserGesture = new(true)
			}
		})
	}
	return opts
}

// evalDoc runs a JavaScript expression in the document and decodes its
// value.
func evalDoc[T any](d docCtx, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(d.ctx, evalTimeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, d.opts()...))
}

// targetCtx returns a chromedp context for target id of tab t — the tab's
// own (tctx, the tab's attachment bound to the call) or an out-of-process
// frame's, attached on first use — with the main worlds of its frames.
// The context ends with ctx; call release when done.
func (s *session) targetCtx(ctx, tctx context.Context, t *tab, id target.ID) (context.Context, *worlds, func(), error) {
	if id == t.id {
		t.dmu.Lock()
		w := t.worlds
		t.dmu.Unlock()
		return tctx, w, func() {}, nil
	}
	ft, err := s.attachFrame(t, id)
	if err != nil {
		return nil, nil, nil, err
	}
	cctx, cancel := context.WithCancel(ft.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return cctx, ft.worlds, func() { stop(); cancel() }, nil
}

// attachFrame returns our attachment to the tab's out-of-process frame id,
// attaching on first use, as a child of the tab's attachment.
func (s *session) attachFrame(t *tab, id target.ID) (*frameTarget, error) {
	s.mu.Lock()
	parent := t.ctx
	ft := t.oopifs[id]
	s.mu.Unlock()
	if parent == nil || parent.Err() != nil {
		return nil, fmt.Errorf("tab %s is not attached", t.short)
	}
	if ft != nil && ft.ctx.Err() == nil {
		return ft, nil
	}
	w := newWorlds()
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel(),
		chromedp.WithListener(w.note))
	errc := make(chan error, 1)
	go func() { errc <- chromedp.Do(ctx) }()
	select {
	case err := <-errc:
		if err != nil {
			cancel()
			return nil, fmt.Errorf("attach to a frame of tab %s: %w", t.short, err)
		}
	case <-time.After(15 * time.Second):
		cancel()
		return nil, fmt.Errorf("a frame of tab %s does not respond", t.short)
	}
	quietDomains(ctx)
	ft = &frameTarget{ctx: ctx, cancel: cancel, worlds: w}
	s.mu.Lock()
	if t.oopifs == nil {
		t.oopifs = map[target.ID]*frameTarget{}
	}
	t.oopifs[id] = ft
	s.mu.Unlock()
	return ft, nil
}

// frameDoc returns where the document of frame f is asked, bound to ctx.
func (s *session) frameDoc(ctx, tctx context.Context, t *tab, f *docFrame) (docCtx, func(), error) {
	fctx, w, release, err := s.targetCtx(ctx, tctx, t, f.target)
	if err != nil {
		return docCtx{}, nil, err
	}
	exec := w.of(f.id)
	if exec == 0 && f.target == t.id {
		release()
		return docCtx{}, nil, fmt.Errorf("frame %s has no document now", f.key)
	}
	return docCtx{ctx: fctx, exec: exec, frame: f, worlds: w}, release, nil
}

// refDoc returns the document a ref's element is in: the top document
// (tctx) for e7, the frame's for f2e7.
func (s *session) refDoc(ctx, tctx context.Context, t *tab, ref string) (docCtx, func(), error) {
	key := RefFrame(ref)
	if key == "" {
		t.dmu.Lock()
		w := t.worlds
		t.dmu.Unlock()
		return docCtx{ctx: tctx, worlds: w}, func() {}, nil
	}
	f := t.frameByKey(key)
	if f == nil {
		return docCtx{}, nil, fmt.Errorf("ref %s names frame %s, which no snapshot of this tab showed: take a new browser_snapshot", ref, key)
	}
	d, release, err := s.frameDoc(ctx, tctx, t, f)
	if err != nil {
		return docCtx{}, nil, fmt.Errorf("ref %s is not on the page any more (%v): take a new browser_snapshot", ref, err)
	}
	return d, release, nil
}

// listFrames finds every frame below the tab's top document — frames of
// the tab's own process and out-of-process ones with the frames inside
// them — parents before children, and marks each one's <iframe> element
// with its key, for the snapshot of its parent to place it.
func (s *session) listFrames(ctx, tctx context.Context, t *tab) ([]*docFrame, func(), error) {
	var frames []*docFrame
	var releases []func()
	release := func() {
		for _, r := range releases {
			r()
		}
	}
	none, gen := t.framesKnownNone()
	if none {
		return nil, release, nil
	}
	var walk func(ft *page.FrameTree, run target.ID)
	walk = func(ft *page.FrameTree, run target.ID) {
		for _, c := range ft.ChildFrames {
			if c.Frame == nil || isPDFViewer(c.Frame.URL) {
				continue
			}
			frames = append(frames, t.frameFor(c.Frame.ID, c.Frame.URL+c.Frame.URLFragment, run, run))
			walk(c, run)
		}
	}
	var infos []*target.Info
	var listErr error
	listed := s.listFrameTargets(ctx, t.id, &infos, &listErr)
	tree, err := chromedp.Call(tctx, page.GetFrameTree, cdp.Empty{})
	<-listed
	if err != nil {
		return nil, release, err
	}
	walk(tree.FrameTree, t.id)
	if listErr != nil {
		return nil, release, listErr
	}
	for _, info := range infos {
		if isPDFViewer(info.URL) {
			continue
		}
		frames = append(frames, t.frameFor(cdp.FrameID(info.TargetID), info.URL, info.TargetID, info.ParentID))
		fctx, _, r, err := s.targetCtx(ctx, tctx, t, info.TargetID)
		if err != nil {
			continue // gone meanwhile, or not answering: left out
		}
		releases = append(releases, r)
		if tree, err := chromedp.Call(fctx, page.GetFrameTree, cdp.Empty{}); err == nil {
			walk(tree.FrameTree, info.TargetID)
		}
	}
	if len(frames) == 0 && len(infos) == 0 {
		t.noFrames(gen)
	}
	for _, f := range frames {
		octx, _, r, err := s.targetCtx(ctx, tctx, t, f.owner)
		if err != nil {
			continue
		}
		releases = append(releases, r)
		markOwner(octx, f)
	}
	return frames, release, nil
}

// markOwnerJS gives a frame's element its key, where the snapshot of the
// parent document finds it.
const markOwnerJS = `function(k){ Object.defineProperty(this, '__baFrameKey', {value: k, configurable: true}); }`

// markOwner marks f's <iframe> element, in the main world of the parent
// document (ctx is its target's). A frame whose element cannot be found is
// left unmarked: the snapshot leaves it out.
func markOwner(ctx context.Context, f *docFrame) {
	owner, err := chromedp.Call(ctx, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: f.id})
	if err != nil {
		return
	}
	obj, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: owner.BackendNodeID, ObjectGroup: "browseragent-frames"})
	if err != nil || obj.Object == nil {
		return
	}
	defer chromedp.Call(ctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.Object.ObjectID})
	chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: markOwnerJS,
		ObjectID: obj.Object.ObjectID, Arguments: []*runtime.CallArgument{{Value: []byte(strconv.Quote(f.key))}}})
}

// frameOffset is where the viewport of frame f starts in the tab's
// viewport: the content box of its <iframe> element in the viewport of its
// owner's main frame (which holds every frame of that process), plus where
// that main frame starts, up to the tab. With scroll, each <iframe> is
// scrolled into view instead, outermost first, and nothing is returned.
func (s *session) frameOffset(ctx, tctx context.Context, t *tab, f *docFrame, scroll bool) (x, y float64, err error) {
	var chain []*docFrame
	for cur := f; cur != nil; {
		chain = append(chain, cur)
		if cur.owner == t.id {
			break
		}
		cur = t.frameByID(cdp.FrameID(cur.owner))
		if cur == nil {
			return 0, 0, fmt.Errorf("frame %s: its parent frame is not known: take a new browser_snapshot", f.key)
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		fr := chain[i]
		octx, _, release, err := s.targetCtx(ctx, tctx, t, fr.owner)
		if err != nil {
			return 0, 0, err
		}
		ox, oy, err := ownerBox(octx, fr.id, scroll)
		release()
		if err != nil {
			return 0, 0, fmt.Errorf("frame %s: %w", fr.key, err)
		}
		x, y = x+ox, y+oy
	}
	return x, y, nil
}

// ownerBox returns the top left corner of the content box of frame id's
// element, or with scroll, scrolls it into view.
func ownerBox(ctx context.Context, id cdp.FrameID, scroll bool) (float64, float64, error) {
	owner, err := chromedp.Call(ctx, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: id})
	if err != nil {
		return 0, 0, err
	}
	if scroll {
		_, err := chromedp.Call(ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: owner.BackendNodeID})
		return 0, 0, err
	}
	box, err := chromedp.Call(ctx, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner.BackendNodeID})
	if err != nil {
		return 0, 0, err
	}
	if box.Model == nil || len(box.Model.Content) < 2 {
		return 0, 0, fmt.Errorf("its frame element has no box (hidden?)")
	}
	return box.Model.Content[0], box.Model.Content[1], nil
}

// frameByID returns the tab's frame with id, nil when no snapshot saw it.
func (t *tab) frameByID(id cdp.FrameID) *docFrame {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	if key, ok := t.frameKeys[id]; ok {
		return t.frames[key]
	}
	return nil
}

// RefFrameURL returns the live URL of the frame whose element a snapshot
// ref names (f2e7), asked from the browser now (the frame tree of the
// process that runs it), and the address its document came from when the
// tab saw it ("" unknown); inFrame is false for a ref of the top document.
// A write by such a ref is judged by this frame's page. An error means the
// frame could not be found (gone, navigated away to another process):
// callers should then judge by every frame.
func (b *Browser) RefFrameURL(ctx context.Context, tabID, ref string) (url, addr string, inFrame bool, err error) {
	key := RefFrame(ref)
	if key == "" {
		return "", "", false, nil
	}
	err = b.withTab(ctx, tabID, func(s *session, t *tab, tctx context.Context) error {
		f := t.frameByKey(key)
		if f == nil {
			return fmt.Errorf("ref %s names frame %s, which no snapshot of this tab showed", ref, key)
		}
		fctx, _, release, err := s.targetCtx(ctx, tctx, t, f.target)
		if err != nil {
			return err
		}
		defer release()
		tree, err := chromedp.Call(fctx, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return err
		}
		fr := findFrame(tree.FrameTree, f.id)
		if fr == nil {
			return fmt.Errorf("frame %s is gone", key)
		}
		url = fr.URL + fr.URLFragment
		t.dmu.Lock()
		addr = t.frameAddrs[f.id]
		t.dmu.Unlock()
		return nil
	})
	return url, addr, true, err
}

// findFrame returns the frame id in the tree, nil when it is not there.
func findFrame(ft *page.FrameTree, id cdp.FrameID) *cdp.Frame {
	if ft == nil {
		return nil
	}
	if ft.Frame != nil && ft.Frame.ID == id {
		return ft.Frame
	}
	for _, c := range ft.ChildFrames {
		if f := findFrame(c, id); f != nil {
			return f
		}
	}
	return nil
}

// FrameSource is where the content of one frame in a result came from,
// for Options.FrameWithheld: the URLs its document reports and the
// browser listed for it, and the address its document came from when the
// tab saw it ("" unknown).
type FrameSource struct {
	URLs []string
	Addr string
}

// framesWithheld says, for each of frames (whose documents report urls),
// why its content must not be shown (Options.FrameWithheld), "" where it
// may: one question about all of them, with the tab's own document (at
// topURL), in which they are, so that the result screen has nothing left
// to ask about it.
func (c *call) framesWithheld(topURL string, frames []*docFrame, urls []string) []string {
	judge := c.b.opts.FrameWithheld
	if judge == nil || len(frames) == 0 {
		return make([]string, len(frames))
	}
	src := make([]FrameSource, len(frames))
	c.t.dmu.Lock()
	top := FrameSource{URLs: []string{topURL}, Addr: c.t.documentAddr(c.s.mode)} // as the result screen asks it
	for i, f := range frames {
		src[i].Addr = c.t.frameAddrs[f.id]
		for _, u := range []string{urls[i], f.url} {
			if u != "" && !slices.Contains(src[i].URLs, u) {
				src[i].URLs = append(src[i].URLs, u)
			}
		}
	}
	c.t.dmu.Unlock()
	why := judge(c.rc, top, src)
	if len(why) != len(frames) { // nothing was said of some: none is shown
		why = make([]string, len(frames))
		for i := range why {
			why[i] = "browseragent withheld this frame: where its content came from could not be judged"
		}
	}
	return why
}

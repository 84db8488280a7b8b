package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// FrameURLs returns the live URLs of the frames below the tab's top
// document (tabID "" means the current tab): every iframe, nested ones and
// cross-site ones that run in another process too, parents before their
// children, each address once (a PDF's own URL is also its viewer's inner
// frame's). The browser is asked now, serialised with the tab's tool calls.
func (b *Browser) FrameURLs(ctx context.Context, tabID string) ([]string, error) {
	var urls []string
	var infos []*target.Info
	var listErr error
	var s *session
	err := b.withTab(ctx, tabID, func(ts *session, t *tab, pctx context.Context) error {
		s = ts
		none, gen := t.framesKnownNone()
		if none {
			return nil
		}
		listed := s.listFrameTargets(ctx, t.id, &infos, &listErr)
		res, err := chromedp.Call(pctx, page.GetFrameTree, cdp.Empty{})
		<-listed
		if err != nil {
			return err
		}
		urls = childFrameURLs(res.FrameTree, urls)
		if len(urls) == 0 && len(infos) == 0 && listErr == nil {
			t.noFrames(gen)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if listErr != nil {
		return nil, listErr
	}
	more, err := s.outOfProcessFrames(ctx, infos)
	return onceEach(append(urls, more...)), err
}

// onceEach keeps the first of each string, in order.
func onceEach(list []string) []string {
	seen := make(map[string]bool, len(list))
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// listFrameTargets lists the frame targets below the page target top
// (frameTargetInfos) into infos and err while the caller asks the tab for
// its own frames: the one question is the browser's, the other the tab's,
// so neither waits for the other. The channel closes when it is done.
func (s *session) listFrameTargets(ctx context.Context, top target.ID, infos *[]*target.Info, err *error) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		lctx, cancel := context.WithTimeout(ctx, secretAskTimeout)
		defer cancel()
		*infos, *err = s.frameTargetInfos(lctx, top)
	}()
	return done
}

// childFrameURLs appends the URLs of ft's frames below its root.
func childFrameURLs(ft *page.FrameTree, urls []string) []string {
	if ft == nil {
		return urls
	}
	for _, c := range ft.ChildFrames {
		if c.Frame != nil && !isPDFViewer(c.Frame.URL) {
			urls = append(urls, c.Frame.URL+c.Frame.URLFragment)
		}
		urls = childFrameURLs(c, urls)
	}
	return urls
}

// pdfViewerOrigin is Chromium's built-in PDF viewer, an extension frame
// inside the frame that loaded a PDF (a tab's top document, an <embed> or
// an <iframe>). What it shows is that PDF, whose URL is its parent frame's,
// which is judged in its place; web pages cannot frame the viewer itself.
const pdfViewerOrigin = "chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/"

// isPDFViewer reports whether a frame is the PDF viewer (see pdfViewerOrigin).
func isPDFViewer(u string) bool { return strings.HasPrefix(u, pdfViewerOrigin) }

// outOfProcessFrames finds, for the frames of a page that run in other
// renderer processes (cross-site iframes are targets of their own,
// children of the page or of another such frame: infos), their URLs with
// those of the frames inside each.
func (s *session) outOfProcessFrames(ctx context.Context, infos []*target.Info) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, secretAskTimeout)
	defer cancel()
	var urls []string
	for _, info := range infos {
		if !isPDFViewer(info.URL) {
			urls = append(urls, info.URL)
		}
		inner, err := s.frameTreeOf(ctx, info.TargetID)
		if err != nil {
			return nil, err
		}
		urls = childFrameURLs(inner, urls)
	}
	return urls, nil
}

// frameTargetInfos lists the frame targets below the page target top (a
// frame of the page, or of another such frame), parents first.
func (s *session) frameTargetInfos(ctx context.Context, top target.ID) ([]*target.Info, error) {
	res, err := cdp.Call(ctx, chromedp.FromContext(s.root).Browser, target.GetTargets, target.GetTargetsParams{Filter: target.Filter{{Type: "iframe"}}})
	if err != nil {
		return nil, fmt.Errorf("list frames: %w", err)
	}
	ours := map[target.ID]bool{top: true}
	var infos []*target.Info
	for added := true; added; {
		added = false
		for _, info := range res.TargetInfos {
			if info.Type != "iframe" || ours[info.TargetID] || !ours[info.ParentID] {
				continue
			}
			ours[info.TargetID], added = true, true
			infos = append(infos, info)
		}
	}
	return infos, nil
}

// frameTargets is frameTargetInfos' target ids.
func (s *session) frameTargets(ctx context.Context, top target.ID) ([]target.ID, error) {
	infos, err := s.frameTargetInfos(ctx, top)
	ids := make([]target.ID, len(infos))
	for i, info := range infos {
		ids[i] = info.TargetID
	}
	return ids, err
}

// frameTreeOf reads the frame tree of a target chromedp is not attached to.
func (s *session) frameTreeOf(ctx context.Context, id target.ID) (*page.FrameTree, error) {
	raw, err := s.openRaw(ctx, id)
	if errors.Is(err, errNoTarget) {
		return nil, nil // gone meanwhile
	}
	if err != nil {
		return nil, fmt.Errorf("frame %s: %w", id, err)
	}
	defer raw.close()
	out, err := raw.call(ctx, "Page.getFrameTree", struct{}{}, nil)
	if err != nil {
		return nil, fmt.Errorf("frame %s: %w", id, err)
	}
	var res struct {
		FrameTree *page.FrameTree `json:"frameTree"`
	}
	if err := jsonv2.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("frame %s: %w", id, err)
	}
	return res.FrameTree, nil
}

// onTab runs fn on the tab's attachment, serialised with its tool calls
// and bounded like the guard's other questions to a page.
func (b *Browser) onTab(ctx context.Context, tabID string, fn func(context.Context) error) error {
	return b.withTab(ctx, tabID, func(_ *session, _ *tab, pctx context.Context) error { return fn(pctx) })
}

// withTab is onTab that also hands fn the session and the tab.
func (b *Browser) withTab(ctx context.Context, tabID string, fn func(*session, *tab, context.Context) error) error {
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil || s.dead() {
		return errNoTab
	}
	t, err := s.lookup(tabID)
	if err != nil {
		return err
	}
	if t.isCrashed() {
		return fmt.Errorf("tab %s crashed", t.short)
	}
	t.busy.Lock()
	defer t.busy.Unlock()
	pctx, err := s.attach(t)
	if err != nil {
		return err
	}
	// Derived from the tab's context so chromedp finds the target; ended
	// with ctx, and cancelling it never closes the tab.
	cctx, cancel := context.WithTimeout(pctx, secretAskTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if err := fn(s, t, cctx); err != nil {
		return fmt.Errorf("tab %s: %w", t.short, err)
	}
	return nil
}

// frameOwnerJS tells whether an element hands input on to a frame: it is
// a frame owner (iframe, frame, object, embed, fencedframe) or holds one,
// open shadow roots included, so a click at its centre or focus inside it
// can land in the frame's document.
const frameOwnerJS = `function __baFrame(el) {
  if (!el || el.nodeType !== 1) return false;
  const sel = 'iframe, frame, object, embed, fencedframe';
  if (el.matches(sel)) return true;
  const stack = [el];
  while (stack.length) {
    const n = stack.pop();
    if (n.querySelector && n.querySelector(sel)) return true;
    for (const c of n.querySelectorAll ? n.querySelectorAll('*') : []) if (c.shadowRoot) stack.push(c.shadowRoot);
    if (n.shadowRoot) stack.push(n.shadowRoot);
  }
  return false;
}`

// focusedFrameJS tests whether the focus is inside a frame: the focused
// element (through open shadow roots) is a frame owner, so keys go to the
// frame's document.
const focusedFrameJS = `(function(){
let el = document.activeElement;
while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
return !!el && el.matches('iframe, frame, object, embed, fencedframe');
})()`

// RefInFrame reports whether the element behind a snapshot ref (ref ""
// means the focused element, where a key press lands) is or holds a frame,
// so that a click, typing or key press on it can act inside that frame's
// document rather than the one it is in. A ref of an element inside a
// frame (f2e7) is asked in that frame's document, and a caller judges its
// write by that frame first (RefFrameURL). A caller that gets true judges
// the write by the frames' URLs (FrameURLs) as well as the page's. An
// error means the page could not answer; callers should then judge by the
// frames too.
func (b *Browser) RefInFrame(ctx context.Context, tabID, ref string) (bool, error) {
	expr := focusedFrameJS
	if ref != "" {
		expr = fmt.Sprintf("(function(el){%s\nreturn __baFrame(el);})((%s)(%s))", frameOwnerJS, refsJS, jsArg(ref))
	}
	return askRef[bool](b, ctx, tabID, ref, expr)
}

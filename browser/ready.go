package browser

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// settleQuiet is how long a page must stay still to be settled: no DOM
// change and no request, as the page's own clock counts it.
const settleQuiet = 500 * time.Millisecond

// readyWorld is the isolated world the page's watch lives in: it shares
// the DOM with the page's scripts, which can neither see nor change it.
const readyWorld = "browseragent-ready"

// readyJS watches a document from its start (a new-document script of
// every tab the tools load pages in): the last time, on the page's clock,
// its DOM changed (nodes or text; attributes are styling), it loaded, it
// drew the frame after such a change, or one of its requests ended. __baSettled(quiet) resolves once the document
// is complete and none of those happened for quiet ms. The wait is a timer
// of the page's own, in the queue of the page's timers: a timer the page
// set before, due sooner, runs first (and the change it makes starts the
// wait again), however late a loaded machine runs them both.
const readyJS = `(() => {
  if (window.__baSettled) return;
  let last = performance.now(), frame = false, asked = 0;
  // The first animation frame after a change counts as a change too: a
  // page that draws on a frame (requestAnimationFrame) is then waited for
  // from that frame on, and a visible page is not settled before that
  // frame is drawn: on a loaded machine the frame after the load can come
  // later than the quiet time, and a page's own frame callback with it
  // (for at most frameWait ms: a page that never draws is not held up).
  // A hidden page draws no frames and is not held up.
  const frameWait = 5000;
  const note = () => {
    last = performance.now();
    if (!frame) { frame = true; asked = last; requestAnimationFrame(() => { frame = false; last = performance.now(); }); }
  };
  const drawing = () => frame && document.visibilityState === 'visible' && performance.now() - asked < frameWait;
  note();
  new MutationObserver(note).observe(document, {subtree: true, childList: true, characterData: true});
  addEventListener('DOMContentLoaded', note, true);
  addEventListener('load', note, true);
  const netEnd = () => {
    let t = 0;
    for (const e of performance.getEntriesByType('resource')) t = Math.max(t, e.responseEnd);
    return t;
  };
  window.__baSettled = (quiet) => new Promise(done => {
    const check = () => {
      const left = Math.max(last, netEnd()) + quiet - performance.now();
      if (document.readyState === 'complete' && left <= 0 && !drawing()) return done(true);
      setTimeout(check, Math.max(left, 25));
    };
    check();
  });
})();`

// netWatch counts a tab's requests in flight from its Network events, for
// the settle wait: a page is not settled while it still waits for data.
// A request pending longer than stuckAfter (a long poll, a stream, a
// beacon that hangs) is not waited for.
type netWatch struct {
	mu      sync.Mutex
	pending map[network.RequestID]time.Time
	gen     int // counts every start and end
}

const stuckAfter = 3 * time.Second

// note books a Network event; it runs in chromedp's read loop.
func (n *netWatch) note(ev any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		if n.pending == nil || len(n.pending) > 4096 {
			n.pending = map[network.RequestID]time.Time{}
		}
		if _, redirect := n.pending[e.RequestID]; !redirect {
			n.pending[e.RequestID] = time.Now()
		}
	case *network.EventLoadingFinished:
		delete(n.pending, e.RequestID)
	case *network.EventLoadingFailed:
		delete(n.pending, e.RequestID)
	default:
		return
	}
	n.gen++
}

// busy reports how many requests are in flight (stuck ones left out) and
// the count of starts and ends so far.
func (n *netWatch) busy() (inflight, gen int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, since := range n.pending {
		if time.Since(since) < stuckAfter {
			inflight++
		}
	}
	return inflight, n.gen
}

// isNetEvent selects the events netWatch counts, for watch.
func isNetEvent(ev any) bool {
	switch ev.(type) {
	case *network.EventRequestWillBeSent, *network.EventLoadingFinished, *network.EventLoadingFailed:
		return true
	}
	return false
}

// watchReady installs the page watch (readyJS) in the tab's isolated world
// and the input watch (inputWatchJS) in the page's own, for every
// document from now on, and in the current one, once per attachment: browser_open and browser_navigate do it before they load a
// page, so the watch sees the page from its first node.
func (s *session) watchReady(ctx context.Context, t *tab) error {
	s.mu.Lock()
	done := t.readyWatch
	s.mu.Unlock()
	if done {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := chromedp.Call(cctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: readyJS, WorldName: readyWorld, RunImmediately: new(true)}); err != nil {
		return fmt.Errorf("tab %s: watch the page: %w", t.short, err)
	}
	if _, err := chromedp.Call(cctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: inputWatchJS, RunImmediately: new(true)}); err != nil {
		return fmt.Errorf("tab %s: watch the page's input: %w", t.short, err)
	}
	s.mu.Lock()
	t.readyWatch = true
	s.mu.Unlock()
	return nil
}

// NotSettled opens browser_wait's failure when the page did not settle in
// time: a caller that only wanted the page as complete as it gets (fetch
// --render) goes on with it.
const NotSettled = "the page did not settle within"

// waitSettled is browser_wait with neither text nor selector.
func (c *call) waitSettled(ctx, pctx context.Context, timeout time.Duration) (*Result, error) {
	sctx, cancel := context.WithTimeout(pctx, timeout)
	defer cancel()
	ok, err := c.settlePage(sctx, settleQuiet)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case ok:
		return &Result{Text: "The page has settled."}, nil
	case err != nil && sctx.Err() == nil:
		return failErr(err), nil
	}
	msg := NotSettled + " " + timeout.String()
	if n, _ := c.t.net.busy(); n > 0 {
		return failf("%s: %d requests still in flight", msg, n), nil
	}
	return failf("%s: it still changes (an animation, a ticker?)", msg), nil
}

// settlePage waits until the tab's page has settled: its document complete,
// no request in flight, and neither a request ended nor its DOM changed
// for quiet (on the page's clock, see readyJS). It returns false when the
// page did not settle before ctx ended.
func (c *call) settlePage(ctx context.Context, quiet time.Duration) (bool, error) {
	if err := c.s.watchReady(ctx, c.t); err != nil {
		return false, err
	}
	events, unwatch := c.t.events.watch(isNetEvent)
	defer unwatch()
	failed := 0
	for ctx.Err() == nil {
		inflight, gen := c.t.net.busy()
		if inflight > 0 {
			// Wake on the next request's start or end; a stuck one is
			// left out once its time is up.
			waitEvent(ctx, events, stuckAfter/4)
			continue
		}
		if err := c.pageQuiet(ctx, quiet); err != nil {
			if failed++; ctx.Err() != nil || failed == 3 {
				return false, err
			}
			// The document went away under the wait (a script navigated):
			// wait again in the new one.
			waitEvent(ctx, events, 50*time.Millisecond)
			continue
		}
		failed = 0
		if now, ngen := c.t.net.busy(); now == 0 && ngen == gen {
			return true, nil
		}
	}
	return false, nil
}

// pageQuiet waits in the page's isolated world for __baSettled(quiet).
func (c *call) pageQuiet(ctx context.Context, quiet time.Duration) error {
	world, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: cdp.FrameID(c.t.id), WorldName: readyWorld})
	if err != nil {
		return err
	}
	// readyJS again: a document that began before the watch was installed
	// (the person's tab) gets it now, counting its changes from here.
	expr := fmt.Sprintf("%s\nwindow.__baSettled(%d)", readyJS, quiet.Milliseconds())
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: world.ExecutionContextID, AwaitPromise: new(true), ReturnByValue: new(true)})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("settle: %s", res.ExceptionDetails.Text)
	}
	return nil
}

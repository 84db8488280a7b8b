package browser

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/browseragent/browseragent/tools"
)

// In the person's Chrome no proxy judges a page's requests (the agent's own
// browser has one: dialproxy.go), so a click there on a link to a denied
// page's file — directly or through a redirect — downloaded it with the
// person's cookies into their Downloads, judged by nothing but the page the
// link is on. An input the agent makes there (a click, a key, a choice, a
// drag, a dialog's answer) now has the document requests it causes while
// the call runs judged as they leave: a download, a page, a frame, each
// redirect. One a deny rule names (Options.DownloadRefused) is stopped
// before it is sent, and the call's result names the rule.

// inputRequests judges one input's document requests. A request sent is
// open until its answer comes (a redirect's answer leaves it open: the
// next hop is judged too), and the input's call waits (bounded) until none
// is: a redirect that came after the interception stopped would not be
// judged.
type inputRequests struct {
	refused func(url string) string // why a request to url must not leave
	stop    func()

	mu      sync.Mutex
	pending int                      // requests paused and not judged yet
	open    map[fetch.RequestID]bool // sent, not answered yet
	why     []string                 // one per refused address
}

// openWait bounds how long an input's call waits for the answers of the
// document requests it sent.
const openWait = 5 * time.Second

// judgeInputRequests starts judging the requests of the call's tab and of
// the out-of-process frames it is attached to, in the person's Chrome; nil
// in the agent's own browser, whose proxy judges every request. Its stop
// is among the call's releases.
func (c *call) judgeInputRequests() *inputRequests {
	if c.s.mode != ModeShared || c.b.opts.DownloadRefused == nil || c.ctx == nil {
		return nil
	}
	ctxs := []context.Context{c.ctx}
	c.s.mu.Lock()
	for _, ft := range c.t.oopifs {
		if ft.ctx.Err() == nil {
			ctxs = append(ctxs, ft.ctx)
		}
	}
	c.s.mu.Unlock()
	r := &inputRequests{refused: c.downloadRefused}
	r.stop = interceptDocuments(ctxs, true, r.paused)
	c.release = append(c.release, func() {
		r.wait()
		r.stop()
	})
	return r
}

// paused judges one request as it leaves and notes its answer when it
// comes (event loop: the judging runs apart).
func (r *inputRequests) paused(ctx context.Context, e *fetch.EventRequestPaused) {
	r.mu.Lock()
	if r.open == nil {
		r.open = map[fetch.RequestID]bool{}
	}
	if e.ResponseStatusCode != 0 || e.ResponseErrorReason != "" {
		if e.ResponseStatusCode < 300 || e.ResponseStatusCode > 399 {
			delete(r.open, e.RequestID) // answered; a redirect's next hop comes
		}
		r.mu.Unlock()
		go chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
		return
	}
	delete(r.open, e.RedirectedRequestID)
	r.open[e.RequestID] = true
	r.pending++
	r.mu.Unlock()
	go func() {
		why := r.refused(e.Request.URL)
		if why != "" {
			chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		} else {
			chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.pending--
		if why != "" {
			delete(r.open, e.RequestID)
			if len(r.why) < 3 && !slices.Contains(r.why, why) {
				r.why = append(r.why, why)
			}
		}
	}()
}

// wait waits (bounded by openWait) until every request paused so far was
// judged and answered: none, nor its next hop, may be let go unjudged when
// the interception stops.
func (r *inputRequests) wait() {
	for end := time.Now().Add(openWait); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		r.mu.Lock()
		n := r.pending + len(r.open)
		r.mu.Unlock()
		if n == 0 {
			return
		}
	}
}

// refusals are the reasons of the requests refused so far, once every
// request paused so far was judged.
func (r *inputRequests) refusals() []string {
	if r == nil {
		return nil
	}
	r.wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.why...)
}

// JudgeInputRequests judges, until stop, the document requests tab tabID
// makes, as a native input's are in the person's Chrome, for an input
// another connection sends (chrome-devtools-mcp's click): one a deny rule
// names (Options.DownloadRefused, with rc) is stopped before it is sent.
// stop ends it and returns why each refused request was refused. Until
// then the tab's native calls wait, as they wait for each other: the tab
// has one switch for judging its requests, which a native input's end
// would turn off while this input's requests are on their way. In the
// agent's own browser, whose proxy judges every request, it does nothing.
func (b *Browser) JudgeInputRequests(ctx context.Context, tabID string, rc *tools.ResolvedCall) (stop func() []string) {
	none := func() []string { return nil }
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil || s.dead() || s.mode != ModeShared || b.opts.DownloadRefused == nil {
		return none
	}
	t, err := s.lookup(tabID)
	if err != nil || string(t.id) != tabID {
		return none
	}
	t.busy.Lock()
	pctx, err := s.attach(t)
	if err != nil {
		t.busy.Unlock()
		return none
	}
	cctx, cancel := context.WithCancel(pctx) // cancelling it never closes the tab
	end := context.AfterFunc(ctx, cancel)
	r := &inputRequests{refused: func(u string) string { return b.opts.DownloadRefused(rc, u) }}
	r.stop = interceptDocuments([]context.Context{cctx}, true, r.paused)
	return func() []string {
		defer t.busy.Unlock()
		why := r.refusals()
		r.stop()
		end()
		cancel()
		return why
	}
}

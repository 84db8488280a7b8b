package browser

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
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

// inputRequests judges one input's document requests.
type inputRequests struct {
	c    *call
	stop func()

	mu      sync.Mutex
	pending int      // requests paused and not judged yet
	refused []string // why, one per refused address
}

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
	r := &inputRequests{c: c}
	r.stop = interceptDocuments(ctxs, r.paused)
	c.release = append(c.release, func() {
		r.wait()
		r.stop()
	})
	return r
}

// paused judges one request (event loop: the judging runs apart).
func (r *inputRequests) paused(ctx context.Context, e *fetch.EventRequestPaused) {
	r.mu.Lock()
	r.pending++
	r.mu.Unlock()
	go func() {
		why := r.c.downloadRefused(e.Request.URL)
		if why != "" {
			chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		} else {
			chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.pending--
		if why != "" && len(r.refused) < 3 && !slices.Contains(r.refused, why) {
			r.refused = append(r.refused, why)
		}
	}()
}

// wait waits (bounded) until every request paused so far was judged: none
// may be let go unjudged when the interception stops.
func (r *inputRequests) wait() {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		r.mu.Lock()
		n := r.pending
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
	return append([]string(nil), r.refused...)
}

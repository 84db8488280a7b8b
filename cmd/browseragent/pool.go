package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/browseragent/browseragent/fetch"
)

// batchRunner is the Job of a batch: a plain guarded fetch, or a render on
// a pool of browsers (the isolated one, or each --ws-endpoint).
type batchRunner struct {
	get fetcher // plain fetch; nil when rendering

	mu  sync.Mutex
	eps []*endpoint
}

// endpoint is one browser of the pool with its own session (and so its
// own guard and tabs).
type endpoint struct {
	name     string
	r        *renderer
	inflight int
	dead     bool
	pages    int // pages rendered there
	failures int // pages that failed there, a lost browser's too
}

// errNoEndpoint fails a page when every browser of the pool is gone.
type errNoEndpoint struct{ n int }

func (e errNoEndpoint) Error() string {
	return fmt.Sprintf("no browser left to render on: all %d --ws-endpoint browsers were lost", e.n)
}
func (e errNoEndpoint) FailureKind() string { return "no-browser" }

// batchJob makes the batch's Job: a guarded fetcher, or a renderer per
// browser. done closes them.
func batchJob(ctx context.Context, f *fetchFlags) (*batchRunner, func(), error) {
	if !f.render.wanted() {
		get, done, err := guardedFetcher(ctx, f)
		if err != nil {
			return nil, nil, err
		}
		return &batchRunner{get: get}, done, nil
	}
	if !f.render.on {
		return nil, nil, exitCode(exitUsage, "--wait-for, --screenshot, --sites and --connect need --render")
	}
	if f.render.screenshot != "" {
		return nil, nil, exitCode(exitUsage, "--screenshot takes one page at a time; a batch cannot name a file per URL")
	}
	b := &batchRunner{}
	closeAll := func() {
		for _, ep := range b.eps {
			ep.r.sess.Close()
		}
	}
	ws := f.render.conn.wsEndpoints
	if len(ws) <= 1 {
		r, err := newRenderer(ctx, f, f.render.conn.target())
		if err != nil {
			return nil, nil, err
		}
		name := "local"
		if len(ws) == 1 {
			name = ws[0]
		}
		b.eps = append(b.eps, &endpoint{name: name, r: r})
		return b, closeAll, nil
	}
	for _, w := range ws {
		t := f.render.conn.target()
		t.WSEndpoint = w
		r, err := newRenderer(ctx, f, t)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		b.eps = append(b.eps, &endpoint{name: w, r: r})
	}
	return b, closeAll, nil
}

// run fetches or renders one URL. A page whose browser was lost is tried
// on another of the pool at once; that browser is not used again.
func (b *batchRunner) run(ctx context.Context, u string, _ int) (*fetch.Result, error) {
	if b.get != nil {
		return b.get(ctx, u)
	}
	for {
		ep := b.pick()
		if ep == nil {
			return nil, errNoEndpoint{len(b.eps)}
		}
		res, err := ep.r.render(ctx, u, "")
		lost := err != nil && ctx.Err() == nil && ep.r.isLost(err)
		b.release(ep, err, lost)
		if lost && len(b.eps) > 1 {
			continue
		}
		return res, err
	}
}

// pick takes the live browser with the fewest pages in flight.
func (b *batchRunner) pick() *endpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	var best *endpoint
	for _, ep := range b.eps {
		if !ep.dead && !ep.r.lost.Load() && (best == nil || ep.inflight < best.inflight) {
			best = ep
		}
	}
	if best != nil {
		best.inflight++
	}
	return best
}

func (b *batchRunner) release(ep *endpoint, err error, lost bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ep.inflight--
	ep.pages++
	if err != nil {
		ep.failures++
	}
	if lost {
		ep.dead = true
	}
}

// endpointsText says, for a pool, how each browser did: "ws://a: 40
// pages, 0 failed; ws://b: 12 pages, 3 failed (lost)". It is "" for a
// plain fetch or one browser that never failed.
func (b *batchRunner) endpointsText() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.eps) == 0 || len(b.eps) == 1 && b.eps[0].failures == 0 {
		return ""
	}
	parts := make([]string, len(b.eps))
	for i, ep := range b.eps {
		parts[i] = fmt.Sprintf("%s: %d pages, %d failed", ep.name, ep.pages, ep.failures)
		if ep.dead {
			parts[i] += " (lost)"
		}
	}
	return "browsers " + strings.Join(parts, "; ")
}

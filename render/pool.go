package render

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/fetch"
)

// Pool renders pages on a pool of browsers, each with its own session (and
// so its own guard and tabs): a page goes to the live browser with the
// fewest pages in flight, and a page whose browser was lost is rendered
// again on another at once; that browser is not used again.
type Pool struct {
	mu  sync.Mutex
	eps []*endpoint
}

// endpoint is one browser of the pool.
type endpoint struct {
	name     string
	r        *Renderer
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

// NewPool opens a Renderer per websocket endpoint, each attached to that
// browser; with none it renders on o.Target (or an isolated browser) alone.
func NewPool(ctx context.Context, o *Options, wsEndpoints []string) (*Pool, error) {
	p := &Pool{}
	if len(wsEndpoints) <= 1 {
		r, err := New(ctx, o)
		if err != nil {
			return nil, err
		}
		name := "local"
		if len(wsEndpoints) == 1 {
			name = wsEndpoints[0]
		}
		p.eps = append(p.eps, &endpoint{name: name, r: r})
		return p, nil
	}
	for _, w := range wsEndpoints {
		eo := *o
		t := browser.Target{}
		if o.Target != nil {
			t = *o.Target
		}
		t.WSEndpoint = w
		eo.Target = &t
		r, err := New(ctx, &eo)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.eps = append(p.eps, &endpoint{name: w, r: r})
	}
	return p, nil
}

// Close closes every browser's session.
func (p *Pool) Close() {
	for _, ep := range p.eps {
		ep.r.Close()
	}
}

// Render renders one URL on the pool. A page whose browser was lost is
// tried on another of the pool at once; that browser is not used again.
func (b *Pool) Render(ctx context.Context, u string) (*fetch.Result, error) {
	for {
		ep := b.pick()
		if ep == nil {
			return nil, errNoEndpoint{len(b.eps)}
		}
		res, err := ep.r.Render(ctx, u, "")
		lost := err != nil && ctx.Err() == nil && ep.r.isLost(err)
		b.release(ep, err, lost)
		if lost && len(b.eps) > 1 {
			continue
		}
		return res, err
	}
}

// pick takes the live browser with the fewest pages in flight.
func (b *Pool) pick() *endpoint {
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

func (b *Pool) release(ep *endpoint, err error, lost bool) {
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

// Summary says how each browser did: "browsers ws://a: 40 pages, 0
// failed; ws://b: 12 pages, 3 failed (lost)". It is "" for one browser
// that never failed.
func (b *Pool) Summary() string {
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

package render

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/extract"
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
	name      string
	r         *Renderer
	inflight  int
	dead      bool
	pages     int   // pages rendered there
	failures  int   // pages that failed there, a lost browser's too
	unreached error // the browser could not be attached at the start
}

// errNoEndpoint fails a page when every browser of the pool is gone.
type errNoEndpoint struct{ n int }

func (e errNoEndpoint) Error() string {
	if e.n == 1 {
		return "no browser left to render on: the browser was lost"
	}
	return fmt.Sprintf("no browser left to render on: all %d --ws-endpoint browsers were lost", e.n)
}
func (e errNoEndpoint) FailureKind() string { return "no-browser" }

// Unfinished: the page is not at fault, so a batch gives it no line and a
// resumed run (with browsers again) renders it.
func (e errNoEndpoint) Unfinished() bool { return true }

// NewPool opens a Renderer per websocket endpoint, each attached to that
// browser; with none it renders on o.Target (or an isolated browser) alone.
// Of several endpoints, those that cannot be attached are left out (see
// Unreached) as long as one can: a pool goes on without a browser lost at
// the start as it does without one lost later.
func NewPool(ctx context.Context, o *Options, wsEndpoints []string) (*Pool, error) {
	p := &Pool{}
	if len(wsEndpoints) <= 1 {
		r, err := New(ctx, o)
		if err != nil {
			return nil, err
		}
		name := "local"
		if len(wsEndpoints) == 1 {
			name = endpointName(wsEndpoints[0])
		}
		p.eps = append(p.eps, &endpoint{name: name, r: r})
		return p, nil
	}
	for i, w := range wsEndpoints {
		eo := *o
		t := browser.Target{}
		if o.Target != nil {
			t = *o.Target
		}
		t.WSEndpoint = w
		eo.Target = &t
		name := fmt.Sprintf("#%d %s", i+1, endpointName(w))
		r, err := New(ctx, &eo)
		if err != nil {
			if ctx.Err() != nil {
				p.Close()
				return nil, err
			}
			p.eps = append(p.eps, &endpoint{name: name, dead: true, unreached: err})
			continue
		}
		p.eps = append(p.eps, &endpoint{name: name, r: r})
	}
	for _, ep := range p.eps {
		if ep.r != nil {
			return p, nil
		}
	}
	err := p.eps[0].unreached
	p.Close()
	return nil, fmt.Errorf("none of the %d --ws-endpoint browsers could be attached; the first: %w", len(p.eps), err)
}

// Unreached is a browser of the pool that could not be attached at the
// start: its name as the summary shows it, and why.
type Unreached struct {
	Name string
	Err  error
}

// Unreached lists the browsers of the pool that could not be attached.
func (p *Pool) Unreached() []Unreached {
	var out []Unreached
	for _, ep := range p.eps {
		if ep.unreached != nil {
			out = append(out, Unreached{ep.name, ep.unreached})
		}
	}
	return out
}

// endpointName is a websocket endpoint as it may be shown or logged: the
// values of its query (browserless's ?token=) and a password hidden.
func endpointName(ws string) string {
	u, err := url.Parse(ws)
	if err != nil {
		if i := strings.IndexAny(ws, "?@"); i >= 0 {
			return ws[:i] + "?…"
		}
		return ws
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxx")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"xxx"}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// hideEndpoint is err with ws written as endpointName says: a browser's
// connection error names the URL it dialled, token and all.
func hideEndpoint(err error, ws string) error {
	if err == nil || ws == "" {
		return err
	}
	msg := strings.ReplaceAll(err.Error(), ws, endpointName(ws))
	// The dialer may name the URL again in another form (as http://):
	// the secrets themselves go.
	if u, perr := url.Parse(ws); perr == nil {
		var secrets []string
		if pw, ok := u.User.Password(); ok {
			secrets = append(secrets, pw)
		}
		for _, vs := range u.Query() {
			secrets = append(secrets, vs...)
		}
		for _, s := range secrets {
			if len(s) >= 3 {
				msg = strings.ReplaceAll(msg, s, "xxx")
				msg = strings.ReplaceAll(msg, url.QueryEscape(s), "xxx")
			}
		}
	}
	if msg == err.Error() {
		return err
	}
	return &hiddenError{msg: msg, err: err}
}

// hiddenError is an error whose message had a secret taken out.
type hiddenError struct {
	msg string
	err error
}

func (e *hiddenError) Error() string { return e.msg }
func (e *hiddenError) Unwrap() error { return e.err }

// Close closes every browser's session.
func (p *Pool) Close() {
	for _, ep := range p.eps {
		if ep.r != nil {
			ep.r.Close()
		}
	}
}

// Render renders one URL on the pool. A page whose browser was lost is
// tried on another of the pool at once; that browser is not used again.
func (b *Pool) Render(ctx context.Context, u string) (*extract.Result, error) {
	for {
		ep := b.pick()
		if ep == nil {
			return nil, errNoEndpoint{len(b.eps)}
		}
		res, err := ep.r.Render(ctx, u, "")
		lost := err != nil && ctx.Err() == nil && ep.r.isLost(err)
		b.release(ep, err, lost, ctx.Err() != nil)
		if lost {
			// The browser's death is not the page's failure, whatever the
			// call it cut short said (a navigation aborted, a message for
			// the shell): another browser renders it, or none is left.
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
		if !ep.dead && ep.r != nil && !ep.r.lost.Load() && (best == nil || ep.inflight < best.inflight) {
			best = ep
		}
	}
	if best != nil {
		best.inflight++
	}
	return best
}

// release books a page's end on its browser; one cut short by the
// batch's cancel (Ctrl-C) is neither a page nor a failure of it.
func (b *Pool) release(ep *endpoint, err error, lost, cancelled bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ep.inflight--
	if cancelled {
		return
	}
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
		switch {
		case ep.unreached != nil:
			parts[i] = ep.name + ": not attached"
		case ep.dead:
			parts[i] += " (lost)"
		}
	}
	return "browsers " + strings.Join(parts, "; ")
}

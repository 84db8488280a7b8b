package shell

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// Hooks are how the rest of the program reaches the person through the
// shell: the registry's approver, the MCP manager's event sink and host
// callbacks (forms, sampling, progress, notes), and one-line notices. They
// exist before the shell, so the session can be built first and the shell
// last, from complete Options (Options.Hooks).
//
// Until the shell's Run has started, events and notices are kept and then
// shown in the order they came; an approval, form or sampling request
// waits for Run, or until its ctx ends, and is never answered for the
// person. After Run returns every question is refused and events are
// dropped. The zero value is ready to use; Hooks serve one shell. They are
// safe for concurrent use.
type Hooks struct {
	mu      sync.Mutex
	sh      *Shell        // the shell New bound them to
	state   hookState     // guarded by mu
	pending []hookItem    // before Run: events and notices, in order
	events  int           // how many of pending are events
	opened  chan struct{} // closed when state leaves hooksWaiting; made lazily
	served  bool          // Run went live: questions let through are its to answer
}

// hookState is the lifecycle of Hooks: waiting for Run, delivering while
// Run runs, ended after it returned.
type hookState int

const (
	hooksWaiting hookState = iota
	hooksLive
	hooksEnded
)

// hookItem is an event or a notice kept until Run starts.
type hookItem struct {
	ev   *mcpclient.Event
	note string
}

// maxPendingEvents bounds the events kept before Run starts, like the
// shell's own queue: later ones are dropped (the next one shown redraws
// the status from the manager's current state anyway). Notices are kept.
const maxPendingEvents = 256

var _ tools.Approver = (*Hooks)(nil)

// errShellEnded refuses questions asked after Run returned.
var errShellEnded = errors.New("the shell has ended")

// bind gives the hooks to s (New); a second shell is a programming error.
func (h *Hooks) bind(s *Shell) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sh != nil && h.sh != s {
		panic("shell: one Hooks given to two shells")
	}
	h.sh = s
}

// open starts delivery once Run can print: what was kept is shown first,
// in order, then questions waiting are let through. Items that come while
// the kept ones are shown are kept too, and shown before delivery goes
// live, so the order holds.
func (h *Hooks) open(ctx context.Context) {
	for {
		h.mu.Lock()
		items := h.pending
		h.pending, h.events = nil, 0
		if len(items) == 0 {
			h.state, h.served = hooksLive, true
			close(h.openedLocked())
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		for _, it := range items { // shown outside the lock: the manager may be waiting to send the next event
			if it.ev != nil {
				if h.sh.counted(*it.ev) {
					continue
				}
				h.sh.background(ctx, *it.ev)
			} else {
				h.sh.notice(it.note)
			}
		}
	}
}

// end stops delivery when Run returns: waiting and later questions are
// refused.
func (h *Hooks) end() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == hooksWaiting {
		close(h.openedLocked())
	}
	h.state, h.pending, h.events = hooksEnded, nil, 0
}

func (h *Hooks) openedLocked() chan struct{} {
	if h.opened == nil {
		h.opened = make(chan struct{})
	}
	return h.opened
}

// wait returns the shell once Run has started; it fails when ctx ends
// first, or when Run has returned (or returned without starting) before
// the question was let through.
func (h *Hooks) wait(ctx context.Context) (*Shell, error) {
	h.mu.Lock()
	if h.state == hooksEnded {
		h.mu.Unlock()
		return nil, errShellEnded
	}
	opened := h.openedLocked()
	h.mu.Unlock()
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("the shell has not started: %w", ctx.Err())
	case <-opened:
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.served {
		return nil, errShellEnded
	}
	return h.sh, nil
}

// deliver runs live on the shell while Run runs, keeps it before, drops it
// after. An event is dropped when too many are kept.
func (h *Hooks) deliver(it hookItem, live func(*Shell)) {
	h.mu.Lock()
	switch h.state {
	case hooksLive:
		s := h.sh
		h.mu.Unlock()
		live(s)
		return
	case hooksWaiting:
		if it.ev == nil || h.events < maxPendingEvents {
			h.pending = append(h.pending, it)
			if it.ev != nil {
				h.events++
			}
		}
	}
	h.mu.Unlock()
}

// Approve implements tools.Approver: the shell's approval box (see
// Shell.approve). Asked before Run has started, it waits for it; when ctx
// ends first, or after Run returned, the call is not approved and the
// error says why.
func (h *Hooks) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Answer, error) {
	s, err := h.wait(ctx)
	if err != nil {
		return tools.AnswerDeny, fmt.Errorf("not approved: %w", err)
	}
	return s.approve(ctx, req)
}

// MCPEvent receives the MCP manager's events (mcpclient.Options.OnEvent).
// It never blocks.
func (h *Hooks) MCPEvent(ev mcpclient.Event) {
	h.deliver(hookItem{ev: &ev}, func(s *Shell) { s.mcpEvent(ev) })
}

// Notice shows a one-line message from the background above the prompt,
// without clobbering what the person is typing.
func (h *Hooks) Notice(text string) {
	h.deliver(hookItem{note: text}, func(s *Shell) { s.notice(text) })
}

// HostOptions sets the hooks through which MCP servers reach the person:
// elicitation forms, sampling approval, progress in the spinner, and
// browseragent's notes about servers as notices. settings is called for
// each sampling request, so a model chosen later is used.
func (h *Hooks) HostOptions(o *mcpclient.Options, settings func() agent.Settings) {
	o.Elicit = h.elicit
	o.Sample = func(ctx context.Context, r *mcpclient.SampleRequest) (*mcp.CreateMessageResult, error) {
		st := settings()
		if !st.Enabled() {
			return nil, fmt.Errorf("%w: %s", mcpclient.ErrNoLLM, st.Why())
		}
		s, err := h.wait(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", mcpclient.ErrDeclined, err)
		}
		return s.sample(ctx, st, r)
	}
	o.OnProgress = func(p mcpclient.Progress) {
		h.mu.Lock()
		s, live := h.sh, h.state == hooksLive
		h.mu.Unlock()
		if live { // progress is for the spinner of a running call: none before Run
			s.mcpProgress(p)
		}
	}
	// The servers' own log messages stay in /mcp logs; browseragent's notes
	// about a server (a declined form, a refused sampling request) are
	// notices.
	o.OnLog = func(l mcpclient.LogMessage) {
		if l.Logger == mcpclient.HostLogger {
			h.Notice("mcp " + l.Server + ": " + l.Text)
		}
	}
}

// elicit is mcpclient.Options.Elicit: the shell's form (Shell.elicit),
// once Run has started.
func (h *Hooks) elicit(ctx context.Context, e *mcpclient.Elicitation) (*mcp.ElicitResult, error) {
	s, err := h.wait(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", mcpclient.ErrDeclined, err)
	}
	return s.elicit(ctx, e)
}

package mcpclient

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refreshTimeout bounds one list refresh after a list_changed notification.
const refreshTimeout = 30 * time.Second

// clientOptions wires notifications of attempt a. Handlers only set a bit
// and wake the refresher, so they return at once: the SDK runs them in
// order on one goroutine, and a handler that called the server and waited
// would stall every later message.
func (s *server) clientOptions(a *attempt) *mcp.ClientOptions {
	mark := func(bit uint32) {
		a.pending.Or(bit)
		select {
		case a.kick <- struct{}{}:
		default:
		}
	}
	return &mcp.ClientOptions{
		Logger:                     s.m.opts.Logger,
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { mark(refreshTools) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { mark(refreshPrompts) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { mark(refreshResources) },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			s.invalidate(r.Params.URI)
			s.m.emit(Event{Server: s.name, Kind: EventResourceUpdated, URI: r.Params.URI})
		},
		LoggingMessageHandler: s.onLog,
	}
}

// refresher re-lists what notifications said changed, coalescing bursts:
// ten thousand list_changed notifications cause a few refreshes, not ten
// thousand.
func (s *server) refresher(a *attempt) {
	for {
		select {
		case <-a.kick:
		case <-a.ctx.Done():
			return
		}
		bits := a.pending.Swap(0)
		a.mu.Lock()
		sess := a.sess
		a.mu.Unlock()
		ctx, cancel := context.WithTimeout(a.ctx, refreshTimeout)
		s.refresh(ctx, a, sess, bits)
		cancel()
	}
}

func (s *server) refresh(ctx context.Context, a *attempt, sess *mcp.ClientSession, bits uint32) {
	s.mu.Lock()
	cfg := s.cfg
	s.mu.Unlock()
	var l lists
	var err error
	if bits&refreshTools != 0 {
		if l.tools, err = s.listTools(ctx, sess, cfg); err == nil {
			s.swap(a, EventToolsChanged, func(cur *lists) { cur.tools = l.tools })
		}
	}
	if bits&refreshPrompts != 0 {
		if l.prompts, err = collect(sess.Prompts(ctx, nil)); err == nil {
			s.swap(a, EventPromptsChanged, func(cur *lists) { cur.prompts = l.prompts })
		}
	}
	if bits&refreshResources != 0 {
		if l.resources, err = collect(sess.Resources(ctx, nil)); err == nil {
			l.templates, _ = collect(sess.ResourceTemplates(ctx, nil))
			s.invalidate("")
			s.swap(a, EventResourcesChanged, func(cur *lists) { cur.resources, cur.templates = l.resources, l.templates })
		}
	}
	if err != nil && ctx.Err() == nil {
		s.stderr.add(fmt.Sprintf("[browseragent] refreshing lists after a change notification failed: %v", err))
	}
}

// swap applies set to the current lists if a is still current.
func (s *server) swap(a *attempt, kind EventKind, set func(*lists)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.att != a {
		return
	}
	set(&s.lists)
	s.m.emit(Event{Server: s.name, Kind: kind, State: s.state})
}

// fetchAll lists everything the server declares. Only a failing tools/list
// fails the start; prompts and resources are optional extras.
func (s *server) fetchAll(ctx context.Context, sess *mcp.ClientSession, cfg *ServerConfig) (lists, error) {
	var l lists
	caps := sess.InitializeResult().Capabilities
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	var err error
	if caps.Tools != nil {
		if l.tools, err = s.listTools(ctx, sess, cfg); err != nil {
			return l, fmt.Errorf("list tools: %w", err)
		}
	}
	if caps.Prompts != nil {
		if l.prompts, err = collect(sess.Prompts(ctx, nil)); err != nil {
			s.stderr.add(fmt.Sprintf("[browseragent] prompts/list failed: %v", err))
		}
	}
	if caps.Resources != nil {
		if l.resources, err = collect(sess.Resources(ctx, nil)); err != nil {
			s.stderr.add(fmt.Sprintf("[browseragent] resources/list failed: %v", err))
		}
		l.templates, _ = collect(sess.ResourceTemplates(ctx, nil))
	}
	return l, nil
}

// listTools follows every cursor and converts the tools for the LLM.
func (s *server) listTools(ctx context.Context, sess *mcp.ClientSession, cfg *ServerConfig) ([]Tool, error) {
	raw, err := collect(sess.Tools(ctx, nil))
	if err != nil {
		return nil, err
	}
	raw = s.withoutTaskTools(raw)
	tools, warnings := convertToolsDup(s.name, cfg, raw)
	for _, w := range warnings {
		s.notice("warning", w)
	}
	return tools, nil
}

// withoutTaskTools leaves out the tools the server said can only be
// called as tasks (SEP-1686), which browseragent does not run: offered,
// every call of them would fail. Each is named in the server's log.
func (s *server) withoutTaskTools(raw []*mcp.Tool) []*mcp.Tool {
	a := s.currentAttempt()
	if a == nil {
		return raw
	}
	c := a.tracker()
	if c == nil {
		return raw
	}
	out := raw[:0:0]
	for _, t := range raw {
		if c.requiresTask(t.Name) {
			// In the server's log only (one-shot commands print host
			// notices, and this one is no fault of anybody's), once.
			if _, said := s.taskNoted.LoadOrStore(t.Name, true); said {
				continue
			}
			s.stderr.add(LogMessage{Server: s.name, Level: "info", Logger: HostLogger, Text: fmt.Sprintf("tool %q is not offered: the server runs it only as a task (execution.taskSupport \"required\"), which browseragent does not support", t.Name)}.String())
			continue
		}
		out = append(out, t)
	}
	return out
}

func collect[T any](seq func(func(*T, error) bool)) ([]*T, error) {
	var out []*T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

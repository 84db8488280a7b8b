package mcpclient

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// host is the client side of the protocol that is not about tools: roots,
// progress tokens, watched resources, log levels, and the queue that runs
// the person-facing hooks (OnLog, OnProgress) off the transport's reader.
// Its zero value is ready; mu guards the maps.
type host struct {
	once  sync.Once
	queue chan func()

	mu      sync.Mutex
	roots   []*mcp.Root
	rootsOK bool // roots set from Options or SetRoots
	clients map[*mcp.Client]bool
	tokens  map[string]string          // progress token → the server it was given to
	retired []string                   // tokens of finished calls, oldest first
	watched map[string]map[string]bool // server → URI
	levels  map[string]string          // server → logging level
	nextTok atomic.Uint64
	ignored atomic.Int64 // progress notifications with unknown tokens
}

// hostQueueLen bounds notifications waiting for a slow hook; beyond it
// the oldest are not waited for but dropped, so a reader never blocks.
const hostQueueLen = 1024

func (m *Manager) hostInit() *host {
	h := &m.host
	h.once.Do(func() {
		h.queue = make(chan func(), hostQueueLen)
		go func() {
			for {
				select {
				case fn := <-h.queue:
					fn()
				case <-m.ctx.Done():
					return
				}
			}
		}()
	})
	return h
}

// post runs fn on the host goroutine, in order, without blocking.
func (m *Manager) post(fn func()) {
	h := m.hostInit()
	select {
	case h.queue <- fn:
	default: // a hook is stuck; drop rather than stall the server's reader
	}
}

// newClient makes the mcp.Client of attempt a: the notification handlers
// of clientOptions plus elicitation, sampling, roots and progress.
func (s *server) newClient(a *attempt) *mcp.Client {
	o := s.clientOptions(a)
	o.Capabilities = &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true}}
	if s.m.opts.Elicit != nil {
		o.ElicitationHandler = s.elicit
		o.Capabilities.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	}
	if s.m.opts.Sample != nil {
		o.CreateMessageHandler = s.sample
	}
	o.ProgressNotificationHandler = s.onProgress
	c := mcp.NewClient(&mcp.Implementation{Name: s.m.opts.ClientName, Version: s.m.opts.ClientVersion}, o)
	s.m.attachRoots(a, c)
	go s.restoreSession(a)
	return c
}

// restoreSession re-applies what the person asked of the previous run of
// this server: its log level and watched resources.
func (s *server) restoreSession(a *attempt) {
	if s.waitReady(a.ctx) != nil || s.currentAttempt() != a {
		return
	}
	s.reapply(a)
}

// reapply sends the log level and watches the person set to the current
// session (after a restart, or a network server's new session).
func (s *server) reapply(a *attempt) {
	h := s.m.hostInit()
	h.mu.Lock()
	level := h.levels[s.name]
	var uris []string
	for u := range h.watched[s.name] {
		uris = append(uris, u)
	}
	h.mu.Unlock()
	a.mu.Lock()
	sess := a.sess
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(a.ctx, refreshTimeout)
	defer cancel()
	if level != "" {
		if err := sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
			s.notice("warning", "could not restore log level "+level+": "+err.Error())
		}
	}
	for _, u := range uris {
		if err := s.subscribe(ctx, sess, u); err != nil {
			s.notice("warning", "could not watch "+u+" again: "+err.Error())
		}
	}
}

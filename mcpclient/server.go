package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lists are a server's tools, prompts and resources, replaced as a whole
// so readers never see a half-refreshed set.
type lists struct {
	tools     []Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
}

// server is one configured MCP server. mu guards every field below it;
// it is never held while talking to the server.
type server struct {
	m      *Manager
	name   string
	stderr *ringBuffer
	// taskNoted holds the task-only tools already named in the log, so a
	// list fetched again (after roots or list_changed) says it once.
	taskNoted sync.Map

	mu      sync.Mutex
	base    *ServerConfig
	cfg     *ServerConfig
	state   ServerState
	err     error
	att     *attempt
	changed chan struct{}
	lists   lists
	caps    *mcp.ServerCapabilities
	info    *mcp.Implementation
	cache   map[string]*mcp.ReadResourceResult
	subs    map[string]bool
	// cacheGen counts invalidations, so a read that raced an update is
	// not kept.
	cacheGen uint64
	// reconn is the reconnect attempt of a network server that is
	// healing (0 when whole); reconnErr why.
	reconn    int
	reconnErr error
}

// attempt is one run of a server, from start to stop or death. Restart
// makes a new attempt; late results of an old one are dropped.
type attempt struct {
	ctx     context.Context
	cancel  context.CancelFunc
	pending atomic.Uint32 // refresh bits set by notification handlers
	kick    chan struct{}
	// ready is set once the attempt was initialised and listed: only then
	// is the server asked to stop politely (stdin closed, a grace period);
	// one still starting is signalled at once, so no exit waits on it.
	ready atomic.Bool
	// httpFail is the last HTTP error answer of a network server (httperr.go).
	httpFail atomic.Pointer[string]

	mu    sync.Mutex
	sess  *mcp.ClientSession
	proc  *process
	calls *callTracker // the open requests (cancel.go)
	once  sync.Once
}

const (
	refreshTools uint32 = 1 << iota
	refreshPrompts
	refreshResources
)

func newServer(m *Manager, sc *ServerConfig) *server {
	s := &server{
		m:       m,
		name:    sc.Name,
		stderr:  newRingBuffer(m.opts.StderrLines),
		base:    sc,
		cfg:     sc,
		changed: make(chan struct{}),
	}
	switch { // what Status says before Start
	case sc.Disabled:
		s.state = StateDisabled
	case sc.Err != nil:
		s.state, s.err = StateError, sc.Err
	case m.opts.OnDemand != nil && m.opts.OnDemand(sc.Name):
		s.state = StateIdle
	}
	return s
}

// background reports whether the server starts at a lower CPU priority
// (Options.Background).
func (s *server) background() bool {
	return s.m.opts.Background != nil && !s.onDemand() && s.m.opts.Background(s.name)
}

// onDemand reports whether Start leaves this server idle.
func (s *server) onDemand() bool {
	return s.m.opts.OnDemand != nil && s.m.opts.OnDemand(s.name)
}

// startIfIdle starts the server when it is idle and says whether it did.
func (s *server) startIfIdle() bool {
	s.mu.Lock()
	idle := s.state == StateIdle && s.att == nil
	if idle {
		s.state = StateStarting // claimed: a concurrent caller waits instead of starting it twice
	}
	s.mu.Unlock()
	if idle {
		s.start()
	}
	return idle
}

func (s *server) setBase(sc *ServerConfig) {
	s.mu.Lock()
	s.base = sc
	s.mu.Unlock()
}

// setStateLocked records a state change, wakes waiters and emits an event.
func (s *server) setStateLocked(st ServerState, err error) {
	s.state, s.err = st, err
	close(s.changed)
	s.changed = make(chan struct{})
	s.m.emit(Event{Server: s.name, Kind: EventState, State: st, Err: err})
}

func (s *server) start() {
	if s.m.isClosed() {
		return
	}
	s.mu.Lock()
	base := s.base
	s.mu.Unlock()
	cfg := base.clone()
	if s.m.opts.Adjust != nil && base.Err == nil && !base.Disabled {
		s.m.opts.Adjust(s.name, cfg)
	}
	ctx, cancel := context.WithCancel(s.m.ctx)
	a := &attempt{ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1)}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
	s.cfg, s.lists, s.cache, s.subs = cfg, lists{}, nil, nil
	s.reconn, s.reconnErr = 0, nil
	switch {
	case base.Disabled:
		s.setStateLocked(StateDisabled, nil)
	case base.Err != nil:
		s.setStateLocked(StateError, base.Err)
	case cfg.Err != nil: // Adjust found it cannot run (no browser for chrome-devtools-mcp)
		s.setStateLocked(StateError, cfg.Err)
	default:
		if !s.m.addRun() {
			break // Close began
		}
		s.att = a
		s.setStateLocked(StateStarting, nil)
		go s.run(a, cfg)
		return
	}
	cancel()
}

// stop ends the current attempt and waits for its process to be gone.
func (s *server) stop(ctx context.Context) {
	s.mu.Lock()
	a := s.att
	s.stopLocked()
	s.mu.Unlock()
	if a != nil {
		a.shutdown()
	}
}

func (s *server) stopLocked() {
	if s.att != nil {
		go s.att.shutdown() // start now; stop() waits for it via once
		s.att = nil
	}
}

// run connects, lists, and marks the server ready, or records why not.
func (s *server) run(a *attempt, cfg *ServerConfig) {
	defer s.m.runs.Done()
	select {
	case s.m.sem <- struct{}{}:
	case <-a.ctx.Done():
		return
	}
	timeout := time.Duration(cfg.Timeout)
	if timeout <= 0 {
		timeout = s.m.opts.InitTimeout
	}
	ictx, cancel := context.WithTimeout(a.ctx, timeout)
	sess, err := s.connect(ictx, a, cfg)
	var l lists
	if err == nil {
		l, err = s.fetchAll(ictx, sess, cfg)
	}
	cancel()
	<-s.m.sem
	if err != nil {
		if a.ctx.Err() != nil { // stopped while starting (or Close): nothing to report
			a.shutdown()
			return
		}
		s.fail(a, s.startError(ictx, a, err, timeout))
		return
	}
	a.ready.Store(true)
	s.mu.Lock()
	if s.att != a {
		s.mu.Unlock()
		a.shutdown()
		return
	}
	s.lists = l
	s.caps = sess.InitializeResult().Capabilities
	s.info = sess.InitializeResult().ServerInfo
	s.setStateLocked(StateReady, nil)
	s.mu.Unlock()
	go s.watch(a)
	go s.refresher(a)
}

func (s *server) connect(ctx context.Context, a *attempt, cfg *ServerConfig) (*mcp.ClientSession, error) {
	t, err := s.transport(a, cfg)
	if err != nil {
		return nil, err
	}
	client := s.newClient(a)
	sess, err := client.Connect(ctx, trackTransport{t, a}, &mcp.ClientSessionOptions{ProtocolVersion: s.m.opts.ProtocolVersion})
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.sess = sess
	a.mu.Unlock()
	if a.ctx.Err() != nil { // stopped while connecting
		a.shutdown()
		return nil, errStopped
	}
	return sess, nil
}

func (s *server) transport(a *attempt, cfg *ServerConfig) (mcp.Transport, error) {
	if s.m.opts.Dial != nil {
		return s.m.opts.Dial(s.name, cfg)
	}
	switch cfg.Transport() {
	case TypeStdio:
		return &stdioTransport{cfg: cfg, stderr: s.stderr, maxBytes: s.m.opts.MaxMessageBytes, started: a.setProc, background: s.background()}, nil
	case TypeHTTP:
		protocol := new(atomic.Value)
		client := withProtocolHeader(s.oauthClient(cfg, recordHTTP(a, s.httpClient(cfg))), protocol)
		sdk := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, DisableStandaloneSSE: true}
		return &healTransport{kind: TypeHTTP, dial: sdk.Connect, url: cfg.URL, client: client, life: a.ctx,
			hooks: s.healHooks(a), protocol: protocol}, nil
	case TypeSSE:
		sdk := &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: s.oauthClient(cfg, recordHTTP(a, s.httpClient(cfg)))}
		return &healTransport{kind: TypeSSE, dial: sdk.Connect, life: a.ctx, hooks: s.healHooks(a), protocol: new(atomic.Value)}, nil
	}
	return nil, fmt.Errorf("unknown transport type %q", cfg.Type)
}

// httpClient adds the configured headers to every request. Headers may
// carry secrets, so they are never logged.
func (s *server) httpClient(cfg *ServerConfig) *http.Client {
	base := s.m.opts.HTTPClient
	if len(cfg.Headers) == 0 {
		return base
	}
	c := *base
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = headerTransport{base: rt, headers: cfg.Headers}
	return &c
}

func withProtocolHeader(c *http.Client, protocol *atomic.Value) *http.Client {
	cc := *c
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	cc.Transport = protocolHeader{base: rt, protocol: protocol}
	return &cc
}

// healHooks connect a network server's healing connection to its state:
// "reconnecting (n)" while it heals, and what a new session forgets
// (lists, log level, watched resources) restored after.
func (s *server) healHooks(a *attempt) healHooks {
	return healHooks{
		reconnecting: func(n int, err error) { s.setReconnecting(a, n, err) },
		healed: func() {
			s.notice("info", "the server's session ended; reconnected with a new session")
			s.invalidate("")
			a.pending.Or(refreshTools | refreshPrompts | refreshResources)
			select {
			case a.kick <- struct{}{}:
			default:
			}
			go s.reapply(a)
		},
	}
}

func (s *server) setReconnecting(a *attempt, n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.att != a || s.reconn == n {
		return
	}
	s.reconn, s.reconnErr = n, err
	s.m.emit(Event{Server: s.name, Kind: EventState, State: s.state, Err: err})
}

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

func (a *attempt) setProc(p *process) {
	a.mu.Lock()
	a.proc = p
	a.mu.Unlock()
	if a.ctx.Err() != nil { // stopped while spawning: it never got to start
		p.kill()
	}
}

// shutdown cancels the attempt, closes the session and stops the process
// group, in parallel and bounded; it runs once.
func (a *attempt) shutdown() {
	a.once.Do(func() {
		a.cancelOpen() // while the connection still works
		a.cancel()
		a.mu.Lock()
		sess, proc := a.sess, a.proc
		a.mu.Unlock()
		closed := make(chan struct{})
		go func() {
			if sess != nil {
				_ = sess.Close()
			}
			close(closed)
		}()
		switch {
		case proc == nil:
		case a.ready.Load():
			proc.stop()
		default:
			proc.kill() // still starting: it has no session to end politely
		}
		select {
		case <-closed:
		case <-time.After(time.Second):
		}
	})
}

// fail records err as the reason, when a is still the current attempt.
func (s *server) fail(a *attempt, err error) {
	s.mu.Lock()
	if s.att == a {
		s.setStateLocked(StateError, err)
	}
	s.mu.Unlock()
	a.shutdown()
}

// startError says why a start failed, with the stderr tail, which is where
// "npx: command not found" and stack traces end up.
func (s *server) startError(ctx context.Context, a *attempt, err error, timeout time.Duration) error {
	a.mu.Lock()
	proc := a.proc
	a.mu.Unlock()
	if proc != nil {
		select { // give a dying process a moment to be reaped
		case <-proc.done:
		case <-time.After(500 * time.Millisecond):
		}
	}
	switch exited, werr := procExited(proc); {
	case exited:
		err = fmt.Errorf("exited during startup (%v)", exitReason(werr))
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && a.ctx.Err() == nil:
		err = fmt.Errorf("did not initialize within %s (raise \"timeout\" in its config or BROWSERAGENT_MCP_INIT_TIMEOUT)", timeout)
	}
	if tail := s.stderr.tail(5); tail != "" {
		err = fmt.Errorf("%w; stderr: %s", err, tail)
	}
	if h := a.lastHTTPFailure(); h != "" && !strings.Contains(err.Error(), h) {
		err = fmt.Errorf("%w; the server answered %s", err, h)
	}
	return err
}

func procExited(p *process) (bool, error) {
	if p == nil {
		return false, nil
	}
	return p.exited()
}

func exitReason(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// watch marks the server failed when its connection ends on its own.
func (s *server) watch(a *attempt) {
	a.mu.Lock()
	sess := a.sess
	a.mu.Unlock()
	werr := sess.Wait()
	if a.ctx.Err() != nil {
		return // we stopped it
	}
	a.mu.Lock()
	proc := a.proc
	a.mu.Unlock()
	if proc != nil {
		select {
		case <-proc.done:
		case <-time.After(500 * time.Millisecond):
		}
	}
	err := fmt.Errorf("connection closed: %v", werr)
	if exited, perr := procExited(proc); exited {
		err = fmt.Errorf("server exited (%s)", exitReason(perr))
	}
	if tail := s.stderr.tail(5); tail != "" {
		err = fmt.Errorf("%w; stderr: %s", err, tail)
	}
	s.fail(a, err)
}

func (s *server) currentAttempt() *attempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.att
}

func (s *server) readySession() (*mcp.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady || s.att == nil {
		if s.err != nil {
			return nil, fmt.Errorf("%w: %q is %s: %v", errNotReady, s.name, s.state, s.err)
		}
		return nil, fmt.Errorf("%w: %q is %s", errNotReady, s.name, s.state)
	}
	s.att.mu.Lock()
	defer s.att.mu.Unlock()
	return s.att.sess, nil
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{
		Name: s.name, State: s.state, Err: s.err, Transport: s.cfg.Transport(), Source: s.cfg.Source,
		Tools: len(s.lists.tools), Prompts: len(s.lists.prompts), Resources: len(s.lists.resources),
		ServerInfo: s.info, Reconnecting: s.reconn,
	}
	if s.reconn > 0 {
		st.Err = s.reconnErr
	}
	if s.att != nil {
		s.att.mu.Lock()
		if s.att.proc != nil {
			st.PID = s.att.proc.PID()
		}
		s.att.mu.Unlock()
	}
	return st
}

func (s *server) waitReady(ctx context.Context) error {
	for {
		s.mu.Lock()
		st, err, ch := s.state, s.err, s.changed
		s.mu.Unlock()
		switch st {
		case StateReady:
			return nil
		case StateError:
			return fmt.Errorf("mcp server %q: %w", s.name, err)
		case StateDisabled:
			return fmt.Errorf("mcp server %q is disabled in %s", s.name, s.cfg.Source)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("mcp server %q: still starting: %w", s.name, ctx.Err())
		}
	}
}

func (s *server) waitSettled(ctx context.Context) error {
	for {
		s.mu.Lock()
		st, ch := s.state, s.changed
		s.mu.Unlock()
		if st != StateStarting {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

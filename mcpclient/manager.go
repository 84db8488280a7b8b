package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for Options.
const (
	defaultMaxParallel = 8
	defaultInitTimeout = 60 * time.Second
	defaultCallTimeout = 120 * time.Second
	// defaultProtocolVersion is the MCP revision browseragent offers.
	defaultProtocolVersion = "2025-11-25"
)

// Options configure a Manager; the zero value (or nil) means defaults.
type Options struct {
	// ClientName and ClientVersion are sent in initialize.
	ClientName, ClientVersion string
	// Adjust, when set, may edit a copy of a server's config just before
	// each start (and restart): the browser wiring adds --wsEndpoint here.
	Adjust func(name string, sc *ServerConfig)
	// OnDemand, when set, names servers that Start leaves idle: such a
	// server starts on the first call that needs it (a tool call, a
	// listing by name, WaitReady), so an expensive one (chrome-devtools-mcp
	// and the browser behind it) costs nothing until it is used.
	OnDemand func(name string) bool
	// OnEvent receives state and list changes; see Event.
	OnEvent func(Event)
	// Background, when set, names servers whose start nobody waits for
	// (`run` names those its task does not): a stdio one runs at a lower
	// CPU priority (nice BackgroundNice), so on a busy machine its start
	// (npx alone is a second of CPU) does not slow the task in the
	// foreground. An OnDemand server is never in the background: it
	// starts because a call needs it. The priority stays for the
	// server's life: an unprivileged process cannot raise it again.
	Background func(name string) bool
	// MaxParallel bounds servers initialising at once (default 8).
	MaxParallel int
	// InitTimeout bounds connect+initialize+first listing when the server
	// sets no "timeout" (default $BROWSERAGENT_MCP_INIT_TIMEOUT or 60s).
	InitTimeout time.Duration
	// CallTimeout bounds one tools/call when the server sets no
	// "callTimeout" (default 120s).
	CallTimeout time.Duration
	// StderrLines is how many stderr lines to keep per server (200).
	StderrLines int
	// MaxMessageBytes caps one message from a stdio server (16 MiB).
	MaxMessageBytes int
	// HTTPClient is the base client for http/sse servers.
	HTTPClient *http.Client
	// OAuth configures OAuth for http/sse servers (see OAuthOptions).
	OAuth *OAuthOptions
	// Logger receives the SDK's debug logs; nil discards them.
	Logger *slog.Logger
	// ProtocolVersion is offered in initialize (default 2025-11-25). The
	// SDK's newest, 2026-07-28, costs a failed server/discover round trip
	// with today's servers and makes resource subscriptions asynchronous.
	ProtocolVersion string
	// Dial, when set, replaces the transport for every server (tests use
	// in-memory transports).
	Dial func(name string, sc *ServerConfig) (mcp.Transport, error)

	// Elicit answers a server's elicitation/create (a form, or a URL to
	// open). Nil: elicitation is not offered to servers. An error (wrap
	// ErrDeclined) declines with a reason; see elicit.go.
	Elicit func(ctx context.Context, e *Elicitation) (*mcp.ElicitResult, error)
	// Sample answers sampling/createMessage. Nil: sampling is not offered.
	// An error refuses the request; the reason goes back to the server.
	Sample func(ctx context.Context, r *SampleRequest) (*mcp.CreateMessageResult, error)
	// Roots are directories offered as file:// roots; nil means the
	// working directory. setRoots changes them later.
	Roots []string
	// OnProgress receives progress of every tool call in flight; OnLog
	// every log message and host notice. Both run on
	// one goroutine of the manager, never on a transport's reader.
	OnProgress func(Progress)
	OnLog      func(LogMessage)
}

func (o *Options) withDefaults() Options {
	var d Options
	if o != nil {
		d = *o
	}
	if d.ClientName == "" {
		d.ClientName = "browseragent"
	}
	if d.ClientVersion == "" {
		d.ClientVersion = "dev"
	}
	if d.ProtocolVersion == "" {
		d.ProtocolVersion = defaultProtocolVersion
	}
	if d.MaxParallel <= 0 {
		d.MaxParallel = defaultMaxParallel
	}
	if d.InitTimeout <= 0 {
		d.InitTimeout = defaultInitTimeout
		if v, err := time.ParseDuration(os.Getenv("BROWSERAGENT_MCP_INIT_TIMEOUT")); err == nil && v > 0 {
			d.InitTimeout = v
		}
	}
	if d.CallTimeout <= 0 {
		d.CallTimeout = defaultCallTimeout
	}
	if d.StderrLines <= 0 {
		d.StderrLines = defaultStderrLines
	}
	if d.HTTPClient == nil {
		d.HTTPClient = http.DefaultClient
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return d
}

// BackgroundNice is the nice value of a server started in the background
// (Options.Background).
const BackgroundNice = 10

// Manager runs the configured MCP servers. It is safe for concurrent use;
// each server has its own lock, and no lock is held while talking to a
// server or calling OnEvent.
type Manager struct {
	opts    Options
	sem     chan struct{}
	events  *eventQueue
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	servers map[string]*server
	closed  bool
	// runs counts server starts under way (server.run); Close waits for
	// them, so no process spawned during the shutdown is left behind.
	runs sync.WaitGroup
	host host // roots, progress tokens, watches, log levels (host.go)
}

// NewManager prepares servers from cfg; nothing starts until Start.
func NewManager(cfg *Config, opts *Options) *Manager {
	o := opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		opts:    o,
		sem:     make(chan struct{}, o.MaxParallel),
		events:  newEventQueue(o.OnEvent),
		ctx:     ctx,
		cancel:  cancel,
		servers: map[string]*server{},
	}
	if cfg != nil {
		for name, sc := range cfg.Servers {
			sc = sc.clone()
			sc.Name = name
			m.servers[name] = newServer(m, sc)
		}
	}
	return m
}

// Start launches every enabled server in parallel and returns at once.
// Servers report through OnEvent and Status; a failing one affects no other.
// Servers live until Close (or Restart): cancelling ctx does not stop them,
// since the caller's context is usually one command's, not the session's.
func (m *Manager) Start(ctx context.Context) {
	for _, s := range m.list() {
		if !s.onDemand() {
			s.start()
		}
	}
}

// Restart stops one server and starts it again with its configuration
// (passed through Options.Adjust again). It returns once the new start is
// under way; use WaitReady to wait for it.
func (m *Manager) Restart(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.stop(ctx)
	s.start()
	return nil
}

// Idle stops server name and leaves it idle: the next call that needs it
// starts it again (as with Options.OnDemand), for example once the browser
// it drives is gone.
func (m *Manager) Idle(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.stop(ctx)
	s.mu.Lock()
	if s.att == nil && s.state != StateDisabled {
		s.lists, s.cache, s.subs = lists{}, nil, nil
		s.setStateLocked(StateIdle, nil)
	}
	s.mu.Unlock()
	return nil
}

// replace swaps a server's configuration (adding it when new) and
// restarts it; for example to point chrome-devtools-mcp at another browser.
func (m *Manager) replace(ctx context.Context, sc *ServerConfig) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errClosed
	}
	s, ok := m.servers[sc.Name]
	if !ok {
		s = newServer(m, sc.clone())
		m.servers[sc.Name] = s
	}
	m.mu.Unlock()
	if ok {
		s.stop(ctx)
		s.setBase(sc.clone())
	}
	s.start()
	return nil
}

// Disable stops server name and marks it disabled for the life of this
// manager (the config file is not changed).
func (m *Manager) Disable(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.stop(ctx)
	s.mu.Lock()
	s.base = s.base.clone()
	s.base.Disabled = true
	s.mu.Unlock()
	s.start()
	return nil
}

// Enable starts a disabled server (for this manager only).
func (m *Manager) Enable(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.base = s.base.clone()
	s.base.Disabled = false
	s.mu.Unlock()
	return m.Restart(ctx, name)
}

// WaitReady waits until server name is ready (nil), or failed or disabled
// (the reason), or ctx ends. An idle server (Options.OnDemand) is started
// first: whoever waits for it needs it.
func (m *Manager) WaitReady(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.startIfIdle()
	return s.waitReady(ctx)
}

// WaitAll waits until no server is starting, or ctx ends.
func (m *Manager) WaitAll(ctx context.Context) error {
	for _, s := range m.list() {
		if err := s.waitSettled(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Close stops every server in parallel: stdin closed, then SIGTERM, then
// SIGKILL to each process group, with bounded waits.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancelOpen() // before the connections' contexts end
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range m.list() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.stop(context.Background())
		}()
	}
	wg.Wait()
	// Starts cut short end quickly (their process is killed, their
	// context cancelled); the bound covers a transport that ignores it.
	started := make(chan struct{})
	go func() { m.runs.Wait(); close(started) }()
	select {
	case <-started:
	case <-time.After(closeRunsGrace):
	}
	m.events.close()
	return nil
}

// closeRunsGrace bounds how long Close waits for starts under way.
const closeRunsGrace = 5 * time.Second

// addRun counts a start under way, unless Close began (then it is refused).
func (m *Manager) addRun() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.runs.Add(1)
	return true
}

// Status is a snapshot of one server.
type Status struct {
	Name      string
	State     ServerState
	Err       error
	Transport string
	Source    string
	Tools     int
	Prompts   int
	Resources int
	// PID is the stdio server's process (and process group) id, 0 otherwise.
	PID        int
	ServerInfo *mcp.Implementation
	// Reconnecting is the reconnect attempt of a network server whose
	// connection is healing (Err says why); 0 when it is whole.
	Reconnecting int
}

// StateText is the state as /mcp shows it: "reconnecting (n)" while a
// ready server's connection heals.
func (st Status) StateText() string {
	if st.State == StateReady && st.Reconnecting > 0 {
		return fmt.Sprintf("reconnecting (%d)", st.Reconnecting)
	}
	return st.State.String()
}

// Status returns every server's state, sorted by name.
func (m *Manager) Status() []Status {
	var out []Status
	for _, s := range m.list() {
		out = append(out, s.status())
	}
	return out
}

// ServerStatus returns one server's state.
func (m *Manager) ServerStatus(name string) (Status, error) {
	s, err := m.server(name)
	if err != nil {
		return Status{}, err
	}
	return s.status(), nil
}

// Logs returns the kept stderr lines of server name, oldest first.
func (m *Manager) Logs(name string) ([]string, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, err
	}
	return s.stderr.Lines(), nil
}

func (m *Manager) list() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (m *Manager) server(name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (see 'browseragent mcp list')", errUnknownServer, name)
	}
	return s, nil
}

// session returns the ready session of server name; an idle server is
// started first (bounded by its start timeout), since this call needs it.
func (m *Manager) session(name string) (*server, *mcp.ClientSession, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, nil, err
	}
	if s.startIfIdle() {
		_ = s.waitReady(m.ctx) // the state says how it went
	}
	sess, err := s.readySession()
	return s, sess, err
}

func (m *Manager) emit(ev Event) { m.events.push(ev) }

// isClosed reports whether Close was called.
func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

var errStopped = errors.New("stopped")

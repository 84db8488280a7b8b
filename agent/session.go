package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
)

// SessionOptions configures a Session; nil fields mean defaults.
type SessionOptions struct {
	// Rules are the sensitive-site rules (required: the program refuses to
	// run without them).
	Rules *guard.Rules
	// MCP is the server configuration; nil starts no MCP server.
	MCP *mcpclient.Config
	// MCPOptions are passed to the manager; Adjust is set by the session.
	MCPOptions mcpclient.Options
	// Browser configures the isolated browser and the native tools.
	Browser browser.Options
	// Fetch configures web_fetch.
	Fetch *fetch.Options
	// Approver asks the person; nil with Yes decides non-interactive runs.
	Approver Approver
	Yes      bool
	// AuditPath is the audit log; "" means guard.DefaultAuditPath(), "-"
	// keeps no log.
	AuditPath string
	// CallTimeout bounds each tool call (default DefaultCallTimeout).
	CallTimeout time.Duration
}

// Session is one running browseragent: the guard policy, the tool registry
// and the tool sources behind it (web_fetch, the browser, the MCP servers).
// The shell, `run` and the subcommands all build one and call tools only
// through Registry.
type Session struct {
	Policy   *guard.Policy
	Registry *Registry
	Browser  *browser.Browser
	MCP      *mcpclient.Manager // nil without MCP servers

	audit *guard.AuditLog
	pages *mcpPages

	// modeMu keeps the browser's mode and the guard policy's in step:
	// Connect, Disconnect and a lost browser switch both under it.
	modeMu  sync.Mutex
	lost    bool             // the person's browser went away since the last Connect
	onLost  func(msg string) // see OnBrowserLost
	closing bool             // Close began: a loss restarts nothing
	bg      sync.WaitGroup   // restarts after a loss, waited for by Close
}

// NewSession wires the parts; nothing is started yet (see Start).
func NewSession(opts *SessionOptions) (*Session, error) {
	if opts == nil || opts.Rules == nil {
		return nil, errors.New("session: sensitive-site rules are required")
	}
	s := &Session{Policy: guard.NewPolicy(opts.Rules, nil)}
	ro := &RegistryOptions{Approver: opts.Approver, Yes: opts.Yes, CallTimeout: opts.CallTimeout}
	if opts.AuditPath != "-" {
		path := opts.AuditPath
		if path == "" {
			path = guard.DefaultAuditPath()
		}
		log, err := guard.OpenAudit(path)
		if err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		s.audit = log
		ro.Audit = func(e guard.Entry) { _ = log.Append(e) }
	}
	bo := opts.Browser
	if bo.Extract == nil {
		bo.Extract = extractRendered
	}
	if next := bo.OnLost; next != nil {
		bo.OnLost = func() { s.browserLost(); next() }
	} else {
		bo.OnLost = s.browserLost
	}
	s.Browser = browser.New(&bo)
	s.Registry = NewRegistry(s.Policy, ro)
	fo := fetch.Options{}
	if opts.Fetch != nil {
		fo = *opts.Fetch
	}
	fo.AllowRedirect = func(to string) error { return s.Registry.Recheck(WebFetchName, to) }
	// The guard judges the resolved address of every connection; a
	// caller's own control (tests) runs after it.
	own := fo.DialControl
	fo.DialControl = func(ctx context.Context, network, address string, c syscall.RawConn) error {
		if err := s.Policy.DialControl(ctx, network, address, c); err != nil || own == nil {
			return err
		}
		return own(ctx, network, address, c)
	}
	s.Registry.Add(NewWebFetch(&fo))
	s.Registry.Add(browserTools{s.Browser})
	if opts.MCP != nil {
		mo := opts.MCPOptions
		mo.Adjust = s.adjustServer
		s.MCP = mcpclient.NewManager(opts.MCP, &mo)
		s.pages = &mcpPages{mgr: s.MCP, b: s.Browser, owned: map[string]bool{}}
		s.Registry.Add(mcpTools{s.MCP, s.pages})
	}
	s.Registry.SetLocator(locator{s})
	return s, nil
}

// Start brings the MCP servers up in the background and returns at once.
func (s *Session) Start(ctx context.Context) {
	if s.MCP != nil {
		s.MCP.Start(ctx)
	}
}

// Connect attaches to the person's browser (shared mode), clears every
// "always" grant and owned tab, and restarts the browser MCP servers against
// it. The returned message says what was reset.
func (s *Session) Connect(ctx context.Context, t browser.Target) (string, error) {
	s.modeMu.Lock()
	if err := s.Browser.Connect(ctx, t); err != nil {
		s.modeMu.Unlock()
		return "", err
	}
	msg := s.Policy.SetMode(guard.Shared)
	s.lost = false
	s.modeMu.Unlock()
	s.restartBrowserServers(ctx)
	return msg, nil
}

// ErrAlreadyLost is Disconnect's answer after the person's browser went
// away by itself: the session is already back in isolated mode.
var ErrAlreadyLost = errors.New("not connected: the connection to your Chrome was already lost (closed or crashed), so browseragent is in isolated mode with trust reset; /connect attaches again")

// Disconnect leaves the person's browser as it was and returns to isolated
// mode, with the same trust reset.
func (s *Session) Disconnect(ctx context.Context) (string, error) {
	s.modeMu.Lock()
	if s.Browser.Mode() != browser.ModeShared {
		lost := s.lost
		s.modeMu.Unlock()
		if lost {
			return "", ErrAlreadyLost
		}
		return "", errors.New("not connected: already in isolated mode")
	}
	err := s.Browser.Disconnect()
	msg := s.Policy.SetMode(guard.Isolated)
	s.modeMu.Unlock()
	if err != nil {
		return "", err
	}
	s.restartBrowserServers(ctx)
	return msg, nil
}

// OnBrowserLost sets fn to hear, once per loss, that the person's browser
// went away while connected. By then Mode and Facts say isolated and the
// trust is reset; msg says so in sentences the shell can print as it is.
// fn runs on a background goroutine once chrome-devtools-mcp is being
// restarted against the isolated browser.
func (s *Session) OnBrowserLost(fn func(msg string)) {
	s.modeMu.Lock()
	s.onLost = fn
	s.modeMu.Unlock()
}

// browserLost follows the Browser back to isolated mode (browser.Options.
// OnLost): the guard policy at once, so the very call that reports the
// loss already sees isolated mode, then the MCP restart and the notice in
// the background, since the caller may be an MCP server's start (Adjust).
func (s *Session) browserLost() {
	s.modeMu.Lock()
	if s.closing || s.Browser.Mode() == browser.ModeShared {
		s.modeMu.Unlock() // closing, or a Connect already replaced the lost browser
		return
	}
	msg := "Lost the connection to your Chrome (closed or crashed). " + s.Policy.SetMode(guard.Isolated)
	s.lost = true
	notify := s.onLost
	s.bg.Add(1)
	s.modeMu.Unlock()
	go func() {
		defer s.bg.Done()
		s.restartBrowserServers(context.Background())
		if notify != nil {
			notify(msg) // after the restart began, so /mcp no longer shows the dead one ready
		}
	}()
}

// Mode is the current browser mode.
func (s *Session) Mode() guard.Mode { return s.Policy.Mode() }

// Close stops the MCP servers and the isolated browser (a shared browser is
// only detached) and closes the audit log. No child process remains.
func (s *Session) Close() error {
	s.modeMu.Lock()
	s.closing = true
	s.modeMu.Unlock()
	s.bg.Wait()
	var errs []error
	if s.MCP != nil {
		errs = append(errs, s.MCP.Close())
	}
	errs = append(errs, s.Browser.Close())
	if s.audit != nil {
		errs = append(errs, s.audit.Close())
	}
	return errors.Join(errs...)
}

func (s *Session) restartBrowserServers(ctx context.Context) {
	if s.MCP == nil {
		return
	}
	s.pages.reset()
	for _, st := range s.MCP.Status() {
		if s.isBrowserServer(st.Name) && st.State != mcpclient.StateDisabled {
			_ = s.MCP.Restart(ctx, st.Name) // its state carries any failure
		}
	}
}

func (s *Session) isBrowserServer(name string) bool {
	return name == mcpclient.DefaultServerName
}

// adjustServer points chrome-devtools-mcp at our browser (the isolated one,
// launched on demand, or the person's), so native and MCP tools see the
// same tabs, unless its config already names a browser. Whatever the
// config says, it gets the safety arguments (header redaction, get_tab_id
// for tab identity) and get_tab_id stays hidden from the model.
func (s *Session) adjustServer(name string, sc *mcpclient.ServerConfig) {
	if !s.isBrowserServer(name) || sc.URL != "" {
		return
	}
	args := slices.Clone(sc.Args)
	if !slices.Contains(sc.ExcludeTools, browser.TabIDTool) {
		sc.ExcludeTools = append(slices.Clone(sc.ExcludeTools), browser.TabIDTool)
	}
	want := browser.ChromeDevtoolsMCPSafetyArgs()
	if !namesBrowser(sc.Args) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		ws, err := s.Browser.WSEndpoint(ctx)
		if err != nil {
			sc.Err = fmt.Errorf("no browser for chrome-devtools-mcp: %w", err)
			return
		}
		want = browser.ChromeDevtoolsMCPArgs(ws)
	}
	for _, a := range want {
		if !slices.Contains(args, a) {
			args = append(args, a)
		}
	}
	sc.Args = args
	env := maps.Clone(sc.Env)
	if env == nil {
		env = map[string]string{}
	}
	for _, kv := range browser.ChromeDevtoolsMCPEnv() {
		k, v, _ := strings.Cut(kv, "=")
		if _, set := env[k]; !set {
			env[k] = v
		}
	}
	sc.Env = env
}

func namesBrowser(args []string) bool {
	for _, a := range args {
		for _, f := range []string{"--wsEndpoint", "--ws-endpoint", "-w", "--browserUrl", "--browser-url", "-u", "--autoConnect", "--auto-connect", "--executablePath", "-e"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
		}
	}
	return false
}

// extractRendered runs a rendered page through web_fetch's extractor, as
// the browser's DOM: never flagged as a JavaScript shell.
func extractRendered(_ context.Context, html []byte, pageURL, selector string) (string, error) {
	r, err := browser.ExtractDOM(html, pageURL, &fetch.ExtractOptions{Select: selector})
	if err != nil {
		return "", err
	}
	return r.Markdown(), nil
}

// Facts describes the session for the system prompt: which browser the
// agent is driving and what that means for its actions.
func (s *Session) Facts() string {
	if s.Mode() == guard.Shared {
		return "Browser mode: shared. You are driving the person's own Chrome, with their logins. You may close only tabs you opened. Every write asks the person first; on sensitive sites every single write needs a fresh approval."
	}
	return "Browser mode: isolated. You are driving a throwaway Chromium with an empty profile: no logins. If the task needs the person's session, tell them to run /connect."
}

package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
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
	Approver tools.Approver
	Yes      bool
	// AuditPath is the audit log; "" means guard.DefaultAuditPath(), "-"
	// keeps no log.
	AuditPath string
	// OnNotice hears one-line notices meant for the person, such as the
	// browser starting on first use; it may run on any goroutine.
	OnNotice func(msg string)
	// KeepTabs leaves the tabs the agent opened in the person's Chrome
	// open when the session ends or disconnects (by default they are
	// closed, and the notice says how many).
	KeepTabs bool

	// wrapGuard, when set, wraps the policy as the one judge every
	// question of the session goes to (the registry's, the result
	// screen's, the snapshot's frames'): tests count them.
	wrapGuard func(*guard.Policy) tools.Guard
}

// Session is one running browseragent: the guard policy, the tool registry
// and the tool sources behind it (web_fetch, the browser, the MCP servers).
// The shell, `run` and the subcommands all build one and call tools only
// through Registry.
type Session struct {
	Policy   *guard.Policy
	Registry *tools.Registry
	Browser  *browser.Browser
	MCP      *mcpclient.Manager // nil without MCP servers

	audit *guard.AuditLog
	judge tools.Guard // Policy, or SessionOptions.wrapGuard's: every question goes here
	pages *mcpPages
	web   *tools.WebFetch

	// modeMu keeps the browser's mode and the guard policy's in step:
	// Connect, Disconnect and a lost browser switch both under it.
	modeMu  sync.Mutex
	lost    bool             // the person's browser went away since the last Connect
	onLost  func(msg string) // see OnBrowserLost
	closing bool             // Close began: a loss restarts nothing
	bg      sync.WaitGroup   // restarts after a loss, waited for by Close
	notice  func(msg string) // SessionOptions.OnNotice, never nil
	exec    string           // browser.LaunchOptions.ExecPath: "" means FindChrome
	keep    bool             // SessionOptions.KeepTabs
}

// trustedServers are the servers configured with "trust": true (Gemini
// CLI's settings.json), which the guard lets run without asking in
// isolated mode only.
func trustedServers(cfg *mcpclient.Config) []string {
	if cfg == nil {
		return nil
	}
	var out []string
	for _, n := range cfg.Names() {
		if cfg.Servers[n].Trust {
			out = append(out, n)
		}
	}
	return out
}

// errBrowserUnavailable is the state of chrome-devtools-mcp when there is
// no browser to point it at: it is never started against another one.
var errBrowserUnavailable = errors.New("unavailable")

// NewSession wires the parts; nothing is started yet (see Start).
func NewSession(opts *SessionOptions) (*Session, error) {
	if opts == nil || opts.Rules == nil {
		return nil, errors.New("session: sensitive-site rules are required")
	}
	s := &Session{Policy: guard.NewPolicy(opts.Rules, &guard.Options{TrustedServers: trustedServers(opts.MCP)}), notice: opts.OnNotice, exec: opts.Browser.Launch.ExecPath, keep: opts.KeepTabs}
	if s.notice == nil {
		s.notice = func(string) {}
	}
	s.judge = s.Policy
	if opts.wrapGuard != nil {
		s.judge = opts.wrapGuard(s.Policy)
	}
	ro := &tools.RegistryOptions{Approver: opts.Approver, Yes: opts.Yes, Screen: s.screen, Locator: locator{s}, Guard: s.judge}
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
	if next := bo.OnLost; next != nil {
		bo.OnLost = func() { s.browserLost(); next() }
	} else {
		bo.OnLost = s.browserLost
	}
	bo.OnLaunch = s.browserLaunching
	bo.FrameWithheld = s.framesWithheld
	bo.DownloadRefused = s.downloadRefused
	if bo.Launch.DialControl == nil {
		// The isolated browser's connections are judged at the resolved
		// address, as web_fetch's are: a name resolving to a metadata
		// address is refused whatever in the page asked for it.
		bo.Launch.DialControl = s.Policy.DialControl
	}
	if bo.Launch.RequestControl == nil {
		// And each request at the connection it goes out on, by its URL
		// and by the address: deny rules with paths (the browser's
		// DevTools paths on loopback among them) hold for a page's own
		// requests too.
		bo.Launch.RequestControl = func(address string, u *url.URL) error {
			return s.Policy.Rules().CheckPageRequest(address, u)
		}
	}
	// The browser's own DevTools endpoint is out of every tool's reach
	// once it is known, and an endpoint a deny rule names is never dialled.
	bo.OnEndpoint = s.Policy.SetBrowserEndpoints
	bo.AllowEndpoint = s.Policy.CheckEndpoint
	s.Browser = browser.New(&bo)
	s.Registry = tools.NewRegistry(s.Policy, ro)
	fo := fetch.Options{}
	if opts.Fetch != nil {
		fo = *opts.Fetch
	}
	// The guard judges every redirect; a caller's own check (a batch's
	// robots.txt) runs after it.
	ownRedirect := fo.AllowRedirect
	fo.AllowRedirect = func(to string) error {
		if err := s.Registry.Recheck(tools.WebFetchName, to); err != nil || ownRedirect == nil {
			return err
		}
		return ownRedirect(to)
	}
	// The guard judges the resolved address of every connection; a
	// caller's own control (tests) runs after it.
	own := fo.DialControl
	fo.DialControl = func(ctx context.Context, network, address string, c syscall.RawConn) error {
		if err := s.Policy.DialControl(ctx, network, address, c); err != nil || own == nil {
			return err
		}
		return own(ctx, network, address, c)
	}
	// And every request at the connection it goes out on (rules naming an
	// address with paths); a caller's own check runs after it.
	ownReq := fo.RequestControl
	fo.RequestControl = func(address string, u *url.URL) error {
		if err := s.Policy.Rules().CheckRequest(address, u.Scheme, u.EscapedPath()); err != nil || ownReq == nil {
			return err
		}
		return ownReq(address, u)
	}
	s.web = tools.NewWebFetch(&fo)
	s.Registry.Add(s.web)
	s.Registry.Add(s.Browser.Provider())
	if opts.MCP != nil {
		mo := opts.MCPOptions
		mo.Adjust = s.adjustServer
		mo.OnDemand = s.isBrowserServer // with the browser, on first use
		s.MCP = mcpclient.NewManager(opts.MCP, &mo)
		s.pages = &mcpPages{mgr: s.MCP, b: s.Browser, owned: map[string]bool{}}
		s.Registry.Add(mcpTools{s.MCP, s.pages})
	}
	return s, nil
}

// Start brings the MCP servers up in the background and returns at once.
// The browser and chrome-devtools-mcp are not among them: they start on
// the first call that needs the browser (see browserLaunching). Without a
// browser to launch, chrome-devtools-mcp is marked unavailable at once.
func (s *Session) Start(ctx context.Context) {
	if s.MCP == nil {
		return
	}
	s.MCP.Start(ctx)
	if s.noChrome() != nil {
		for _, st := range s.MCP.Status() {
			if s.isBrowserServer(st.Name) && st.State == mcpclient.StateIdle {
				_ = s.MCP.WaitReady(ctx, st.Name) // fails at once, in Adjust: its state says why
			}
		}
	}
}

// noChrome says why no isolated browser can be launched, or nil.
func (s *Session) noChrome() error {
	if s.exec != "" {
		return nil // launch reports a bad path itself
	}
	_, err := browser.FindChrome()
	return err
}

// browserLaunching runs as the isolated Chromium is about to start (on the
// first call that needs it): the person hears it on one line, and
// chrome-devtools-mcp, idle so far, starts against it in the background.
func (s *Session) browserLaunching() {
	if s.noChrome() != nil {
		return // the call fails with the reason; nothing starts
	}
	if s.MCP == nil {
		s.notice("starting the browser (Chromium) for its first use…")
		return
	}
	var idle []string
	for _, st := range s.MCP.Status() {
		if s.isBrowserServer(st.Name) && st.State == mcpclient.StateIdle {
			idle = append(idle, st.Name)
		}
	}
	if len(idle) == 0 {
		s.notice("starting the browser (Chromium) for its first use…")
		return
	}
	s.notice("starting the browser (Chromium and " + strings.Join(idle, ", ") + ") for its first use…")
	for _, name := range idle {
		go func() { _ = s.MCP.WaitReady(context.Background(), name) }() // its state carries any failure
	}
}

// Connect attaches to the person's browser (shared mode), clears every
// "always" grant and owned tab, and restarts the browser MCP servers against
// it. The returned message says which grants were dropped ("" for none).
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
// mode, with the same trust reset. The returned message says which tabs it
// closed and which grants it dropped ("" for none).
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
	closed := s.closeAgentTabs(ctx)
	err := s.Browser.Disconnect()
	msg := strings.TrimSpace(closed + " " + s.Policy.SetMode(guard.Isolated))
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
	msg := strings.TrimSpace("Lost the connection to your Chrome (closed or crashed): back to the isolated browser, trust reset. " + s.Policy.SetMode(guard.Isolated))
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
	if s.Browser.Mode() == browser.ModeShared {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if msg := s.closeAgentTabs(ctx); msg != "" {
			s.notice(msg)
		}
		cancel()
	}
	var errs []error
	if s.MCP != nil {
		errs = append(errs, s.MCP.Close())
	}
	errs = append(errs, s.Browser.Close())
	s.web.Close()
	if s.audit != nil {
		errs = append(errs, s.audit.Close())
	}
	return errors.Join(errs...)
}

// closeAgentTabs closes the tabs the agent opened in the person's Chrome
// (unless KeepTabs) and says how many, "" when none. Tabs chrome-devtools-
// mcp opened that our browser never matched are closed through it.
func (s *Session) closeAgentTabs(ctx context.Context) string {
	if s.keep || s.Browser.Mode() != browser.ModeShared {
		return ""
	}
	n, err := s.Browser.CloseOwned(ctx)
	if s.pages != nil {
		n += s.pages.closeOwned(ctx)
	}
	var msg string
	switch n {
	case 0:
	case 1:
		msg = "Closed the tab the agent opened in your Chrome."
	default:
		msg = fmt.Sprintf("Closed the %d tabs the agent opened in your Chrome.", n)
	}
	if err != nil {
		msg = strings.TrimSpace(msg + " Some of its tabs could not be closed; close them yourself.")
	}
	return msg
}

func (s *Session) restartBrowserServers(ctx context.Context) {
	if s.MCP == nil {
		return
	}
	s.pages.reset()
	// The person's browser is there already (connecting is the first use),
	// and so is an isolated browser that Disconnect brought back: its tabs
	// are on offer at once.
	running := s.Browser.Mode() == browser.ModeShared || s.Browser.Running()
	for _, st := range s.MCP.Status() {
		if !s.isBrowserServer(st.Name) || st.State == mcpclient.StateDisabled {
			continue
		}
		if running {
			_ = s.MCP.Restart(ctx, st.Name) // its state carries any failure
		} else {
			// Back to an isolated browser that is not running: it starts
			// again with that browser, on the first call that needs it.
			_ = s.MCP.Idle(ctx, st.Name)
		}
	}
}

func (s *Session) isBrowserServer(name string) bool { return catalog.IsBrowserServer(name) }

// framesWithheld says, for each frame a snapshot or browser_extract's text
// would show, why it must leave out the frame's content ("" where it may
// show): a page a deny rule names, by an address its document reports or
// the browser listed, or by where its document came from. It is part of
// the result screen's one question about call (ScreenResult), which also
// asks about top, the tab's document the frames are in, so the screen
// after the call finds it answered; a call run without the registry (nil)
// asks the guard directly.
func (s *Session) framesWithheld(call *tools.ResolvedCall, top browser.FrameSource, frames []browser.FrameSource) []string {
	var from []guard.Frame
	var of []int // from[k] is about frames[of[k]]; -1 the top document
	for i, f := range append([]browser.FrameSource{top}, frames...) {
		for _, u := range f.URLs {
			from, of = append(from, guard.Frame{URL: u}), append(of, i-1)
			if f.Addr != "" {
				from, of = append(from, guard.Frame{URL: u, Addr: f.Addr}), append(of, i-1)
			}
		}
	}
	ask := s.judge.Screen
	if call != nil {
		ask = call.ScreenResult
	}
	why := make([]string, len(frames))
	for k, d := range ask(from) {
		if i := of[k]; i >= 0 && d != nil && why[i] == "" {
			u := from[k].URL
			why[i] = fmt.Sprintf("browseragent withheld this frame: it shows %s, which the sensitive-site rule %q denies (%s)", guard.RedactURL(u), d.Rule, d.Category)
		}
	}
	return why
}

// stoppedBeforeSent is how an input's refused request is told apart in
// its result (provenance.go keeps that refusal rather than withhold it).
const stoppedBeforeSent = "the request was stopped before it was sent"

// downloadRefused says why a download must not come from u, or an input
// in the person's Chrome must not make its page ask for u ("" where it
// may): a page a deny rule names, as the result screen would withhold it
// (browser.Options.DownloadRefused).
func (s *Session) downloadRefused(call *tools.ResolvedCall, u string) string {
	ask := s.judge.Screen
	from := []guard.Frame{{URL: u}}
	if call != nil {
		ask = call.ScreenResult
		// With the tab's document, as the result screen will ask about it
		// (Session.screen): one question about the call's result.
		if p := call.Page; p.URL != "" {
			from = append(from, guard.Frame{URL: p.URL})
			if p.Addr != "" {
				from = append(from, guard.Frame{URL: p.URL, Addr: p.Addr})
			}
		}
	}
	d := ask(from)[0]
	if d == nil {
		return ""
	}
	if call != nil && call.Def.Name != "browser_download" {
		// an input in the person's Chrome (browser.inputRequests)
		return fmt.Sprintf("Refused: %s made the page ask for %s, which matches the deny rule %q (%s): browseragent never acts there, and nobody can approve it; "+stoppedBeforeSent+", so nothing was loaded or saved. Do this step yourself, in your own browser.", call.Def.Name, guard.RedactURL(u), d.Rule, d.Category)
	}
	return fmt.Sprintf("Refused: browser_download would save a file from %s, which matches the deny rule %q (%s): browseragent never acts there, and nobody can approve it; nothing was kept. Do this step yourself, in your own browser.", guard.RedactURL(u), d.Rule, d.Category)
}

// adjustServer points chrome-devtools-mcp at our browser (the isolated one,
// launched on demand, or the person's), so native and MCP tools see the
// same tabs. It is only ever started against that endpoint: flags in its
// config that name another browser are dropped, and with no browser it is
// unavailable (errBrowserUnavailable) instead of launching one of its own.
// It always gets the safety arguments (header redaction, get_tab_id for
// tab identity) and get_tab_id stays hidden from the model.
func (s *Session) adjustServer(name string, sc *mcpclient.ServerConfig) {
	if !s.isBrowserServer(name) || sc.URL != "" {
		return
	}
	if !slices.Contains(sc.ExcludeTools, browser.TabIDTool) {
		sc.ExcludeTools = append(slices.Clone(sc.ExcludeTools), browser.TabIDTool)
	}
	if s.Browser.Mode() != browser.ModeShared {
		if err := s.noChrome(); err != nil {
			sc.Err = fmt.Errorf("%w: no browser to drive: %v", errBrowserUnavailable, err)
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ws, err := s.Browser.WSEndpoint(ctx)
	if err != nil {
		sc.Err = fmt.Errorf("%w: no browser to drive: %v", errBrowserUnavailable, err)
		return
	}
	args := withoutBrowserFlags(sc.Args)
	for _, a := range browser.ChromeDevtoolsMCPArgs(ws) {
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

// browserFlags are chrome-devtools-mcp's flags that pick or launch a
// browser, with whether they take a value.
var browserFlags = map[string]bool{
	"--wsEndpoint": true, "--ws-endpoint": true, "-w": true,
	"--browserUrl": true, "--browser-url": true, "-u": true,
	"--executablePath": true, "--executable-path": true, "-e": true,
	"--channel": true, "--userDataDir": true, "--user-data-dir": true,
	"--autoConnect": false, "--auto-connect": false, "--isolated": false,
}

// withoutBrowserFlags drops the flags that would point chrome-devtools-mcp
// at a browser other than ours (the whole "--flag value" or "--flag=value").
func withoutBrowserFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		flag, _, hasValue := strings.Cut(a, "=")
		takes, ok := browserFlags[flag]
		if !ok {
			out = append(out, a)
			continue
		}
		if takes && !hasValue && i+1 < len(args) {
			i++ // its value
		}
	}
	return out
}

// Facts describes the session for the system prompt: which browser the
// agent is driving and what that means for its actions.
func (s *Session) Facts() string {
	if s.Mode() == guard.Shared {
		return "Browser mode: shared. You are driving the person's own Chrome, with their logins. You may close only tabs you opened. Every write asks the person first; on sensitive sites every single write needs a fresh approval."
	}
	return "Browser mode: isolated. You are driving a throwaway Chromium with an empty profile: no logins. If the task needs the person's session, tell them to run /connect."
}

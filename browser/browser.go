package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/browseragent/browseragent/tools"
)

// Mode says whose browser the tools drive.
type Mode int

const (
	ModeIsolated Mode = iota // our own Chromium with a temporary profile
	ModeShared               // the person's running Chrome
)

func (m Mode) String() string {
	if m == ModeShared {
		return "shared"
	}
	return "isolated"
}

// ErrLost means the connection to the browser ended (Chrome closed or
// crashed). In isolated mode the next call launches a new browser.
var ErrLost = errors.New("lost the connection to the browser (was it closed?): run /connect again, or call the tool again for a fresh isolated browser")

// errSharedLost is ErrLost when the person's browser went away: the Browser
// is back in isolated mode by the time a caller sees it.
var errSharedLost = lostError("lost the connection to the person's Chrome (closed or crashed): back in isolated mode with trust reset; call the tool again for a fresh isolated browser, or run /connect to attach again")

// lostError is a loss message that matches ErrLost under errors.Is.
type lostError string

func (e lostError) Error() string        { return string(e) }
func (e lostError) Is(target error) bool { return target == ErrLost }

// Options configure a Browser; nil means defaults.
type Options struct {
	Launch        LaunchOptions
	NavTimeout    time.Duration // page load wait, default 30s
	ScreenshotDir string        // default $TMPDIR/browseragent-screenshots
	SnapshotLimit int           // characters of snapshot text, default 30000
	// ExtractLinks makes browser_extract's typed outcome (Extracted, its
	// result's Data) list the page's links too (fetch --render --links).
	ExtractLinks bool
	// OnLost is called once when the person's browser goes away while
	// connected, after the Browser switched back to isolated mode, so the
	// owner can follow (guard mode, MCP servers, prompt). It runs on the
	// goroutine that noticed the loss, with no Browser lock held, and may
	// call the Browser.
	OnLost func()
	// OnLaunch is called just before the isolated Chromium is launched (on
	// the first call that needs it), so the owner can say so and start what
	// depends on it. It runs with the Browser's lock held: it must not call
	// the Browser, except from a goroutine of its own.
	OnLaunch func()
	// OnEndpoint is called with the DevTools websocket URLs of the
	// browsers the Browser holds whenever they change (the isolated one
	// launched, the person's attached to, an isolated one set aside or
	// brought back), so the guard can keep every tool away from them. It
	// runs with the Browser's lock held and must not call the Browser.
	OnEndpoint func(ws []string)
	// AllowEndpoint, when set, judges every address Connect is about to
	// reach for the DevTools protocol (a websocket URL, a browser URL, the
	// endpoint a profile's DevToolsActivePort names) before any byte goes
	// there; an error refuses the connection.
	AllowEndpoint func(endpoint string) error
	// FrameWithheld says, for each frame a snapshot or browser_extract's
	// text would show, why its content must be left out ("" where it may
	// show): a frame of a page a deny rule names. It is asked once per
	// result, about all of its frames and top, the tab's document they are
	// in, as part of the result screen's one question about call
	// (tools.ResolvedCall.ScreenResult; call is nil for a tool run
	// directly). Nil shows every frame.
	FrameWithheld func(call *tools.ResolvedCall, top FrameSource, frames []FrameSource) []string
	// DownloadRefused says why browser_download must not take a file from
	// url ("" where it may): a page a deny rule names. It is asked of the
	// link the call clicks, before the click, and of the address each
	// download comes from (after redirects) as it begins, as part of the
	// result screen's one question about call (nil for a tool run
	// directly). An attached browser judges no request itself, so this is
	// what keeps a link on an ordinary page from saving a denied page's
	// file with the person's cookies. In the person's Chrome it is asked
	// too of every document request an input makes while its call runs
	// (inputreqs.go), with that call. Nil refuses nothing.
	DownloadRefused func(call *tools.ResolvedCall, url string) string
	// DownloadDir is the folder browser_download saves into when a call
	// names none (default defaultDownloadDir), and DownloadLimit the
	// largest file it keeps (default 100 MiB).
	DownloadDir   string
	DownloadLimit int64
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.NavTimeout <= 0 {
		v.NavTimeout = 30 * time.Second
	}
	if v.ScreenshotDir == "" {
		v.ScreenshotDir = filepath.Join(os.TempDir(), "browseragent-screenshots")
	}
	if v.DownloadDir == "" {
		v.DownloadDir = defaultDownloadDir()
	}
	if v.DownloadLimit <= 0 {
		v.DownloadLimit = 100 << 20
	}
	if v.SnapshotLimit <= 0 {
		v.SnapshotLimit = 30000
	}
	return v
}

// Browser is the agent's browser: isolated until Connect, shared until
// Disconnect. The isolated Chromium starts lazily on the first call that
// needs it, so constructing a Browser costs nothing.
type Browser struct {
	opts Options

	mu   sync.Mutex // guards s, parked, mode and lost
	s    *session
	mode Mode
	// parked is the isolated session Connect set aside: its tabs come back
	// with Disconnect (or the loss of the person's browser) instead of a
	// new, empty Chromium.
	parked *session
	// lost is the shared session that went away, until a tool call has
	// reported the loss (ErrLost) once.
	lost *session
}

// New returns a Browser in isolated mode; nothing starts yet.
func New(o *Options) *Browser {
	return &Browser{opts: o.withDefaults()}
}

// Mode reports the current mode.
func (b *Browser) Mode() Mode {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mode
}

// Running reports whether a browser is attached or launched right now.
func (b *Browser) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s != nil && !b.s.dead()
}

// WSEndpoint returns the websocket URL of the current browser, launching the
// isolated one when needed; chrome-devtools-mcp gets it as --wsEndpoint.
func (b *Browser) WSEndpoint(ctx context.Context) (string, error) {
	s, err := b.live(ctx, false) // the loss is for the next tool call to report
	if err != nil {
		return "", err
	}
	return s.ws, nil
}

// session returns the live session for a tool call, launching the isolated
// browser when none runs. A shared session that died is never replaced
// silently: the first call after the loss gets ErrLost.
func (b *Browser) session(ctx context.Context) (*session, error) {
	return b.live(ctx, true)
}

// live returns the live session; report says whether a pending loss of the
// person's browser is reported (and so consumed) here.
func (b *Browser) live(ctx context.Context, report bool) (*session, error) {
	for {
		s, dead, err := b.liveLocked(ctx, report)
		if dead == nil {
			return s, err
		}
		b.markLost(dead)
	}
}

// liveLocked is one attempt of live; it returns a dead shared session
// instead of handling it, since OnLost must run without the lock.
func (b *Browser) liveLocked(ctx context.Context, report bool) (*session, *session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.s != nil && b.s.dead() && b.mode == ModeShared {
		return nil, b.s, nil
	}
	if report && b.lost != nil {
		b.lost = nil
		return nil, nil, errSharedLost
	}
	if b.s != nil && !b.s.dead() {
		return b.s, nil, nil
	}
	if b.s != nil {
		old := b.s
		b.s = nil
		old.close()
	}
	s, err := b.launchLocked(ctx)
	return s, nil, err
}

// markLost switches to isolated mode when s, the shared session, is still
// the current one, keeps the loss for the next tool call and tells OnLost.
// A session that Connect, Disconnect or Close already replaced is ignored.
func (b *Browser) markLost(s *session) {
	b.mu.Lock()
	if b.s != s || b.mode != ModeShared {
		b.mu.Unlock()
		return
	}
	b.s, b.mode, b.lost = b.takeParkedLocked(), ModeIsolated, s
	b.endpointsLocked()
	b.mu.Unlock()
	s.close()
	if b.opts.OnLost != nil {
		b.opts.OnLost()
	}
}

// lostErr is the error of a call whose session s died under it. A shared
// loss counts as reported, so the next call starts the isolated browser.
func (b *Browser) lostErr(s *session) error {
	if s.mode != ModeShared || !s.dead() {
		return ErrLost
	}
	b.markLost(s)
	b.mu.Lock()
	if b.lost == s {
		b.lost = nil
	}
	b.mu.Unlock()
	return errSharedLost
}

// watch notices the person's browser going away while nobody calls a tool,
// so the mode is right at once (prompt, /mode, guard).
func (b *Browser) watch(s *session) {
	<-s.root.Done()
	b.markLost(s)
}

// launchLocked starts the isolated browser; b.mu is held.
func (b *Browser) launchLocked(ctx context.Context) (*session, error) {
	if b.opts.OnLaunch != nil {
		b.opts.OnLaunch()
	}
	if host := b.opts.Launch.Host; host != "" {
		var proxy *dialProxy
		if b.opts.Launch.DialControl != nil && !envProxy() {
			var err error
			if proxy, err = startDialProxy(b.opts.Launch.DialControl, b.opts.Launch.RequestControl); err != nil {
				return nil, err
			}
		}
		s, err := b.openSession(ctx, host, ModeIsolated, nil, true, proxy)
		if err != nil {
			return nil, fmt.Errorf("isolated browser in %s: %w", host, err)
		}
		s.choosers = true // a test's shared Chromium, headless
		b.s = s
		b.endpointsLocked()
		return s, nil
	}
	p, err := launch(ctx, b.opts.Launch)
	if err != nil {
		return nil, err
	}
	s, err := b.openSession(ctx, p.ws, ModeIsolated, p, false, nil)
	if err != nil {
		p.stop()
		return nil, err
	}
	s.choosers = !b.opts.Launch.Headed
	b.s = s
	b.endpointsLocked()
	return s, nil
}

// endpointsLocked reports the DevTools endpoints of the browsers the
// Browser holds now (the one driven, and an isolated one set aside); b.mu
// is held, or b.s is not yet shared with other goroutines.
func (b *Browser) endpointsLocked() {
	if b.opts.OnEndpoint == nil {
		return
	}
	var ws []string
	for _, s := range []*session{b.s, b.parked} {
		if s != nil {
			ws = append(ws, s.ws)
		}
	}
	b.opts.OnEndpoint(ws)
}

// Connect attaches to the person's running browser and switches to shared
// mode, stopping an isolated browser if one runs. It never launches or closes
// the person's browser.
func (b *Browser) Connect(ctx context.Context, t Target) error {
	ws, err := resolveEndpoint(ctx, t, b.opts.AllowEndpoint)
	if err != nil {
		return err
	}
	s, err := b.openSession(ctx, ws, ModeShared, nil, false, nil)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", ws, err)
	}
	b.mu.Lock()
	old := b.s
	if old != nil && old.mode == ModeIsolated && !old.dead() {
		// The isolated browser and its tabs wait for Disconnect.
		b.parked, old = old, nil
	}
	b.s, b.mode, b.lost = s, ModeShared, nil
	b.endpointsLocked()
	b.mu.Unlock()
	go b.watch(s)
	if old != nil {
		old.close()
	}
	return nil
}

// takeParkedLocked returns the isolated session Connect set aside when it
// still runs (nil otherwise, so the next call launches a new one); b.mu is
// held.
func (b *Browser) takeParkedLocked() *session {
	p := b.parked
	b.parked = nil
	if p != nil && p.dead() {
		p.close()
		return nil
	}
	return p
}

// Disconnect detaches from the person's browser, leaving every tab as it
// was, and returns to isolated mode: the isolated browser from before
// Connect, with its tabs, when it still runs. It does nothing in isolated
// mode.
func (b *Browser) Disconnect() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mode != ModeShared {
		return nil
	}
	old := b.s
	b.s, b.mode = b.takeParkedLocked(), ModeIsolated
	b.endpointsLocked()
	if old != nil {
		return old.close()
	}
	return nil
}

// Close detaches from a shared browser or stops the isolated one, removing
// its profile. The Browser can be used again afterwards.
func (b *Browser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	old, parked := b.s, b.parked
	b.s, b.parked, b.mode, b.lost = nil, nil, ModeIsolated, nil
	var errs []error
	if parked != nil {
		errs = append(errs, parked.close())
	}
	if old != nil {
		errs = append(errs, old.close())
	}
	return errors.Join(errs...)
}

// session is one connection to one browser.
type session struct {
	mode        Mode
	ws          string
	proc        *process // nil when attached to someone else's browser
	allocCancel context.CancelFunc
	root        context.Context // browser-level context; never has a target
	rootCancel  context.CancelFunc
	// bctx is the browser context the session made for itself in a
	// Chromium it shares (LaunchOptions.Host); "" means the whole browser.
	// Only its tabs are the session's, and close disposes of it.
	bctx cdp.BrowserContextID
	// proxy is the dial-guard proxy of the session's own browser context
	// (a launched Chromium's is its process's).
	proxy *dialProxy
	// events are the browser's own (downloads), for the calls waiting
	// for some of them.
	events hub
	// began are the downloads that began lately, the refused ones of a
	// page's own among them.
	began beganDownloads
	// choosers: the agent's own headless browser, where no person could
	// see a file chooser, so its tabs catch every one (see attach).
	choosers bool

	mu      sync.Mutex
	tabs    map[target.ID]*tab
	gone    map[target.ID]bool // closed tabs: a late event must not bring one back
	short   map[string]target.ID
	tabPage map[target.ID]target.ID // CDP tab target -> its page target (TabOfTabTarget)
	next    int
	current target.ID
	closed  bool
	// creating counts newTab's tabs being created: a tab that appears
	// meanwhile may be one of them, so it is never the spare blank tab
	// another newTab hands out (two renders then shared one tab).
	creating int
}

// openSession connects to ws and starts tracking page targets; ownContext
// makes it a browser context of its own there, holding one blank tab,
// whose connections go through proxy when it is not nil (the session
// closes it).
func (b *Browser) openSession(ctx context.Context, ws string, mode Mode, p *process, ownContext bool, proxy *dialProxy) (*session, error) {
	allocCtx, allocCancel := remote.NewAllocator(context.Background(), ws, remote.NoModifyURL)
	root, rootCancel := chromedp.NewContext(allocCtx, chromedp.WithBrowserOption(append(cdpLogOptions(), chromedp.WithBrowserErrorf(chromedpErrorf))...))
	s := &session{
		mode: mode, ws: ws, proc: p, proxy: proxy, allocCancel: allocCancel,
		root: root, rootCancel: rootCancel,
		tabs: map[target.ID]*tab{}, gone: map[target.ID]bool{}, short: map[string]target.ID{}, tabPage: map[target.ID]target.ID{},
	}
	errc := make(chan error, 1)
	go func() { errc <- s.start(ownContext) }()
	select {
	case err := <-errc:
		if err != nil {
			s.close()
			return nil, err
		}
	case <-ctx.Done():
		s.close()
		return nil, ctx.Err()
	case <-time.After(20 * time.Second):
		s.close()
		return nil, fmt.Errorf("browser at %s did not answer within 20s", ws)
	}
	return s, nil
}

// start runs the first call on root (which binds the connection to root,
// not to a caller's deadline), subscribes to target events and seeds the
// tab list. With ownContext it first makes the session's browser context,
// disposed of by the browser should the connection drop before close, and
// opens its first blank tab, as a launched Chromium has one.
func (s *session) start(ownContext bool) error {
	if err := chromedp.ListenBrowser(s.root, s.onEvent); err != nil {
		return err
	}
	if ownContext {
		params := target.CreateBrowserContextParams{DisposeOnDetach: new(true)}
		if s.proxy != nil {
			params.ProxyServer, params.ProxyBypassList = "http://"+s.proxy.addr(), "<-loopback>"
		}
		res, err := chromedp.CallBrowser(s.root, target.CreateBrowserContext, params)
		if err != nil {
			return fmt.Errorf("create a browser context: %w", err)
		}
		id := res.BrowserContextID
		s.mu.Lock()
		s.bctx = id
		s.mu.Unlock()
		if _, err := chromedp.CallBrowser(s.root, target.CreateTarget,
			target.CreateTargetParams{URL: "about:blank", NewWindow: new(true), BrowserContextID: id}); err != nil {
			return fmt.Errorf("open the first tab: %w", err)
		}
	}
	if s.mode == ModeIsolated {
		// A page may start a download by itself (<a download> clicked by
		// a script, Content-Disposition: attachment): Chromium would write
		// the file the page chose into ~/Downloads, a file write nobody
		// judged. The agent's own browser downloads nothing; the person's
		// Chrome keeps its own settings. The events say which pages try
		// (beganDownloads).
		if _, err := chromedp.CallBrowser(s.root, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: s.bctx, EventsEnabled: new(true)}); err != nil {
			return fmt.Errorf("refuse downloads: %w", err)
		}
	}
	if _, err := chromedp.CallBrowser(s.root, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		return err
	}
	infos, err := chromedp.Targets(s.root)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, info := range infos {
		s.upsertLocked(info)
	}
	// The isolated browser's first tab is the current one; in the
	// person's browser only a tab that is the one open (the one they are
	// looking at), since with several nothing says which they mean.
	if ids := s.orderLocked(); len(ids) > 0 && (s.mode == ModeIsolated || len(ids) == 1) {
		s.current = ids[0]
	}
	return nil
}

// dead reports whether the connection ended, or the browser we launched
// exited (which the connection may learn a little later).
func (s *session) dead() bool {
	if s.proc != nil {
		select {
		case <-s.proc.exited:
			return true
		default:
		}
	}
	select {
	case <-s.root.Done():
		return true
	default:
		return false
	}
}

// close detaches from every tab (leaving it open), drops the connection, and
// stops the browser when we launched it.
func (s *session) close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	var cancels []context.CancelFunc
	for _, t := range s.tabs {
		if t.cancel != nil {
			cancels = append(cancels, t.cancel)
		}
	}
	s.mu.Unlock()
	for _, c := range cancels {
		c()
	}
	if s.bctx != "" && !s.dead() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := cdp.Call(ctx, chromedp.FromContext(s.root).Browser, target.DisposeBrowserContext,
			target.DisposeBrowserContextParams{BrowserContextID: s.bctx})
		cancel()
		if err != nil {
			s.rootCancel()
			s.allocCancel()
			return fmt.Errorf("dispose of the browser context: %w", err)
		}
	}
	s.rootCancel()
	s.allocCancel()
	if s.proxy != nil {
		s.proxy.close()
	}
	if s.proc != nil {
		return s.proc.stop()
	}
	return nil
}

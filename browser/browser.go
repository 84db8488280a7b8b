// Package browser drives Chromium over the DevTools Protocol with chromedp:
// an isolated headless browser it launches itself, or the person's own
// Chrome it attaches to (shared mode). It tracks tabs and which of them the
// agent opened, and offers the native browser_* tools as data plus one Call.
//
// A Browser is safe for concurrent use. It never prints.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
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

// Options configure a Browser; nil means defaults.
type Options struct {
	Launch        LaunchOptions
	NavTimeout    time.Duration // page load wait, default 30s
	CallTimeout   time.Duration // any one tool call, default 60s
	ScreenshotDir string        // default $TMPDIR/browseragent-screenshots
	SnapshotLimit int           // characters of snapshot text, default 30000
	// Extract turns rendered HTML into markdown for browser_extract; nil
	// means ExtractDOM. ctx is the context the tool was called with, so a
	// caller can pass values through to its extractor.
	Extract func(ctx context.Context, html []byte, pageURL, selector string) (string, error)
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.NavTimeout <= 0 {
		v.NavTimeout = 30 * time.Second
	}
	if v.CallTimeout <= 0 {
		v.CallTimeout = 60 * time.Second
	}
	if v.ScreenshotDir == "" {
		v.ScreenshotDir = filepath.Join(os.TempDir(), "browseragent-screenshots")
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

	mu   sync.Mutex // guards s
	s    *session
	mode Mode
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
	s, err := b.session(ctx)
	if err != nil {
		return "", err
	}
	return s.ws, nil
}

// session returns the live session, launching the isolated browser when none
// runs. A shared session that died is reported, never replaced silently.
func (b *Browser) session(ctx context.Context) (*session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.s != nil && !b.s.dead() {
		return b.s, nil
	}
	if b.s != nil {
		old := b.s
		b.s = nil
		old.close()
		if b.mode == ModeShared {
			b.mode = ModeIsolated
			return nil, ErrLost
		}
	}
	p, err := launch(ctx, b.opts.Launch)
	if err != nil {
		return nil, err
	}
	s, err := openSession(ctx, p.ws, ModeIsolated, p)
	if err != nil {
		p.stop()
		return nil, err
	}
	b.s = s
	return s, nil
}

// Connect attaches to the person's running browser and switches to shared
// mode, stopping an isolated browser if one runs. It never launches or closes
// the person's browser.
func (b *Browser) Connect(ctx context.Context, t Target) error {
	ws, err := ResolveEndpoint(ctx, t)
	if err != nil {
		return err
	}
	s, err := openSession(ctx, ws, ModeShared, nil)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", ws, err)
	}
	b.mu.Lock()
	old := b.s
	b.s, b.mode = s, ModeShared
	b.mu.Unlock()
	if old != nil {
		old.close()
	}
	return nil
}

// Disconnect detaches from the person's browser, leaving every tab as it
// was, and returns to isolated mode. It does nothing in isolated mode.
func (b *Browser) Disconnect() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mode != ModeShared {
		return nil
	}
	old := b.s
	b.s, b.mode = nil, ModeIsolated
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
	old := b.s
	b.s, b.mode = nil, ModeIsolated
	if old != nil {
		return old.close()
	}
	return nil
}

// session is one connection to one browser.
type session struct {
	mode        Mode
	ws          string
	proc        *process // nil when attached to someone else's browser
	allocCancel context.CancelFunc
	root        context.Context // browser-level context; never has a target
	rootCancel  context.CancelFunc

	mu      sync.Mutex
	tabs    map[target.ID]*tab
	short   map[string]target.ID
	next    int
	current target.ID
	closed  bool
}

// openSession connects to ws and starts tracking page targets.
func openSession(ctx context.Context, ws string, mode Mode, p *process) (*session, error) {
	allocCtx, allocCancel := remote.NewAllocator(context.Background(), ws, remote.NoModifyURL)
	root, rootCancel := chromedp.NewContext(allocCtx)
	s := &session{
		mode: mode, ws: ws, proc: p, allocCancel: allocCancel,
		root: root, rootCancel: rootCancel,
		tabs: map[target.ID]*tab{}, short: map[string]target.ID{},
	}
	errc := make(chan error, 1)
	go func() { errc <- s.start() }()
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
// tab list.
func (s *session) start() error {
	if err := chromedp.ListenBrowser(s.root, s.onEvent); err != nil {
		return err
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
	if s.mode == ModeIsolated {
		for _, id := range s.orderLocked() {
			s.current = id
			break
		}
	}
	return nil
}

// dead reports whether the connection ended.
func (s *session) dead() bool {
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
	s.rootCancel()
	s.allocCancel()
	if s.proc != nil {
		return s.proc.stop()
	}
	return nil
}

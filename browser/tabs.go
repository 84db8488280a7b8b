package browser

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/browseragent/browseragent/internal/words"
)

// Tab is one page of the browser as the tools see it.
type Tab struct {
	ID      string `json:"id"` // short, stable for the session: t1, t2, ...
	URL     string `json:"url"`
	Title   string `json:"title"`
	Owned   bool   `json:"owned"`   // the agent opened it (or a tab it owns opened it as a popup)
	Current bool   `json:"current"` // the tab page tools act on
}

// errNoTab means a tool needs a page and there is none to act on.
var errNoTab = words.New("no current tab: open one with browser_open, or pick one with browser_tabs and browser_select_tab",
	"no current tab: /open URL opens one, /tabs lists them and /tab N picks one")

// tab is the live state of one page target.
type tab struct {
	id    target.ID
	short string
	seq   int
	url   string
	title string
	owned bool
	used  bool // the agent navigated it at least once
	// heldOpen: scripts in this (person's) tab can no longer close it, for
	// as long as the attachment lives (see holdOpen).
	heldOpen bool
	// readyWatch: the settle watch (readyJS) runs in every new document
	// of the tab, for as long as the attachment lives (see watchReady).
	readyWatch bool

	// ctx is our attachment to the page, made lazily by attach; it always
	// detaches on cancel, so cancelling never closes the tab.
	ctx    context.Context
	cancel context.CancelFunc

	// resp is the response of the last page loaded in the tab by URL
	// (browser_open, browser_navigate); guarded by dmu.
	resp *Response

	dmu sync.Mutex
	// dialog is the JavaScript dialog open in the tab, nil when none;
	// guarded by dmu.
	dialog *page.EventJavascriptDialogOpening
	// chooser is the file chooser the last click opened, for
	// browser_upload; guarded by dmu.
	chooser *page.EventFileChooserOpened
	// chooserIn is the target the chooser opened in: the tab's, or an
	// out-of-process frame's, which owns the chooser's input element;
	// chooserRef the element whose click opened it.
	chooserIn  target.ID
	chooserRef string
	// choosers: the attachment catches every file chooser (the agent's
	// headless browser, session.choosers); guarded by dmu.
	choosers bool
	// events are the page's, for the calls waiting for some of them.
	events hub
	// net counts the page's requests in flight, for the settle wait.
	net netWatch
	// docAddr is the "ip:port" the tab's document came from, as the
	// browser reported it ("" unknown); docAddrs holds the addresses of
	// the documents the tab received, by loader. Guarded by dmu.
	docAddr  string
	docSince time.Time // when the tab's document committed
	docAddrs map[cdp.LoaderID]string
	// frameAddrs are the addresses the documents of the page's frames
	// came from (those whose events reach the tab: frames of its own
	// site), by frame. Guarded by dmu.
	frameAddrs map[cdp.FrameID]string
	// frameless: the last listing of the tab's frames found none, and no
	// frame was attached since (frameGen counts the attachments), so the
	// next one needs no round trip: a frame's element inserted, of any
	// site and in a shadow tree too, is reported (Page.frameAttached)
	// before any answer the page gives after it. Guarded by dmu.
	frameless bool
	frameGen  uint64
	crashed   bool          // the renderer died; guarded by dmu
	crashCh   chan struct{} // closed when the renderer dies; guarded by dmu
	refs      int           // highest snapshot ref handed out in this tab; guarded by dmu
	// frames are the frames snapshots of the tab outlined, by key, and
	// frameKeys their keys by frame id; worlds the main worlds of the
	// frames of the tab's own target, for the current attachment. Guarded
	// by dmu.
	last      *lastSnapshot // the model's last snapshot of the tab
	frames    map[string]*docFrame
	frameKeys map[cdp.FrameID]string
	worlds    *worlds
	// oopifs are our attachments to the tab's out-of-process frames, by
	// target; children of ctx. Guarded by the session's mu.
	oopifs map[target.ID]*frameTarget

	// busy serialises tool calls on the tab: actions of one chromedp
	// context must not race.
	busy sync.Mutex
}

// onEvent keeps the tab list current. It runs in chromedp's read loop, so it
// only updates state under the lock.
func (s *session) onEvent(ev any) {
	s.events.publish(ev)
	if e, ok := ev.(*cdpbrowser.EventDownloadWillBegin); ok {
		s.began.note(e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e := ev.(type) {
	case *target.EventTargetCreated:
		s.upsertLocked(e.TargetInfo)
	case *target.EventTargetInfoChanged:
		s.upsertLocked(e.TargetInfo)
	case *target.EventTargetDestroyed:
		s.removeLocked(e.TargetID)
	case *target.EventTargetCrashed:
		if t := s.tabs[e.TargetID]; t != nil {
			t.markCrashed()
		}
	}
}

func (s *session) upsertLocked(info *target.Info) {
	// Only tabs: not workers, iframes, prerendered pages or DevTools windows.
	if info == nil || info.Type != "page" || info.Subtype != "" || strings.HasPrefix(info.URL, "devtools://") || s.gone[info.TargetID] {
		return
	}
	if s.bctx != "" && info.BrowserContextID != s.bctx {
		return // another browser context's tab in a Chromium we share
	}
	t := s.tabs[info.TargetID]
	if t == nil {
		s.next++
		t = &tab{id: info.TargetID, short: "t" + strconv.Itoa(s.next), seq: s.next}
		// In isolated mode every tab is the agent's; in shared mode a tab
		// is owned when the agent opened it or an owned tab opened it.
		t.owned = s.mode == ModeIsolated
		t.used = s.creating > 0
		if op := s.tabs[info.OpenerID]; op != nil && op.owned {
			t.owned = true
		}
		s.tabs[info.TargetID] = t
		s.short[t.short] = info.TargetID
	}
	t.url, t.title = info.URL, info.Title
}

func (s *session) removeLocked(id target.ID) {
	t := s.tabs[id]
	if t == nil {
		return
	}
	s.gone[id] = true // target IDs are never reused
	delete(s.tabs, id)
	delete(s.short, t.short)
	if t.cancel != nil {
		go t.cancel()
	}
	if s.current == id {
		s.current = ""
		// Fall back to the newest owned tab, never to a person's tab.
		for _, oid := range s.orderLocked() {
			if s.tabs[oid].owned {
				s.current = oid
			}
		}
	}
}

// orderLocked returns the tab ids in the order we first saw them.
func (s *session) orderLocked() []target.ID {
	ids := make([]target.ID, 0, len(s.tabs))
	for id := range s.tabs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return s.tabs[ids[i]].seq < s.tabs[ids[j]].seq })
	return ids
}

// refresh asks the browser for each tab's title and URL now. The event
// feed is not enough: Chrome sends targetInfoChanged when a page commits,
// while its title is still the URL, and not when the page's <title> or a
// script sets document.title later. Only tabs already known are updated:
// a target in the answer may be destroyed before we read it, and adding it
// back would resurrect a closed tab. On failure the event-fed values stay.
func (s *session) refresh(ctx context.Context) {
	if s.dead() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	res, err := cdp.Call(ctx, chromedp.FromContext(s.root).Browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, info := range res.TargetInfos {
		if t := s.tabs[info.TargetID]; t != nil {
			t.url, t.title = info.URL, info.Title
		}
	}
}

// listFresh is list with titles and URLs read from the browser first.
func (s *session) listFresh(ctx context.Context) []Tab {
	s.refresh(ctx)
	return s.list()
}

// list returns a snapshot of the tabs as the events left them; titles may
// be stale (see refresh).
func (s *session) list() []Tab {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Tab
	for _, id := range s.orderLocked() {
		t := s.tabs[id]
		out = append(out, Tab{ID: t.short, URL: t.url, Title: t.title, Owned: t.owned, Current: id == s.current})
	}
	return out
}

// lookup finds a tab by its short id or its CDP target id ("" means the
// current tab).
func (s *session) lookup(short string) (*tab, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.current
	if short != "" {
		var ok bool
		if id, ok = s.short[short]; !ok {
			if _, ok = s.tabs[target.ID(short)]; !ok {
				return nil, words.New(fmt.Sprintf("no tab %q: list tabs with browser_tabs", short), fmt.Sprintf("no tab %q: /tabs lists them", short))
			}
			id = target.ID(short)
		}
	}
	t := s.tabs[id]
	if t == nil {
		return nil, errNoTab
	}
	return t, nil
}

// attach returns a chromedp context for the tab, attaching on first use.
// Every attachment detaches on cancel, so dropping it never closes the tab.
func (s *session) attach(t *tab) (context.Context, error) {
	s.mu.Lock()
	if t.ctx != nil {
		ctx := t.ctx
		s.mu.Unlock()
		if ctx.Err() == nil {
			return ctx, nil
		}
		s.mu.Lock()
		t.ctx, t.cancel = nil, nil
	}
	s.mu.Unlock()
	var ctx context.Context
	var cancel context.CancelFunc
	w := newWorlds()
	t.dmu.Lock()
	t.worlds = w
	t.dmu.Unlock()
	ctx, cancel = chromedp.NewContext(s.root,
		chromedp.WithTargetID(t.id),
		chromedp.WithDetachOnCancel(),
		chromedp.WithListener(w.note),
		chromedp.WithListener(func(ev any) { onPageEvent(t, ev) }))
	errc := make(chan error, 1)
	// The first Run binds the attachment to ctx itself, so it must not carry
	// a deadline; the wait for it is bounded here instead.
	go func() { errc <- chromedp.Do(ctx) }()
	select {
	case err := <-errc:
		if err != nil {
			cancel()
			return nil, fmt.Errorf("attach to tab %s: %w", t.short, err)
		}
	case <-time.After(15 * time.Second):
		cancel()
		return nil, fmt.Errorf("tab %s does not respond (a dialog or a frozen page?): reload it by hand or close it", t.short)
	}
	quietDomains(ctx)
	s.mu.Lock()
	t.heldOpen = false // a new attachment: its new-document scripts are new too
	t.readyWatch = false
	s.mu.Unlock()
	t.dmu.Lock()
	t.frameless = false // its frames attached before it are not reported
	t.frameGen++
	t.dmu.Unlock()
	if s.choosers {
		// The agent's own headless browser shows no file chooser to
		// anyone: it is caught for the attachment's whole life, not
		// turned on and off around each click (catchChooser).
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := chromedp.Call(cctx, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true})
		ccancel()
		t.dmu.Lock()
		t.choosers = err == nil
		t.dmu.Unlock()
	}
	if s.mode == ModeShared {
		// Chrome freezes background tabs; a frozen page answers nothing.
		fctx, fcancel := context.WithTimeout(ctx, 2*time.Second)
		chromedp.Call(fctx, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateActive})
		s.mu.Lock()
		owned := t.owned
		s.mu.Unlock()
		if owned {
			// The agent's tabs open in the background of the person's
			// window, hidden: their timers run once a second and they draw
			// no frames, so a page that renders after a timer or on an
			// animation frame renders late or never. Focus emulation makes
			// the page visible and focused as a front tab is, without
			// bringing it to the person's front (the lifecycle state above
			// does not change this: measured in docs/fetch.md).
			chromedp.Call(fctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		}
		fcancel()
	}
	if err := s.holdOpen(ctx, t); err != nil {
		cancel()
		return nil, err
	}
	if err := s.blockDevTools(ctx, t); err != nil {
		cancel()
		return nil, err
	}
	s.mu.Lock()
	t.ctx, t.cancel = ctx, cancel
	s.mu.Unlock()
	return ctx, nil
}

// quietDomains turns off the DOM and CSS domains chromedp enables on every
// attachment. With DOM on, each new document costs a DOM.getDocument that
// chromedp sends from its event loop, so the load's own events wait
// behind it (two per navigation, ~20 ms of an open), and CSS sends an
// event per style sheet. No tool reads chromedp's node tree: nodes are
// named by backend node id or object id, which need neither domain.
func quietDomains(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for _, cmd := range []cdp.Command[cdp.Empty, cdp.Empty]{css.Disable, dom.Disable} {
		_, _ = chromedp.Call(ctx, cmd, cdp.Empty{})
	}
}

// onPageEvent keeps the tab's state as the page reports it: crashes,
// where its documents came from, and the JavaScript dialog it has open
// (see dialog.go: nobody answers one but browser_dialog). It hands every
// event to the calls watching the tab. It runs in chromedp's read loop, so
// it only records.
func onPageEvent(t *tab, ev any) {
	t.net.note(ev)
	t.events.publish(ev)
	switch e := ev.(type) {
	case *inspector.EventTargetCrashed:
		t.markCrashed()
	case *inspector.EventTargetReloadedAfterCrash:
		t.dmu.Lock()
		t.crashed, t.crashCh = false, nil
		t.dmu.Unlock()
	case *network.EventResponseReceived:
		if e.Type == network.ResourceTypeDocument && e.Response != nil {
			t.noteDocument(e.LoaderID, remoteAddr(e.Response))
		}
	case *page.EventFrameNavigated:
		if e.Frame != nil {
			t.showDocument(e.Frame)
		}
	case *page.EventFrameAttached:
		t.dmu.Lock()
		t.frameless = false
		t.frameGen++
		t.dmu.Unlock()
	case *page.EventFrameDetached:
		t.dmu.Lock()
		delete(t.frameAddrs, e.FrameID)
		t.dmu.Unlock()
	case *page.EventJavascriptDialogOpening:
		t.dialogOpened(e)
	case *page.EventJavascriptDialogClosed:
		t.dialogClosed()
	}
}

// markCrashed records a renderer crash and ends the calls waiting on it.
func (t *tab) markCrashed() {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	if !t.crashed {
		t.crashed = true
		close(t.crashChan())
	}
}

// crashChan returns the channel closed by the next crash (dmu held).
func (t *tab) crashChan() chan struct{} {
	if t.crashCh == nil {
		t.crashCh = make(chan struct{})
	}
	return t.crashCh
}

// noteDocument records where a document the tab received came from (any
// frame's: it is not known yet which will be the tab's own).
func (t *tab) noteDocument(loader cdp.LoaderID, addr string) {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	if t.docAddrs == nil || len(t.docAddrs) >= 512 {
		t.docAddrs = map[cdp.LoaderID]string{} // a long-lived tab: forget the oldest pages too
	}
	t.docAddrs[loader] = addr
}

// showDocument is a frame committing its document: for the main frame its
// address is the tab's now ("" when it came from no server: about:blank,
// data:, a page the browser drew itself) and the old page's frames are
// gone; for a frame, that frame's. The addresses are kept, so a page the
// back-forward cache brings back, with no response, is known.
func (t *tab) showDocument(f *cdp.Frame) {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	addr := t.docAddrs[f.LoaderID]
	if f.ParentID == "" {
		t.docAddr, t.docSince = addr, time.Now()
		clear(t.frameAddrs)
		return
	}
	if t.frameAddrs == nil {
		t.frameAddrs = map[cdp.FrameID]string{}
	}
	if addr == "" {
		delete(t.frameAddrs, f.ID)
		return
	}
	t.frameAddrs[f.ID] = addr
}

// remoteAddr is a response's server address as "ip:port" ("[v6]:port"),
// "" when the browser did not say (a cached or service-worker response).
func remoteAddr(r *network.Response) string {
	ip := strings.Trim(r.RemoteIPAddress, "[]")
	if ip == "" || r.RemotePort <= 0 {
		return ""
	}
	return net.JoinHostPort(ip, strconv.FormatInt(r.RemotePort, 10))
}

// DocumentAddr returns the "ip:port" the browser fetched the tab's current
// document from, in a browser browseragent attached to (shared mode, or a
// remote one): that browser resolves names and connects itself, so a name
// of a denied address is known by this only. "" when unknown: the isolated
// browser (its connections go through browseragent's proxy, which judges
// each address), a document loaded before browseragent attached to the
// tab, one that came from no server.
func (b *Browser) DocumentAddr(tabID string) string {
	s, t := b.knownTab(tabID)
	if t == nil {
		return ""
	}
	t.dmu.Lock()
	defer t.dmu.Unlock()
	return t.documentAddr(s.mode)
}

// documentAddr is DocumentAddr for a browser in mode: known only in one
// browseragent attached to. The caller holds t.dmu.
func (t *tab) documentAddr(mode Mode) string {
	if mode != ModeShared {
		return ""
	}
	return t.docAddr
}

// FrameAddrs returns the "ip:port" addresses the documents of the tab's
// frames came from, as DocumentAddr does for the page: those of frames of
// the page's own site (a cross-site frame runs in a target of its own,
// whose responses the tab does not see); nil when none is known.
func (b *Browser) FrameAddrs(tabID string) []string {
	s, t := b.knownTab(tabID)
	if t == nil || s.mode != ModeShared {
		return nil
	}
	t.dmu.Lock()
	defer t.dmu.Unlock()
	var out []string
	for _, a := range t.frameAddrs {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// setResponse records the response of a page loaded by URL; nil forgets
// the last one (a load that fails leaves none).
func (t *tab) setResponse(resp *network.Response) {
	var r *Response
	if resp != nil {
		r = &Response{Status: int(resp.Status), MIME: resp.MimeType, Size: -1}
		for k, v := range resp.Headers {
			s, ok := v.(string)
			switch {
			case !ok:
			case strings.EqualFold(k, "Content-Length"):
				if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil && n >= 0 {
					r.Size = n
				}
			case strings.EqualFold(k, "Content-Type"):
				r.ContentType = s
			case strings.EqualFold(k, "Retry-After"):
				r.RetryAfter = s
			}
		}
	}
	t.dmu.Lock()
	t.resp = r
	t.dmu.Unlock()
}

// isCrashed reports whether the renderer of the tab died and no reload has
// revived it yet.
func (t *tab) isCrashed() bool {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	return t.crashed
}

// refBase is where the next page's ref numbers start.
func (t *tab) refBase() int {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	return t.refs
}

// noteRefs records the highest ref a snapshot handed out.
func (t *tab) noteRefs(n int) {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	t.refs = max(t.refs, n)
}

// Tabs lists the page tabs of the current browser with their titles and
// URLs as the browser reports them now (asking it takes one round trip,
// bounded at 2 s). It does not launch the isolated browser: with none
// running the list is empty.
func (b *Browser) Tabs() []Tab {
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil || s.dead() {
		return nil
	}
	return s.listFresh(context.Background())
}

// Owned reports whether the agent opened the tab (isolated tabs always are).
func (b *Browser) Owned(tabID string) bool {
	s, t := b.knownTab(tabID)
	if t == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return t.owned
}

// knownTab finds tabID in the current session; nil when there is no
// session or no such tab.
func (b *Browser) knownTab(tabID string) (*session, *tab) {
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil {
		return nil, nil
	}
	t, err := s.lookup(tabID)
	if err != nil {
		return nil, nil
	}
	return s, t
}

// TargetOf returns the CDP target id of a tab named by its short id (or by
// its target id), "" when there is no such tab. The target id is a tab's
// identity: short ids are only names the model uses.
func (b *Browser) TargetOf(tab string) string {
	_, t := b.knownTab(tab)
	if t == nil || tab == "" {
		return ""
	}
	return string(t.id)
}

// CurrentTab returns the short id of the tab page tools act on, or "".
func (b *Browser) CurrentTab() string {
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tabs[s.current]; t != nil {
		return t.short
	}
	return ""
}

// CurrentURL asks the browser, at the moment of the call, for the URL of the
// tab ("" means the current tab). It never serves a cached value.
func (b *Browser) CurrentURL(ctx context.Context, tabID string) (string, error) {
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil || s.dead() {
		return "", errNoTab
	}
	t, err := s.lookup(tabID)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := cdp.Call(ctx, chromedp.FromContext(s.root).Browser, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: t.id})
	if err != nil {
		return "", fmt.Errorf("tab %s: %w", t.short, err)
	}
	return res.TargetInfo.URL, nil
}

// Response is what the server answered to the last page a tool loaded in a
// tab by its URL: for a PDF or an image the document the tab shows is the
// browser's viewer, whose own size and type say nothing of the response.
type Response struct {
	Status int    // HTTP status
	MIME   string // the response's media type, as the browser took it
	Size   int64  // Content-Length; -1 when the server did not say
	// ContentType and RetryAfter are the response's headers ("" when
	// absent): fetch --render reports and honours them as a plain fetch.
	ContentType, RetryAfter string
}

// LastResponse returns the response of the last page browser_open or
// browser_navigate loaded in the tab by URL. ok is false when no such load
// finished in it (a tab navigated by a click or a script says nothing).
func (b *Browser) LastResponse(tabID string) (r Response, ok bool) {
	s, t := b.knownTab(tabID)
	if t == nil || s.dead() {
		return r, false
	}
	t.dmu.Lock()
	defer t.dmu.Unlock()
	if t.resp == nil {
		return r, false
	}
	return *t.resp, true
}

// newTab opens an owned tab at about:blank, made current when current is
// set. In isolated mode the browser's first, never-used blank tab is reused.
func (s *session) newTab(ctx context.Context, current bool) (*tab, error) {
	if s.mode == ModeIsolated {
		s.mu.Lock()
		for _, id := range s.orderLocked() {
			if t := s.tabs[id]; !t.used && (t.url == "about:blank" || t.url == "") {
				t.used = true
				if current {
					s.current = id
				}
				s.mu.Unlock()
				return t, nil
			}
		}
		s.mu.Unlock()
	}
	// A hidden tab gets no animation frames, so headless tabs get their own
	// window; in the person's browser a background tab in their window is
	// less intrusive than a new window.
	newWindow := s.mode == ModeIsolated
	s.mu.Lock()
	s.creating++
	s.mu.Unlock()
	res, err := cdp.Call(ctx, chromedp.FromContext(s.root).Browser, target.CreateTarget,
		target.CreateTargetParams{URL: "about:blank", NewWindow: &newWindow, Background: new(s.mode == ModeShared), BrowserContextID: s.bctx})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creating--
	if err != nil {
		return nil, fmt.Errorf("open tab: %w", err)
	}
	t := s.tabs[res.TargetID]
	if t == nil { // the created event has not arrived yet
		s.upsertLocked(&target.Info{TargetID: res.TargetID, Type: "page", URL: "about:blank", BrowserContextID: s.bctx})
		t = s.tabs[res.TargetID]
	}
	t.owned, t.used = true, true
	if current {
		s.current = res.TargetID
	}
	return t, nil
}

// selectTab makes the tab current.
func (s *session) selectTab(short string) (*tab, error) {
	t, err := s.lookup(short)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.current = t.id
	s.mu.Unlock()
	return t, nil
}

// closeTab closes a tab. In shared mode only tabs the agent opened may be
// closed: the person's tabs are theirs.
func (s *session) closeTab(ctx context.Context, t *tab) error {
	s.mu.Lock()
	owned := t.owned
	s.mu.Unlock()
	if s.mode == ModeShared && !owned {
		return fmt.Errorf("tab %s is the person's, not opened by the agent: it will not be closed", t.short)
	}
	_, err := cdp.Call(ctx, chromedp.FromContext(s.root).Browser, target.CloseTarget, target.CloseTargetParams{TargetID: t.id})
	if err != nil {
		return fmt.Errorf("close tab %s: %w", t.short, err)
	}
	s.mu.Lock()
	s.removeLocked(t.id)
	s.mu.Unlock()
	return nil
}

// framesKnownNone reports whether the tab is known to have no frames (see
// frameless), and else the count of frame attachments to hand noFrames
// after a listing that finds none.
func (t *tab) framesKnownNone() (none bool, gen uint64) {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	return t.frameless, t.frameGen
}

// noFrames records that a listing of the tab's frames begun at frame
// attachment count gen found none: unless one was attached meanwhile,
// the next listing is skipped.
func (t *tab) noFrames(gen uint64) {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	if t.frameGen == gen {
		t.frameless = true
	}
}

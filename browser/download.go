package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/browseragent/browseragent/internal/xdg"
)

// Downloads. The agent's own browser refuses every download (openSession):
// a page cannot write a file by itself. browser_download lets one in for
// the length of the call: it allows downloads of the tab's browser context
// into a staging folder, clicks the element (or loads the URL), takes the
// download that tab begins from what the call asked for (download_source.go)
// and cancels any other, then puts the file
// into the folder the person chose under a cleaned name, never executable,
// and refuses downloads again. The guard asked the person first (the
// folder is a file parameter: a write).

// defaultDownloadDir is where browser_download saves when the call names
// no folder: the one the person chose in $BROWSERAGENT_DOWNLOAD_DIR, else
// their output folder (xdg.OutputDir: $BROWSERAGENT_OUTPUT_DIR, else
// $XDG_DOWNLOAD_DIR/browseragent, else ~/Downloads/browseragent), the
// folder the guard treats as theirs for what tools save.
func defaultDownloadDir() string {
	if d := cmp.Or(os.Getenv("BROWSERAGENT_DOWNLOAD_DIR"), xdg.OutputDir(nil)); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			return abs // a relative one is the working directory's, as the guard resolves it
		}
	}
	return filepath.Join(os.TempDir(), "browseragent-downloads")
}

// beginWait bounds how long a download may take to begin after the click.
const beginWait = 10 * time.Second

type downloadArgs struct {
	Ref string `json:"ref,omitempty" jsonschema:"element ref from browser_snapshot, e.g. e12"`
	URL string `json:"url,omitempty" jsonschema:"or its address"`
	Dir string `json:"dir,omitempty" jsonschema:"folder"`
	tabArg
}

func toolDownload(ctx context.Context, c *call, a downloadArgs) (*Result, error) {
	if (a.Ref == "") == (a.URL == "") {
		return failf("browser_download needs ref (the link or button that downloads) or url, one of them"), nil
	}
	dir := a.Dir
	if dir == "" {
		dir = c.b.opts.DownloadDir
	}
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	var p point
	want, where := a.URL, []context.Context{pctx}
	if a.Ref != "" {
		d, r := c.refDoc(ctx, a.Ref)
		if r != nil {
			return r, nil
		}
		if d.frame != nil && d.frame.target != c.t.id {
			where = append(where, d.ctx) // an out-of-process frame makes its own requests
		}
		want = linkTarget(d, a.Ref)
		if r := c.linkJudged(want); r != nil {
			return r, nil
		}
		if want == "" {
			if why := c.selfDownloader(pctx, a.Ref); why != "" {
				return failf("%s", why), nil
			}
		}
		if p, r, err = c.pointAt(ctx, pctx, a.Ref); r != nil || err != nil {
			return r, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return failf("cannot save into %s: %v", dir, err), nil
	}
	staging, err := os.MkdirTemp(dir, ".browseragent-download-")
	if err != nil {
		return failf("cannot save into %s: %v", dir, err), nil
	}
	defer removeStaging(staging)
	events, stop := c.s.events.watch(func(ev any) bool {
		return is[*cdpbrowser.EventDownloadWillBegin](ev) || is[*cdpbrowser.EventDownloadProgress](ev)
	})
	defer stop()
	src, unfollow := followSources(where, want)
	defer unfollow()
	if err := c.s.allowDownloads(staging); err != nil {
		return nil, err
	}
	defer c.s.refuseDownloads()
	if a.Ref != "" {
		err = press(pctx, p.X, p.Y, gesture{button: input.MouseButtonLeft, buttons: 1, count: 1})
	} else {
		var nav page.NavigateResult
		if nav, err = chromedp.Call(pctx, page.Navigate, page.NavigateParams{URL: a.URL}); err == nil {
			src.navigation(nav.LoaderID)
		}
	}
	if err != nil {
		return jsFail(err)
	}
	what := a.Ref
	if what == "" {
		what = a.URL
	}
	d, r := c.takeDownload(pctx, events, src, what)
	if r != nil {
		return r, nil
	}
	if r := c.refuseOthers(pctx, events, src, d, what); r != nil {
		return r, nil
	}
	return c.keepDownload(d, staging, dir)
}

// afterWait is how long downloads stay watched after the one taken: a page
// that starts another of its own right after it (a script's a.click()) had
// that one held back by the browser once downloads were refused again, and
// let through by the next browser_download of the tab, as if asked for.
const afterWait = 500 * time.Millisecond

// refuseOthers cancels every download that begins within afterWait of the
// one the call took, d. After a button, one from another address that the
// click could have started too makes the call refuse both (twoDownloads).
func (c *call) refuseOthers(ctx context.Context, events <-chan any, src *sources, d download, what string) *Result {
	quiet := time.NewTimer(afterWait)
	defer quiet.Stop()
	for {
		select {
		case ev := <-events:
			if e, ok := ev.(*cdpbrowser.EventDownloadWillBegin); ok {
				c.s.cancelDownload(e.GUID)
				if src.want == "" && e.URL != d.url && c.ownsFrame(ctx, e.FrameID) && src.asked(e.URL) {
					return twoDownloads(what, d.url, e.URL)
				}
			}
		case <-quiet.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// twoDownloads refuses a button's download when another began with it:
// which of them the click started, nobody can tell.
func twoDownloads(what, a, b string) *Result {
	return failf("more than one download began after clicking %s (from %s and from %s): the page may start downloads of its own, and which one the click started cannot be told, so none was kept. Download the file by its link's ref or its url instead.",
		what, withoutQuery(a), withoutQuery(b))
}

// download is the one download a call takes.
type download struct {
	guid, name, url string
	size            int64
}

// takeDownload waits for the download the call asked for (src.asked) to
// begin in the tab and finish; any other download that begins meanwhile is
// cancelled, and named when none of the call's began.
func (c *call) takeDownload(ctx context.Context, events <-chan any, src *sources, what string) (download, *Result) {
	tk := &taker{c: c, src: src, what: what, last: map[string]*cdpbrowser.EventDownloadProgress{}}
	begin := time.NewTimer(beginWait)
	defer begin.Stop()
	tick := time.NewTicker(sourceGrace / 4)
	defer tick.Stop()
	for {
		select {
		case ev := <-events:
			switch e := ev.(type) {
			case *cdpbrowser.EventDownloadWillBegin:
				tk.began(ctx, e)
			case *cdpbrowser.EventDownloadProgress:
				tk.last[e.GUID] = e
			}
		case <-tick.C:
		case <-begin.C:
			if tk.d.guid == "" {
				tk.cancelWaiting()
				return tk.d, noDownload(what, tk.others)
			}
		case <-ctx.Done():
			tk.cancelWaiting()
			if tk.d.guid != "" {
				c.s.cancelDownload(tk.d.guid)
			}
			return tk.d, failf("the download from %s did not finish in time; nothing was kept", what)
		}
		tk.recheck(ctx)
		if r, done := tk.progress(ctx, events); done {
			return tk.d, r
		}
	}
}

// sourceGrace is how long a download that matches nothing the call asked
// for waits for its request to be noted before it is cancelled: the
// browser's download events and the tab's request events come to us from
// different loops, not always in order.
const sourceGrace = 300 * time.Millisecond

// taker is takeDownload's state: the download taken, those waiting for
// their request to be noted, the last progress of each.
type taker struct {
	c       *call
	src     *sources
	what    string
	d       download
	waiting []waitingDownload
	last    map[string]*cdpbrowser.EventDownloadProgress
	others  []string // downloads of the page's own, cancelled
	refused *Result  // set when the call must end with it
}

type waitingDownload struct {
	e     *cdpbrowser.EventDownloadWillBegin
	until time.Time
}

// began sorts a download that began: the call's, one to wait for, or one
// nobody asked for.
func (tk *taker) began(ctx context.Context, e *cdpbrowser.EventDownloadWillBegin) {
	if !tk.c.ownsFrame(ctx, e.FrameID) {
		tk.c.s.cancelDownload(e.GUID) // another tab's, or the person's
		return
	}
	if !tk.src.asked(e.URL) {
		tk.waiting = append(tk.waiting, waitingDownload{e, time.Now().Add(sourceGrace)})
		return
	}
	tk.accept(ctx, e)
}

// recheck takes a waiting download whose request is now noted, and
// cancels those whose grace ran out.
func (tk *taker) recheck(ctx context.Context) {
	keep := tk.waiting[:0]
	for _, w := range tk.waiting {
		switch {
		case tk.src.asked(w.e.URL):
			tk.accept(ctx, w.e)
		case time.Now().After(w.until):
			tk.c.s.cancelDownload(w.e.GUID) // nobody asked for it
			if len(tk.others) < 3 {
				tk.others = append(tk.others, withoutQuery(w.e.URL))
			}
		default:
			keep = append(keep, w)
		}
	}
	tk.waiting = keep
}

func (tk *taker) cancelWaiting() {
	for _, w := range tk.waiting {
		tk.c.s.cancelDownload(w.e.GUID)
	}
	tk.waiting = nil
}

// accept takes e, the first download of the call's; a second one is
// cancelled, and after a button, one from another address refuses both.
func (tk *taker) accept(ctx context.Context, e *cdpbrowser.EventDownloadWillBegin) {
	c := tk.c
	if tk.refused != nil {
		c.s.cancelDownload(e.GUID)
		return
	}
	if tk.d.guid != "" {
		c.s.cancelDownload(e.GUID)
		if tk.src.want == "" && e.URL != tk.d.url {
			c.s.cancelDownload(tk.d.guid)
			tk.refused = twoDownloads(tk.what, tk.d.url, e.URL)
		}
		return
	}
	if why := c.sourceRefused(e.URL); why != "" {
		c.s.cancelDownload(e.GUID)
		tk.refused = failf("%s", why)
		tk.d = download{guid: e.GUID}
		return
	}
	tk.d = download{guid: e.GUID, name: e.SuggestedFilename, url: e.URL}
	c.s.began.take(e.GUID)
}

// progress says whether the call is done: refused, or its download
// finished, stopped or too big.
func (tk *taker) progress(ctx context.Context, events <-chan any) (*Result, bool) {
	c, d := tk.c, &tk.d
	if tk.refused != nil {
		tk.cancelWaiting()
		if d.guid != "" {
			c.waitCancelled(ctx, events, d.guid)
		}
		return tk.refused, true
	}
	e := tk.last[d.guid]
	if d.guid == "" || e == nil {
		return nil, false
	}
	d.size = int64(e.ReceivedBytes)
	switch {
	case d.size > c.b.opts.DownloadLimit || int64(e.TotalBytes) > c.b.opts.DownloadLimit:
		c.s.cancelDownload(d.guid)
		return failf("the download %q is larger than %s, the limit; it was stopped and nothing was kept", d.name, sizeWords(c.b.opts.DownloadLimit)), true
	case e.State == cdpbrowser.DownloadProgressStateCanceled:
		return failf("the download %q was cancelled by the browser; nothing was kept", d.name), true
	case e.State == cdpbrowser.DownloadProgressStateCompleted:
		tk.cancelWaiting()
		return nil, true
	}
	return nil, false
}

// noDownload says no download of the call's began, and which of the
// page's own were cancelled meanwhile.
func noDownload(what string, others []string) *Result {
	if len(others) == 0 {
		return failf("no download began within %s of %s: it may open a page instead (browser_click it and read the page)", beginWait, what)
	}
	return failf("no download from %s began within %s; the page began downloads of its own, from %s, which were not asked for and were cancelled", what, beginWait, strings.Join(others, ", "))
}

// removeStaging removes a call's staging folder, and again a few times
// in the next seconds: a download cancelled as it began (refused, too
// big) may still be written by the browser for a moment, which makes the
// folder again.
func removeStaging(dir string) {
	os.RemoveAll(dir)
	go func() {
		for range 10 {
			time.Sleep(300 * time.Millisecond)
			os.RemoveAll(dir)
		}
	}()
}

// waitCancelled waits (bounded) until the browser says the download guid
// was cancelled: until then it may still write its part into the staging
// folder, which the call removes as it returns.
func (c *call) waitCancelled(ctx context.Context, events <-chan any, guid string) {
	wait := time.NewTimer(2 * time.Second)
	defer wait.Stop()
	for {
		select {
		case ev := <-events:
			if e, ok := ev.(*cdpbrowser.EventDownloadProgress); ok && e.GUID == guid && e.State != cdpbrowser.DownloadProgressStateInProgress {
				return
			}
		case <-wait.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// linkJudged refuses a download by a link whose address is not the one
// the call was judged by (the registry's locator read it, catalog's
// Link): the page changed it in between, and the click would ask an
// address nobody judged for the file. nil when it is the same, or the call
// was not judged (run directly), where Options.DownloadRefused is asked.
func (c *call) linkJudged(href string) *Result {
	if c.rc == nil {
		if why := c.downloadRefused(href); why != "" && strings.HasPrefix(href, "http") {
			return failf("%s", why) // the click would ask that page for the file
		}
		return nil
	}
	if canonicalURL(href) != canonicalURL(c.rc.URL) && (strings.HasPrefix(href, "http") || c.rc.URL != "") {
		return failf("the link's address changed after the call was judged (it was %s, it is %s now); nothing was clicked. Take a new browser_snapshot and try again.",
			withoutQuery(c.rc.URL), withoutQuery(href))
	}
	return nil
}

// sourceRefused says why the download from url must not be kept: a page a
// deny rule names (Options.DownloadRefused). The address the call was
// judged by (its url, its link's) is not asked again.
func (c *call) sourceRefused(url string) string {
	if c.rc != nil && c.rc.URL != "" && canonicalURL(url) == canonicalURL(c.rc.URL) {
		return ""
	}
	return c.downloadRefused(url)
}

// downloadRefused is Options.DownloadRefused about url, "" without one.
func (c *call) downloadRefused(url string) string {
	if c.b.opts.DownloadRefused == nil || url == "" {
		return ""
	}
	return c.b.opts.DownloadRefused(c.rc, url)
}

// LinkTarget is the address of the link (or area) ref is or is in, in
// tab tabID, "" for a button or anything else: where browser_download of
// that ref goes, which the registry's locator gives the guard to judge
// (catalog.Entry.Link).
func (b *Browser) LinkTarget(ctx context.Context, tabID, ref string) (string, error) {
	var href string
	err := b.onRefDoc(ctx, tabID, ref, func(d docCtx, _ *tab, _ cdp.FrameID) error {
		href = linkTarget(d, ref)
		return nil
	})
	return href, err
}

// linkTarget is the address of the link (or area) ref is or is in, ""
// for a button or anything else: the file the person approved is the one
// it points to. A deny rule naming it refuses the download before the
// click, which would ask that page for the file; every download is judged
// again by its own address as it begins (takeDownload).
func linkTarget(d docCtx, ref string) string {
	href, err := onRef[string](d, ref, `return (el.closest && el.closest('a[href], area[href]') || {}).href || ''`)
	if err != nil {
		return ""
	}
	return href
}

// ownsFrame reports whether frame is the call's tab or one of its frames:
// one of the tab's own process, an out-of-process frame (its target's id is
// its frame's), or a frame inside one.
func (c *call) ownsFrame(ctx context.Context, frame cdp.FrameID) bool {
	if string(frame) == string(c.t.id) {
		return true
	}
	if tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{}); err == nil && inFrameTree(tree.FrameTree, frame) {
		return true
	}
	infos, _ := c.s.frameTargetInfos(ctx, c.t.id)
	for _, info := range infos {
		if string(info.TargetID) == string(frame) {
			return true
		}
		if inner, err := c.s.frameTreeOf(ctx, info.TargetID); err == nil && inFrameTree(inner, frame) {
			return true
		}
	}
	return false
}

// inFrameTree reports whether frame is in the tree ft.
func inFrameTree(ft *page.FrameTree, frame cdp.FrameID) bool {
	if ft == nil {
		return false
	}
	if ft.Frame != nil && ft.Frame.ID == frame {
		return true
	}
	for _, ch := range ft.ChildFrames {
		if inFrameTree(ch, frame) {
			return true
		}
	}
	return false
}

// keepDownload moves the finished file from staging into dir under its
// cleaned name, readable and writable by the person only and executable by
// nobody.
func (c *call) keepDownload(d download, staging, dir string) (*Result, error) {
	src := filepath.Join(staging, d.guid)
	fi, err := os.Stat(src)
	if err != nil {
		return failf("the browser finished the download %q but left no file", d.name), nil
	}
	if fi.Size() > c.b.opts.DownloadLimit {
		return failf("the download %q is larger than %s, the limit; nothing was kept", d.name, sizeWords(c.b.opts.DownloadLimit)), nil
	}
	if err := os.Chmod(src, 0o600); err != nil {
		return nil, err
	}
	dst, err := freeName(dir, safeFileName(d.name))
	if err != nil {
		return nil, err
	}
	if err := os.Rename(src, dst); err != nil {
		return failf("cannot save %s: %v", dst, err), nil
	}
	return &Result{Text: fmt.Sprintf("Downloaded %q (%s) to %s.", filepath.Base(dst), sizeWords(fi.Size()), dst), Path: dst}, nil
}

// freeName is dir/name, or dir/"name (2).ext" and so on when that exists:
// a download never replaces a file.
func freeName(dir, name string) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i < 1000; i++ {
		p := filepath.Join(dir, name)
		if i > 1 {
			p = filepath.Join(dir, fmt.Sprintf("%s (%d)%s", stem, i, ext))
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no free name for %s in %s", name, dir)
}

// safeFileName turns the name a server or page suggests into one that is
// only a file name: no folder parts, no leading dot (no hidden or startup
// file: ".bashrc" is saved as "bashrc"), no control, bidi or reserved
// characters ("cv\u202efdp.exe" shows as "cvexe.pdf"), at most 120 bytes with its extension kept; "download" when
// nothing is left.
func safeFileName(name string) string {
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	name = strings.Map(func(r rune) rune {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r), strings.ContainsRune(`<>:"|?*`, r):
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ". ")
	name = strings.TrimRight(name, ". ")
	if len(name) > 120 {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := name[:120-len(ext)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
		name = stem + ext
	}
	if name == "" {
		return "download"
	}
	return name
}

func sizeWords(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// allowDownloads lets the session's browser context download into dir,
// with events, until refuseDownloads.
func (s *session) allowDownloads(dir string) error {
	ctx, cancel := context.WithTimeout(s.root, 5*time.Second)
	defer cancel()
	_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, BrowserContextID: s.bctx, DownloadPath: dir, EventsEnabled: new(true)})
	if err != nil {
		return fmt.Errorf("allow the download: %w", err)
	}
	return nil
}

// refuseDownloads puts back what the session's browser does with
// downloads: the agent's own refuses them all, the person's Chrome does
// what it did before.
func (s *session) refuseDownloads() {
	ctx, cancel := context.WithTimeout(s.root, 5*time.Second)
	defer cancel()
	b := cdpbrowser.SetDownloadBehaviorBehaviorDeny
	if s.mode == ModeShared {
		b = cdpbrowser.SetDownloadBehaviorBehaviorDefault
	}
	chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{Behavior: b, BrowserContextID: s.bctx, EventsEnabled: new(true)})
}

// cancelDownload stops a download (one nobody asked for, or one too big).
func (s *session) cancelDownload(guid string) {
	ctx, cancel := context.WithTimeout(s.root, 5*time.Second)
	defer cancel()
	chromedp.CallBrowser(ctx, cdpbrowser.CancelDownload, cdpbrowser.CancelDownloadParams{GUID: guid, BrowserContextID: s.bctx})
}

package browser

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Which download is the call's. A page runs its own scripts while a
// browser_download call lets downloads in: a timer may start a download of
// another file, a slow one the page asked for earlier may begin, and the
// browser only says, for each, the frame it began in and the address it
// came from after redirects. So the call follows the document requests
// its tab makes while it runs (a download is one: an <a download>, a
// navigation answered with an attachment) through the Fetch domain, which
// sees them with their redirects, and keeps only a download that comes
// from what it was asked for: the link's address or the url, or where a
// request for it was redirected; for a button, whose address nobody knows
// before the click, a request made after the click (or a blob: or data:
// file the page's script made).

// sources is what one call's tab requested while it ran.
type sources struct {
	want string // the link's or the url's address, canonical; "" for a button

	mu   sync.Mutex
	reqs []sourceReq
	net  network.RequestID // the navigation browser_download made (url)
}

// sourceReq is one paused document request: a redirect is a new request
// whose from is the one it redirects.
type sourceReq struct {
	id, from fetch.RequestID
	net      network.RequestID
	url      string
}

// followSources starts following the document requests of the targets at
// ctxs (the tab, and the out-of-process frame a ref is in), want being the
// address asked for ("" for a button). Stop it before the call returns.
func followSources(ctxs []context.Context, want string) (*sources, func()) {
	src := &sources{want: canonicalURL(want)}
	return src, interceptDocuments(ctxs, false, func(ctx context.Context, e *fetch.EventRequestPaused) {
		src.note(e)
		go chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
	})
}

// interceptDocuments pauses every document request (a page, a frame, a
// download) and every redirect of one that the targets at ctxs make, and
// hands each to paused, which runs in chromedp's event loop: it must
// return at once and let the request go on (or fail it) from another
// goroutine, with the context it is given; with responses, each is
// paused again when its answer's headers arrive. stop lets any request
// still paused go on.
func interceptDocuments(ctxs []context.Context, responses bool, paused func(context.Context, *fetch.EventRequestPaused)) (stop func()) {
	patterns := []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument}}
	if responses {
		patterns = append(patterns, &fetch.RequestPattern{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageResponse})
	}
	var stops []func()
	for _, ctx := range ctxs {
		lctx, cancel := context.WithCancel(ctx)
		if err := chromedp.Listen(lctx, func(ev any) {
			if e, ok := ev.(*fetch.EventRequestPaused); ok {
				paused(lctx, e)
			}
		}); err != nil {
			cancel()
			continue
		}
		ectx, ecancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := chromedp.Call(ectx, fetch.Enable, fetch.EnableParams{Patterns: patterns})
		ecancel()
		stops = append(stops, func() {
			if err == nil {
				dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				chromedp.Call(dctx, fetch.Disable, cdp.Empty{}) // lets any request still paused go on
				dcancel()
			}
			cancel()
		})
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}

// note records a paused request (chromedp's event loop: only records).
func (s *sources) note(e *fetch.EventRequestPaused) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) < 4096 {
		s.reqs = append(s.reqs, sourceReq{id: e.RequestID, from: e.RedirectedRequestID, net: e.NetworkID, url: canonicalURL(e.Request.URL)})
	}
}

// navigation marks the navigation browser_download made itself (its
// loader is the network id of its request) as the one asked for.
func (s *sources) navigation(loader cdp.LoaderID) {
	s.mu.Lock()
	s.net = network.RequestID(loader)
	s.mu.Unlock()
}

// asked reports whether a download from u is the one the call asked for
// (its requests are noted before the browser says the download began:
// chromedp calls the listeners of every target from the one loop that
// reads the browser's messages, in their order):
// for a link or url, u is its address or one a request for it was
// redirected to; for a button, u was requested since the call began, or is
// a file the page made (blob:, data:).
func (s *sources) asked(u string) bool {
	u = canonicalURL(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.want == "" && s.net == "" {
		if strings.HasPrefix(u, "blob:") || strings.HasPrefix(u, "data:") {
			return true
		}
		for _, r := range s.reqs {
			if r.url == u {
				return true
			}
		}
		return false
	}
	if u == s.want {
		return true
	}
	ours := map[fetch.RequestID]bool{}
	for _, r := range s.reqs { // a redirect is noted after what it redirects
		if r.from == "" && (r.url == s.want || s.net != "" && r.net == s.net) || r.from != "" && ours[r.from] {
			ours[r.id] = true
			if r.url == u {
				return true
			}
		}
	}
	return false
}

// canonicalURL is an http(s) address as the browser writes it (scheme and
// host lower case, no default port, "/" for an empty path) without its
// fragment, which is never sent; other addresses are kept as they are.
func canonicalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return raw
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if p := u.Port(); u.Scheme == "http" && p == "80" || u.Scheme == "https" && p == "443" {
		u.Host = strings.TrimSuffix(u.Host, ":"+p)
	}
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/"
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// withoutQuery is an address as a message names it: without its query
// and fragment, where a signed link carries its token.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		if len(raw) > 80 {
			return raw[:80] + "…" // a data: file's content
		}
		return raw
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	return u.String()
}

// beganDownloads are the downloads that began in the browser lately
// (refused ones too: the agent's own browser refuses a page's downloads
// with events on), for browser_download to know a page that starts
// downloads by itself. Safe for concurrent use.
type beganDownloads struct {
	mu    sync.Mutex
	list  []beganDownload // the last 64, oldest first
	taken map[string]bool // the guids browser_download calls took
}

type beganDownload struct {
	guid  string
	frame cdp.FrameID
	url   string
	at    time.Time
}

// note records a download that began (chromedp's event loop).
func (b *beganDownloads) note(e *cdpbrowser.EventDownloadWillBegin) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.list) == 64 {
		b.list = b.list[1:]
	}
	b.list = append(b.list, beganDownload{guid: e.GUID, frame: e.FrameID, url: e.URL, at: time.Now()})
}

// take marks guid as a download a call asked for and took.
func (b *beganDownloads) take(guid string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken == nil || len(b.taken) > 1024 {
		b.taken = map[string]bool{}
	}
	b.taken[guid] = true
}

// since lists the downloads that began after t and no call took.
func (b *beganDownloads) since(t time.Time) []beganDownload {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []beganDownload
	for _, d := range b.list {
		if d.at.After(t) && !b.taken[d.guid] {
			out = append(out, d)
		}
	}
	return out
}

// selfWindow is how far back browser_download looks for downloads a page
// began by itself before it clicks a button for one.
const selfWindow = 10 * time.Second

// selfDownloader says why a button's download cannot be told from the
// page's own: a frame of the tab began a download that no call asked for
// within selfWindow, since the tab's document committed. "" when none did.
func (c *call) selfDownloader(ctx context.Context, ref string) string {
	from := time.Now().Add(-selfWindow)
	c.t.dmu.Lock()
	if c.t.docSince.After(from) {
		from = c.t.docSince
	}
	c.t.dmu.Unlock()
	began := c.s.began.since(from)
	for i := len(began) - 1; i >= 0; i-- {
		if d := began[i]; c.ownsFrame(ctx, d.frame) {
			return fmt.Sprintf("the page in tab %s starts downloads by itself (one from %s, %s ago, nobody asked for): which download clicking %s would start cannot be told from the page's own, so browser_download did not click it. Download the file by a link's ref or by its url.",
				c.t.short, withoutQuery(d.url), time.Since(d.at).Round(100*time.Millisecond), ref)
		}
	}
	return ""
}

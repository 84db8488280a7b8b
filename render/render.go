package render

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

// Options say how pages are rendered.
type Options struct {
	Rules    *guard.Rules  // the sensitive-site rules (required)
	Headed   bool          // show the browser window (isolated browser only)
	WaitFor  string        // text or CSS selector to wait for; "" waits until the page has settled
	Timeout  time.Duration // bounds each page's load and WaitFor (0: 15 s)
	Select   string        // CSS selector of the content to keep
	Links    bool          // keep the links list
	MaxBytes int64         // cut the rendered DOM here (0: fetch's default)
	// Target is the person's browser (or a remote one) to render in; nil
	// launches an isolated browser.
	Target *browser.Target
}

// Renderer renders pages through a session.Session: every step is a tool
// call through its registry, the one path the shell and the LLM use, so the
// guard judges it like any other call and the audit log records it. It is
// safe for concurrent use: each page has its own tab and extraction.
type Renderer struct {
	sess     *session.Session
	lost     atomic.Bool // the attached browser went away: no further call
	waitFor  string
	wait     time.Duration
	sel      string
	links    bool
	maxBytes int64
}

// New opens the session (isolated, or attached to o.Target) with the
// sensitive-site rules and no MCP server. Nobody is asked anything: a call
// the guard would ask about is refused.
func New(ctx context.Context, o *Options) (*Renderer, error) {
	wait := o.Timeout
	if wait <= 0 {
		wait = 15 * time.Second
	}
	r := &Renderer{waitFor: o.WaitFor, wait: wait, sel: o.Select, links: o.Links, maxBytes: o.MaxBytes}
	attached := o.Target != nil
	sess, err := session.NewSession(&session.SessionOptions{
		Rules: o.Rules,
		Browser: browser.Options{Launch: browser.LaunchOptions{Headed: o.Headed}, ExtractLinks: o.Links, NavTimeout: o.Timeout,
			OnLost: func() { r.lost.Store(attached) }},
	})
	if err != nil {
		return nil, err
	}
	r.sess = sess
	if attached {
		if _, err := sess.Connect(ctx, *o.Target); err != nil {
			sess.Close()
			return nil, hideEndpoint(err, o.Target.WSEndpoint)
		}
	}
	return r, nil
}

// Close closes the session: the isolated browser, or the attachment to
// the person's (whose browser stays open).
func (r *Renderer) Close() { r.sess.Close() }

// toolError is a browser tool's failure as one sentence. In a batch it is
// tried again (a tab that froze under load, a navigation cut short) unless
// the page could not be loaded at all.
type toolError string

func (e toolError) Error() string       { return string(e) }
func (e toolError) FailureKind() string { return toolErrorKind(string(e)) }
func (e toolError) Retryable() bool     { return toolErrorKind(string(e)) != "load" }

func toolErrorKind(msg string) string {
	if strings.HasPrefix(msg, "could not load") {
		return "load"
	}
	return "browser"
}

// refusedError is a call the guard refused (guard.ErrDenied), as one
// sentence. In a batch it is never tried again.
type refusedError string

func (e refusedError) Error() string       { return string(e) }
func (e refusedError) FailureKind() string { return "refused" }

// errBrowserLost fails a call on a renderer whose attached browser went
// away: the session would otherwise launch a local browser in its place.
type errBrowserLost struct{}

func (errBrowserLost) Error() string       { return "lost the connection to the browser" }
func (errBrowserLost) FailureKind() string { return "browser-lost" }
func (errBrowserLost) Retryable() bool     { return true }

// isLost reports whether err came from the attached browser going away.
func (r *Renderer) isLost(err error) bool {
	var l errBrowserLost
	return r.lost.Load() || errors.As(err, &l) || errors.Is(err, browser.ErrLost) ||
		strings.Contains(err.Error(), "lost the connection")
}

// extraction is what the extractor last made of one page: the Data
// (browser.Extracted) of the last browser_extract result.
type extraction struct {
	mu  sync.Mutex
	res *extract.Result
	err error
	dom []byte // the DOM it was made from, kept after take
}

func (x *extraction) set(r *extract.Result, err error, dom []byte) {
	x.mu.Lock()
	x.res, x.err, x.dom = r, err, dom
	x.mu.Unlock()
}

// lastDOM is the DOM of the last extraction.
func (x *extraction) lastDOM() []byte {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.dom
}

// take returns and forgets what the last extraction produced.
func (x *extraction) take() (*extract.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	r, err := x.res, x.err
	x.res, x.err = nil, nil
	return r, err
}

// call runs one tool through the registry. A refusal or a tool failure
// becomes an error of one sentence.
func (r *Renderer) call(ctx context.Context, tool string, args map[string]any) (*tools.ToolResult, error) {
	if r.lost.Load() {
		return nil, errBrowserLost{}
	}
	raw, _ := json.Marshal(args)
	res, err := r.sess.Registry.Call(ctx, tool, raw, tools.OriginCommand)
	if errors.Is(err, guard.ErrDenied) {
		return res, refusedError(firstSentence(res.ForPerson()))
	}
	if err != nil {
		return nil, err
	}
	if res.IsError() {
		return res, toolError(firstSentence(res.ForPerson()))
	}
	return res, nil
}

// renderPage is one URL being rendered: the tab browser_open gave it and
// what the extractor made of it.
type renderPage struct {
	r   *Renderer
	tab string
	ex  extraction
}

// Render opens url in a new tab, waits for it, extracts it, takes the
// screenshot (to shot, when not "") and closes the tab again. The result
// has the fields and kinds a plain fetch.Fetch of the same page has.
func (r *Renderer) Render(ctx context.Context, url, shot string) (*extract.Result, error) {
	if _, err := fetch.ParseURL(url); err != nil {
		return nil, err // refused as plain fetch refuses it, before any browser starts
	}
	p := &renderPage{r: r}
	opened, err := r.call(ctx, "browser_open", map[string]any{"url": url})
	if opened != nil && opened.Tab != "" {
		p.tab = opened.Tab
		defer p.close(ctx)
	}
	if err != nil {
		return nil, err
	}
	if p.tab == "" {
		return nil, fmt.Errorf("browser_open did not say which tab it opened: %q", firstSentence(opened.Text))
	}
	if err := p.waitPage(ctx); err != nil {
		return nil, err
	}
	res, err := p.extract(ctx)
	if err != nil {
		return nil, err
	}
	doc := p.document(ctx)
	length, retryAfter := int64(-1), ""
	if resp, ok := r.sess.Browser.LastResponse(p.tab); ok {
		doc.Status = cmp.Or(doc.Status, resp.Status)
		doc.Type = cmp.Or(doc.Type, resp.MIME)
		if mt, _, _ := mime.ParseMediaType(resp.ContentType); mt != "" && strings.EqualFold(mt, doc.Type) {
			doc.Type = resp.ContentType // with its charset, as a plain fetch reports it
		}
		length, retryAfter = resp.Size, resp.RetryAfter
	}
	res, err = extract.FromRendered(&extract.Rendered{
		URL: url, FinalURL: res.FinalURL, Status: doc.Status, ContentType: doc.Type,
		Size: doc.Size, ContentLength: length, RetryAfter: retryAfter, DOM: p.ex.lastDOM(), Extracted: res,
	}, r.maxBytes, &extract.Options{Select: r.sel, Links: r.links})
	if err != nil {
		return nil, err
	}
	if shot != "" {
		if err := p.screenshot(ctx, shot); err != nil {
			return nil, err
		}
	}
	return res, fetch.StatusError(res) // a 404 fails like plain fetch does
}

// call runs a page tool on the page's tab.
func (p *renderPage) call(ctx context.Context, tool string, args map[string]any) (*tools.ToolResult, error) {
	args["tab"] = p.tab
	return p.r.call(ctx, tool, args)
}

// close closes the page's tab, also after a failure or a cancel. A tab that
// cannot be closed stays open (in the person's browser too): nothing more
// can be done about it here.
func (p *renderPage) close(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	p.r.call(cctx, "browser_close", map[string]any{"tab": p.tab})
}

// waitPage waits for --wait-for, or else until the page has settled
// (browser_wait with neither text nor selector: loaded, no request in
// flight, no DOM change for half a second on the page's own clock).
func (p *renderPage) waitPage(ctx context.Context) error {
	if p.r.waitFor == "" {
		return p.settle(ctx)
	}
	args := waitArgs(p.r.waitFor)
	deadline := time.Now().Add(p.r.wait)
	for {
		chunk := max(time.Second, min(time.Until(deadline), time.Minute).Round(time.Second))
		args["timeout"] = int(chunk / time.Second)
		start := time.Now()
		res, err := p.call(ctx, "browser_wait", args)
		switch {
		case err == nil:
			return nil
		case res == nil:
			return err
		case args["selector"] != nil && strings.HasPrefix(res.Text, "bad selector"):
			args = map[string]any{"text": p.r.waitFor}
			continue
		case time.Since(start) >= chunk && time.Now().Before(deadline):
			continue // a wait longer than browser_wait's one-minute cap
		}
		return fmt.Errorf("%w (check the text or selector, or raise --timeout)", err)
	}
}

// waitArgs reads --wait-for as a CSS selector when it looks like one, else
// as text on the page.
func waitArgs(w string) map[string]any {
	if strings.ContainsAny(w[:1], "#.[") || strings.ContainsAny(w, ">:") {
		return map[string]any{"selector": w}
	}
	return map[string]any{"text": w}
}

// settleMost bounds the wait for a page to settle after its load: a page
// that never stops changing (a ticker, an animation drawn by script, a
// stream of requests) is taken as it is then.
const settleMost = 10 * time.Second

// settle waits until the page has settled, at most settleMost (and
// --timeout). A page that did not settle by then is extracted as it is.
func (p *renderPage) settle(ctx context.Context) error {
	most := min(settleMost, p.r.wait).Round(time.Second)
	res, err := p.call(ctx, "browser_wait", map[string]any{"timeout": max(1, int(most/time.Second))})
	if err != nil && (res == nil || !strings.HasPrefix(res.Text, browser.NotSettled)) {
		return err
	}
	return nil
}

// extractCall calls browser_extract through the registry. A failure of the
// extractor itself comes back as fetch's error, so a bad --select stays bad
// usage (exit 2).
func (p *renderPage) extractCall(ctx context.Context) (string, error) {
	args := map[string]any{}
	if p.r.sel != "" {
		args["select"] = p.r.sel
	}
	res, err := p.call(ctx, "browser_extract", args)
	if x, ok := resData(res).(*browser.Extracted); ok {
		p.ex.set(x.Result, x.Err, x.DOM)
	}
	if err != nil {
		if _, xerr := p.ex.take(); xerr != nil {
			return "", xerr
		}
		return "", err
	}
	return res.Text, nil
}

// resData is res's Data, nil for no result.
func resData(res *tools.ToolResult) any {
	if res == nil {
		return nil
	}
	return res.Data
}

// extract returns the page as web_fetch's extractor sees it now.
func (p *renderPage) extract(ctx context.Context) (*extract.Result, error) {
	if _, err := p.extractCall(ctx); err != nil {
		return nil, err
	}
	res, err := p.ex.take()
	if res == nil && err == nil {
		err = errors.New("browser_extract returned no page")
	}
	return res, err
}

// documentInfo is what the tab's document says of itself.
type documentInfo struct {
	Type   string `json:"type"`
	Status int    `json:"status"`
	Size   int64  `json:"size"`
}

// documentJS asks the page for its media type and the
// navigation's status and body size (Navigation Timing).
const documentJS = `(() => { const n = performance.getEntriesByType('navigation')[0] || {};
return {type: document.contentType || '', status: n.responseStatus || 0,
size: n.decodedBodySize || n.encodedBodySize || -1}; })()`

// document asks, through browser_eval, what the tab holds. It is best
// effort: without an answer the page is taken as HTML of unknown status.
func (p *renderPage) document(ctx context.Context) documentInfo {
	info := documentInfo{Size: -1}
	args := map[string]any{"js": documentJS, "tab": p.tab}
	// A page the guard would not let a script run on (one it would ask
	// about) is not asked: nobody is there to answer, and the refusal
	// would only fill the audit log. The registry judges the very call
	// (Registry.Judge), on the tab's live page.
	raw, _ := json.Marshal(args)
	if d, err := p.r.sess.Registry.Judge(ctx, "browser_eval", raw, tools.OriginCommand); err != nil || d.Verdict != guard.Allow {
		return info
	}
	res, err := p.call(ctx, "browser_eval", args)
	if err == nil {
		json.Unmarshal([]byte(res.Text), &info)
	}
	return info
}

// screenshot saves a full-page capture where --screenshot asked.
func (p *renderPage) screenshot(ctx context.Context, path string) error {
	format := "jpeg"
	if strings.EqualFold(filepath.Ext(path), ".png") {
		format = "png"
	}
	res, err := p.call(ctx, "browser_screenshot", map[string]any{"full_page": true, "max_width": 1280, "format": format})
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	if res.Path != "" {
		defer os.Remove(res.Path)
	}
	if len(res.Images) == 0 {
		return errors.New("screenshot: the browser returned no image")
	}
	if err := os.WriteFile(path, res.Images[0].Data, 0o644); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return nil
}

// firstSentence keeps the first sentence of a tool's message: the guard's
// reasons go on with advice meant for the LLM.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

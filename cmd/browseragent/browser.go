package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

// connectFlags choose the person's browser to attach to (shared mode).
type connectFlags struct {
	connect     bool
	wsEndpoints []string // several: a pool of browsers for fetch --render batches
	browserURL  string
	userDataDir string
}

func (c *connectFlags) addFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&c.connect, "connect", false, "use your running Chrome (shared mode) instead of an isolated browser")
	fl.StringArrayVar(&c.wsEndpoints, "ws-endpoint", nil, "the browser's DevTools websocket URL (browserless, Selenium Grid, Chromium with remote debugging); repeat it for a pool in a fetch --render batch")
	fl.StringVar(&c.browserURL, "browser-url", "", "with --connect: http://host:port of a Chrome started with --remote-debugging-port")
	fl.StringVar(&c.userDataDir, "user-data-dir", "", "with --connect: the Chrome profile directory holding DevToolsActivePort")
}

// on reports whether shared mode was asked for; any target flag implies it.
func (c *connectFlags) on() bool {
	return c.connect || len(c.wsEndpoints) > 0 || c.browserURL != "" || c.userDataDir != ""
}

func (c *connectFlags) target() browser.Target {
	t := browser.Target{BrowserURL: c.browserURL, UserDataDir: c.userDataDir}
	if len(c.wsEndpoints) > 0 {
		t.WSEndpoint = c.wsEndpoints[0]
	}
	return t
}

// openBrowser returns an isolated browser, or the person's when asked. The
// caller must Close it (which never closes the person's browser).
func (c *connectFlags) openBrowser(ctx context.Context, headed bool) (*browser.Browser, error) {
	b := browser.New(&browser.Options{Launch: browser.LaunchOptions{Headed: headed}})
	if c.on() {
		if err := b.Connect(ctx, c.target()); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// renderFlags are the browser flags of `browseragent fetch`.
type renderFlags struct {
	on         bool
	waitFor    string
	screenshot string
	headed     bool
	sites      string
	conn       connectFlags
}

func (r *renderFlags) addFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&r.on, "render", false, "render the page in a real browser first (JavaScript apps, logged-in pages)")
	fl.StringVar(&r.waitFor, "wait-for", "", "with --render: wait until this text is on the page, or this CSS selector (one starting with # . [ or holding > :) matches")
	fl.StringVar(&r.screenshot, "screenshot", "", "with --render: save a full-page screenshot here (.jpg or .png)")
	fl.BoolVar(&r.headed, "headed", false, "with --render: show the browser window instead of running headless")
	fl.StringVar(&r.sites, "sites", "", "extra sensitive-sites rules `FILE`, layered over the built-in and user rules")
	r.conn.addFlags(fl)
}

// wanted reports whether any browser flag was given: all of them need
// --render, which runRender checks.
func (r *renderFlags) wanted() bool {
	return r.on || r.waitFor != "" || r.screenshot != "" || r.headed || r.conn.on()
}

// runRender is `fetch --render`. Every step is a tool call through the
// session's registry, the one path the shell and the LLM use, so the guard
// judges it like any other call (a deny-rule page is refused, also when a
// redirect lands there) and the audit log records it. Up to --concurrency
// URLs render at once, each in its own tab: every call names its tab, so
// none depends on which tab is current.
func runRender(ctx context.Context, s *streams, f *fetchFlags, urls []string, format fetch.Format) error {
	if !f.render.on {
		return exitCode(exitUsage, "--wait-for, --screenshot, --sites and --connect need --render")
	}
	if len(f.render.conn.wsEndpoints) > 1 {
		return exitCode(exitUsage, "several --ws-endpoint browsers are a pool for batches: add -i FILE or --out FILE")
	}
	r, err := newRenderer(ctx, f, f.render.conn.target())
	if err != nil {
		return err
	}
	defer r.sess.Close()
	results := make([]chan fetched, len(urls))
	for i := range urls {
		results[i] = make(chan fetched, 1)
	}
	var wg sync.WaitGroup
	defer wg.Wait() // before the session closes
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // an early return stops the renders still to come
	var next atomic.Int64
	for range min(f.concurrency, len(urls)) {
		wg.Go(func() {
			// URLs are taken in order, so a long batch prints steadily.
			for i := int(next.Add(1)) - 1; i < len(urls); i = int(next.Add(1)) - 1 {
				res, err := r.render(ctx, urls[i], shotPath(f.render.screenshot, i, len(urls)))
				results[i] <- fetched{urls[i], res, err}
			}
		})
	}
	return printInOrder(s, f, results, format)
}

// shotPath numbers the screenshot file when several URLs are rendered.
func shotPath(path string, i, n int) string {
	if path == "" || n == 1 {
		return path
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(path, ext), i+1, ext)
}

func newBrowserCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "browser",
		Short: "Look at the browser browseragent drives (your own Chrome with --connect)",
	}
	cmd.AddCommand(newBrowserTabsCmd(s))
	return cmd
}

func newBrowserTabsCmd(s *streams) *cobra.Command {
	var conn connectFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tabs",
		Short: "List the tabs of your running Chrome (read-only: nothing is opened or closed)",
		Long: `List the tabs of your running Chrome. browseragent finds it through the
DevToolsActivePort file of your profile (allow remote debugging at
chrome://inspect/#remote-debugging first), or through --ws-endpoint,
--browser-url or --user-data-dir. It attaches, lists and detaches: no tab is
opened, changed or closed.`,
		Example: `  browseragent browser tabs
  browseragent browser tabs --user-data-dir ~/.config/chrome-work
  browseragent browser tabs --browser-url http://127.0.0.1:9222 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			conn.connect = true
			b, err := conn.openBrowser(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer b.Close()
			tabs := b.Tabs()
			if asJSON {
				enc := json.NewEncoder(s.out)
				enc.SetIndent("", "  ")
				return enc.Encode(tabs)
			}
			fmt.Fprintln(s.out, browser.FormatTabs(tabs, b.Mode()))
			return nil
		},
	}
	conn.addFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the tabs as JSON")
	return cmd
}

// renderer renders pages for `fetch --render` through an session.Session. It
// is safe for concurrent use: each page has its own tab and extraction.
type renderer struct {
	sess     *session.Session
	lost     atomic.Bool // the attached browser went away: no further call
	waitFor  string
	wait     time.Duration
	sel      string
	links    bool
	maxBytes int64
}

// newRenderer opens the session (isolated, or attached to the person's
// browser with --connect) with the sensitive-site rules and no MCP server.
// Nobody is asked anything: a call the guard would ask about is refused.
func newRenderer(ctx context.Context, f *fetchFlags, target browser.Target) (*renderer, error) {
	rules, err := loadRules(f.render.sites, nil)
	if err != nil {
		return nil, err
	}
	wait := f.timeout
	if wait <= 0 {
		wait = 15 * time.Second
	}
	r := &renderer{waitFor: f.render.waitFor, wait: wait, sel: f.selector, links: f.links, maxBytes: int64(f.maxBytes)}
	ex := &renderExtract{links: f.links}
	attached := f.render.conn.on()
	sess, err := session.NewSession(&session.SessionOptions{
		Rules: rules,
		Browser: browser.Options{Launch: browser.LaunchOptions{Headed: f.render.headed}, Extract: ex.extract, NavTimeout: f.timeout,
			OnLost: func() { r.lost.Store(attached) }},
	})
	if err != nil {
		return nil, err
	}
	r.sess = sess
	if attached {
		if _, err := sess.Connect(ctx, target); err != nil {
			sess.Close()
			return nil, err
		}
	}
	return r, nil
}

// toolError is a browser tool's failure as one sentence. In a batch it is
// tried again (a tab that froze under load, a navigation cut short) unless
// the guard refused the call or the page could not be loaded at all.
type toolError string

func (e toolError) Error() string       { return string(e) }
func (e toolError) FailureKind() string { return toolErrorKind(string(e)) }
func (e toolError) Retryable() bool {
	k := toolErrorKind(string(e))
	return k != "refused" && k != "load"
}

func toolErrorKind(msg string) string {
	switch {
	case strings.HasPrefix(msg, "Refused"):
		return "refused"
	case strings.HasPrefix(msg, "could not load"):
		return "load"
	}
	return "browser"
}

// errBrowserLost fails a call on a renderer whose attached browser went
// away: the session would otherwise launch a local browser in its place.
type errBrowserLost struct{}

func (errBrowserLost) Error() string       { return "lost the connection to the browser" }
func (errBrowserLost) FailureKind() string { return "browser-lost" }
func (errBrowserLost) Retryable() bool     { return true }

// isLost reports whether err came from the attached browser going away.
func (r *renderer) isLost(err error) bool {
	var l errBrowserLost
	return r.lost.Load() || errors.As(err, &l) || errors.Is(err, browser.ErrLost) ||
		strings.Contains(err.Error(), "lost the connection")
}

// renderExtract is the session's extractor for browser_extract: web_fetch's
// extraction of the rendered DOM (never flagged as a JavaScript shell: the
// browser ran its scripts), keeping the whole result (title, links,
// warnings) so the page prints in any --format, as a plain fetch does. The
// registry runs it only inside a browser_extract call the guard allowed;
// the result goes to the extraction the call's context carries.
type renderExtract struct {
	links bool
}

// extractionKey is the context key of the page's *extraction.
type extractionKey struct{}

func (e *renderExtract) extract(ctx context.Context, html []byte, pageURL, selector string) (string, error) {
	r, err := browser.ExtractDOM(html, pageURL, &fetch.ExtractOptions{Select: selector, Links: e.links})
	if x, ok := ctx.Value(extractionKey{}).(*extraction); ok {
		x.set(r, err, html)
	}
	if err != nil {
		return "", err
	}
	return r.Markdown(), nil
}

// extraction is what the extractor last made of one page.
type extraction struct {
	mu  sync.Mutex
	res *fetch.Result
	err error
	dom []byte // the DOM it was made from, kept after take
}

func (x *extraction) set(r *fetch.Result, err error, dom []byte) {
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
func (x *extraction) take() (*fetch.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	r, err := x.res, x.err
	x.res, x.err = nil, nil
	return r, err
}

// call runs one tool through the registry. A refusal or a tool failure
// becomes an error of one sentence.
func (r *renderer) call(ctx context.Context, tool string, args map[string]any) (*tools.ToolResult, error) {
	if r.lost.Load() {
		return nil, errBrowserLost{}
	}
	raw, _ := json.Marshal(args)
	res, err := r.sess.Registry.Call(ctx, tool, raw, tools.OriginCommand)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return res, toolError(firstSentence(res.Text))
	}
	return res, nil
}

// renderPage is one URL being rendered: the tab browser_open gave it and
// what the extractor made of it.
type renderPage struct {
	r   *renderer
	tab string
	ex  extraction
}

// render opens url in a new tab, waits for it, extracts it, takes the
// screenshot and closes the tab again.
func (r *renderer) render(ctx context.Context, url, shot string) (*fetch.Result, error) {
	if _, err := fetch.ParseURL(url); err != nil {
		return nil, err // refused as plain fetch refuses it, before any browser starts
	}
	p := &renderPage{r: r}
	ctx = context.WithValue(ctx, extractionKey{}, &p.ex)
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
	doc := p.document(ctx, res.FinalURL)
	length := int64(-1)
	if resp, ok := r.sess.Browser.LastResponse(p.tab); ok {
		doc.Status = cmp.Or(doc.Status, resp.Status)
		doc.Type = cmp.Or(doc.Type, resp.MIME)
		length = resp.Size
	}
	res, err = fetch.FromRendered(&fetch.Rendered{
		URL: url, FinalURL: res.FinalURL, Status: doc.Status, ContentType: doc.Type,
		Size: doc.Size, ContentLength: length, DOM: p.ex.lastDOM(), Extracted: res,
	}, r.maxBytes, &fetch.ExtractOptions{Select: r.sel, Links: r.links})
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

// waitPage waits for --wait-for, or else until the page's content stops
// changing (a JavaScript app has then drawn it).
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

// settle extracts the page every quarter second until its content has not
// changed for half a second (at most five seconds); extract then returns the
// last extraction.
func (p *renderPage) settle(ctx context.Context) error {
	const poll, quiet, most = 250 * time.Millisecond, 500 * time.Millisecond, 5 * time.Second
	prev, since, start := "", time.Time{}, time.Now()
	for {
		text, err := p.extractCall(ctx)
		now := time.Now()
		switch {
		case err != nil:
			return err
		case text != prev || since.IsZero():
			prev, since = text, now
		case now.Sub(since) >= quiet:
			return nil
		}
		if now.Sub(start) >= most {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
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
	if err != nil {
		if _, xerr := p.ex.take(); xerr != nil {
			return "", xerr
		}
		return "", err
	}
	return res.Text, nil
}

// extract returns the page as web_fetch's extractor saw it in the last
// browser_extract call, making that call now unless settle just did.
func (p *renderPage) extract(ctx context.Context) (*fetch.Result, error) {
	if res, err := p.ex.take(); res != nil || err != nil {
		return res, err
	}
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
func (p *renderPage) document(ctx context.Context, pageURL string) documentInfo {
	info := documentInfo{Size: -1}
	args := map[string]any{"js": documentJS}
	// A page the guard would not let a script run on (one it would ask
	// about) is not asked: nobody is there to answer, and the refusal
	// would only fill the audit log.
	pre := guard.Call{Tool: "browser_eval", Name: "browser_eval", Args: args, PageURL: pageURL}
	if d := p.r.sess.Policy.Check(pre); d.Verdict != guard.Allow {
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

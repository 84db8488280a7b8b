package browser

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/media"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// maxShotHeight caps a full-page screenshot; longer pages are cut.
const maxShotHeight = 16000

// screenshot captures the page behind ctx as JPEG (or PNG), scaled down to
// maxWidth CSS pixels when wider.
func screenshot(ctx context.Context, fullPage bool, maxWidth int, png bool) ([]byte, error) {
	m, err := chromedp.Call(ctx, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	vp := m.CSSVisualViewport
	if vp == nil {
		return nil, fmt.Errorf("the page reported no viewport")
	}
	w, h := vp.ClientWidth, vp.ClientHeight
	x, y := vp.PageX, vp.PageY
	if fullPage && m.CSSContentSize != nil {
		w, h, x, y = m.CSSContentSize.Width, math.Min(m.CSSContentSize.Height, maxShotHeight), 0, 0
	}
	if maxWidth <= 0 {
		maxWidth = 1280
	}
	scale := 1.0
	if w > float64(maxWidth) {
		scale = float64(maxWidth) / w
	}
	p := page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatJpeg,
		Quality:               new(int64(80)),
		Clip:                  &page.Viewport{X: x, Y: y, Width: w, Height: h, Scale: scale},
		CaptureBeyondViewport: new(fullPage),
	}
	if png {
		p.Format, p.Quality = page.CaptureScreenshotFormatPng, nil
	}
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, p)
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}

type screenshotArgs struct {
	FullPage bool   `json:"full_page,omitempty" jsonschema:"whole page, not only the viewport"`
	MaxWidth int    `json:"max_width,omitempty" jsonschema:"scale down to this width in pixels, default 1280"`
	Format   string `json:"format,omitempty" jsonschema:"jpeg (default) or png"`
	Annotate bool   `json:"annotate,omitempty" jsonschema:"draw the refs on it"`
	tabArg
}

func toolScreenshot(ctx context.Context, c *call, a screenshotArgs) (*Result, error) {
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	if c.s.mode == ModeShared {
		// A background tab of a real window paints nothing to capture.
		cdp.Call(ctx, chromedp.FromContext(c.s.root).Browser, target.ActivateTarget, target.ActivateTargetParams{TargetID: c.t.id})
	}
	var legend []string
	if a.Annotate {
		lines, off, err := c.annotate(ctx, pctx)
		if err != nil {
			return jsFail(err)
		}
		defer off()
		legend = lines
	}
	png := a.Format == "png"
	data, err := screenshot(pctx, a.FullPage, a.MaxWidth, png)
	if err != nil {
		return jsFail(err)
	}
	mime, ext := "image/jpeg", ".jpg"
	if png {
		mime, ext = "image/png", ".png"
	}
	if err := os.MkdirAll(c.b.opts.ScreenshotDir, 0o700); err != nil {
		return nil, fmt.Errorf("screenshot dir: %w", err)
	}
	path := filepath.Join(c.b.opts.ScreenshotDir, fmt.Sprintf("shot-%s-%s%s", time.Now().Format("20060102-150405.000"), c.t.short, ext))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, fmt.Errorf("save screenshot: %w", err)
	}
	text := fmt.Sprintf("Screenshot of tab %s saved to %s (%d KB).", c.t.short, path, len(data)/1024)
	if a.Annotate {
		text += "\nThe refs drawn on it (a frame's controls are listed, not drawn):\n" + strings.Join(legend, "\n")
	}
	return &Result{Text: text, Images: []media.Image{{MIME: mime, Data: data}}, Path: path}, nil
}

// renderedHTML returns the live DOM of the document, its URL and its
// title, in one question to the page.
func renderedHTML(d docCtx) (html, url, title string, err error) {
	v, err := evalDoc[[]string](d, "[document.documentElement.outerHTML, location.href, document.title]")
	if err != nil {
		return "", "", "", err
	}
	if len(v) != 3 {
		return "", "", "", fmt.Errorf("unexpected page answer")
	}
	return v[0], v[1], v[2], nil
}

// extractDOM runs web_fetch's extractor over a page the browser rendered.
// The page has already run its scripts, so it is never reported as a
// JavaScript app shell: that flag and its hint ("open it in the browser")
// are for plain HTTP fetches only.
func extractDOM(html []byte, pageURL string, o *extract.Options) (*extract.Result, error) {
	r, err := extract.Extract(html, pageURL, o)
	if r != nil && r.JSShell {
		r.JSShell, r.Hint = false, ""
	}
	return r, err
}

// Extracted is browser_extract's typed outcome, its result's Data: what
// web_fetch's extractor made of the rendered DOM of the page (Result, or
// Err when it failed, a bad selector say), and that DOM, for Go callers
// that print a page in fetch's formats (fetch --render). The model never
// sees it.
type Extracted struct {
	Result *extract.Result
	Err    error
	DOM    []byte
}

// extract runs extractDOM over the rendered DOM of the document d. It
// returns the page's title (as the document says it), URL and what the
// extractor made of it; x is nil when the page gave no DOM.
func (b *Browser) extract(d docCtx, selector string) (title, url string, x *Extracted, err error) {
	html, url, title, err := renderedHTML(d)
	if err != nil {
		return "", "", nil, err
	}
	r, err := extractDOM([]byte(html), url, &extract.Options{Select: selector, Links: b.opts.ExtractLinks})
	x = &Extracted{Result: r, Err: err, DOM: []byte(html)}
	if err != nil {
		return "", url, x, err
	}
	return title, url, x, nil
}

type extractArgs struct {
	Select string `json:"select,omitempty" jsonschema:"optional CSS selector"`
	tabArg
}

func toolExtract(ctx context.Context, c *call, a extractArgs) (*Result, error) {
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	title, url, x, err := c.b.extract(docCtx{ctx: pctx}, a.Select)
	if err != nil {
		if url == "" {
			return jsFail(err)
		}
		r := failf("extract %s: %v", url, err)
		r.Data = x
		return r, nil
	}
	text := fmt.Sprintf("Page: %s\nURL: %s\n\n%s", title, url, x.Result.Markdown())
	if a.Select == "" {
		text += c.frameTexts(ctx, url)
	}
	return &Result{Text: text, Data: x}, nil
}

// frameTexts is the main content of each frame of the call's tab that
// shows any, same-origin or not, each under a line naming the frame.
func (c *call) frameTexts(ctx context.Context, topURL string) string {
	frames, release, err := c.s.listFrames(ctx, c.ctx, c.t)
	defer release()
	if err != nil {
		return ""
	}
	var shown []*docFrame
	var urls, texts []string
	for _, f := range frames {
		d, release, err := c.s.frameDoc(ctx, c.ctx, c.t, f)
		if err != nil {
			continue
		}
		_, url, x, err := c.b.extract(d, "")
		release()
		if err != nil {
			continue
		}
		md := x.Result.Markdown()
		if strings.TrimSpace(md) == "" {
			continue
		}
		shown, urls, texts = append(shown, f), append(urls, url), append(texts, strings.TrimSpace(md))
	}
	var b strings.Builder
	for i, why := range c.framesWithheld(topURL, shown, urls) { // one question about them all, with the top document
		if why != "" {
			fmt.Fprintf(&b, "\n\n--- frame %s: (%s)", shown[i].key, why)
			continue
		}
		fmt.Fprintf(&b, "\n\n--- frame %s: %s\n\n%s", shown[i].key, urls[i], texts[i])
	}
	return b.String()
}

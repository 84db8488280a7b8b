package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/browseragent/browseragent/fetch"
	"github.com/chromedp/chromedp"
)

// RenderOptions configure Render.
type RenderOptions struct {
	WaitFor    string        // text, or a CSS selector, to wait for after load
	WaitTime   time.Duration // how long to wait for WaitFor; default 15s
	Select     string        // CSS selector: extract only the matching nodes
	Links      bool          // collect the page's links
	Screenshot string        // save a full-page JPEG (or .png) screenshot here
}

// ErrWaitFor means the --wait-for text or selector never appeared.
var ErrWaitFor = errors.New("wait-for did not appear")

// settleJS resolves once the DOM has not changed for quiet ms (or after max
// ms): a page rendered by JavaScript has then usually drawn its content.
const settleJS = `new Promise(resolve => {
  let timer = setTimeout(done, %d);
  const stop = setTimeout(done, %d);
  const mo = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(done, %d); });
  mo.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
  function done() { mo.disconnect(); clearTimeout(timer); clearTimeout(stop); resolve(true); }
})`

// waitAnyJS is true when want is on the page as text or as a CSS selector
// that matches a visible element.
const waitAnyJS = `(function(want){
  try { const e = document.querySelector(want); if (e && (!e.checkVisibility || e.checkVisibility())) return true; } catch (x) {}
  return !!document.body && document.body.innerText.includes(want);
})(%s)`

// Render loads url in a new tab of the current browser (isolated, or the
// person's after Connect), waits for it to render, extracts it like
// web_fetch does and closes the tab again. It is the scripted path for SPAs
// and logged-in pages: `browseragent fetch --render`.
func (b *Browser) Render(ctx context.Context, url string, o RenderOptions) (*fetch.Result, error) {
	s, err := b.session(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.newTab(ctx, false)
	if err != nil {
		return nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		s.closeTab(cctx, t)
	}()
	c := &call{b: b, s: s}
	defer func() {
		for i := len(c.release) - 1; i >= 0; i-- {
			c.release[i]()
		}
	}()
	pctx, res, err := c.page(ctx, t.short)
	if err != nil {
		return nil, err
	}
	if res != nil {
		return nil, errors.New(res.Text)
	}
	nctx, cancel := context.WithTimeout(pctx, b.opts.NavTimeout)
	resp, err := chromedp.Run(nctx, chromedp.NavigateResponse(normalizeURL(url)))
	cancel()
	if r, failed := navFail(err, nctx, pctx, url, b.opts.NavTimeout); failed {
		// A page still loading after the wait is read as it is.
		if nctx.Err() == nil || ctx.Err() != nil {
			return nil, errors.New(r.Text)
		}
	}
	if err := renderWait(pctx, o); err != nil {
		return nil, err
	}
	if o.Screenshot != "" {
		png := len(o.Screenshot) > 4 && o.Screenshot[len(o.Screenshot)-4:] == ".png"
		data, err := screenshot(pctx, true, 1280, png)
		if err != nil {
			return nil, fmt.Errorf("screenshot: %w", err)
		}
		if err := os.WriteFile(o.Screenshot, data, 0o644); err != nil {
			return nil, fmt.Errorf("screenshot: %w", err)
		}
	}
	html, finalURL, err := renderedHTML(pctx)
	if err != nil {
		return nil, fmt.Errorf("read the rendered page: %w", err)
	}
	r, err := ExtractDOM([]byte(html), finalURL, &fetch.ExtractOptions{Select: o.Select, Links: o.Links})
	if r != nil {
		r.URL = url
		if resp != nil {
			r.Status = int(resp.Status)
			r.ContentType = resp.MimeType
		}
	}
	return r, err
}

// renderWait waits for WaitFor, or else for the DOM to go quiet.
func renderWait(ctx context.Context, o RenderOptions) error {
	if o.WaitFor == "" {
		_, err := eval[bool](ctx, fmt.Sprintf(settleJS, 500, 5000, 500))
		return err
	}
	wait := o.WaitTime
	if wait <= 0 {
		wait = 15 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		ectx, cancel := context.WithTimeout(ctx, 3*time.Second)
		ok, _ := eval[bool](ectx, fmt.Sprintf(waitAnyJS, jsArg(o.WaitFor)))
		cancel()
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %q is not on the page after %s (check the text or selector, or raise the wait)", ErrWaitFor, o.WaitFor, wait)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		time.Sleep(150 * time.Millisecond)
	}
}

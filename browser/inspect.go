package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

func init() {
	for _, err := range []error{
		addTool("browser_html", "HTML of the page, or of an element by ref; attr: one attribute of it.", toolHTML),
		addTool("browser_pdf", "Print the page to a PDF file.", toolPDF),
	} {
		mustAdd(err)
	}
}

// maxHTML bounds what browser_html returns.
const maxHTML = 200000

// htmlJS is an element's outerHTML, or one of its attributes (null when
// it has none), with the value of secret fields (secretFieldJS) shown as
// •••• as snapshots show it.
const htmlJS = secretFieldJS + `
const name = %s;
if (name !== '') {
  if (name.toLowerCase() === 'value' && __baSecret(el) && el.hasAttribute('value')) return '••••';
  return el.getAttribute(name);
}
const copy = el.cloneNode(true);
for (const f of [copy, ...copy.querySelectorAll('*')]) if (__baSecret(f) && f.hasAttribute('value')) f.setAttribute('value', '••••');
return copy.outerHTML;`

type htmlArgs struct {
	Ref  string `json:"ref,omitempty" jsonschema:"element ref; default the page"`
	Attr string `json:"attr,omitempty" jsonschema:"attribute name"`
	tabArg
}

func toolHTML(ctx context.Context, c *call, a htmlArgs) (*Result, error) {
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	if a.Attr != "" && a.Ref == "" {
		return failf("browser_html attr needs the ref of the element it is an attribute of"), nil
	}
	var v *string
	if a.Ref == "" {
		v, err = evalDoc[*string](docCtx{ctx: pctx}, fmt.Sprintf("(function(el){%s})(document.documentElement)", fmt.Sprintf(htmlJS, jsArg(""))))
	} else {
		d, r := c.refDoc(ctx, a.Ref)
		if r != nil {
			return r, nil
		}
		v, err = onRef[*string](d, a.Ref, fmt.Sprintf(htmlJS, jsArg(a.Attr)))
	}
	if err != nil {
		return jsFail(err)
	}
	if v == nil {
		return failf("%s has no attribute %q", a.Ref, a.Attr), nil
	}
	out := *v
	if len(out) > maxHTML {
		out = out[:maxHTML] + fmt.Sprintf("\n[cut at %d of %d characters: a ref gives one element's HTML]", maxHTML, len(*v))
	}
	return &Result{Text: out}, nil
}

type pdfArgs struct {
	Path string `json:"path" jsonschema:".pdf file"`
	tabArg
}

// toolPDF prints the page (Page.printToPDF) into the file the registry
// judged: its catalogue entry names path as a file written.
func toolPDF(ctx context.Context, c *call, a pdfArgs) (*Result, error) {
	if a.Path == "" {
		return failf("browser_pdf needs path, the .pdf file to write"), nil
	}
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	res, err := chromedp.Call(pctx, page.PrintToPDF, page.PrintToPDFParams{PrintBackground: new(true)})
	if err != nil {
		return failf("could not print tab %s to a PDF: %v", c.t.short, err), nil
	}
	data := res.Data
	if err := os.WriteFile(a.Path, data, 0o644); err != nil {
		return failf("could not save the PDF: %v", err), nil
	}
	return &Result{Text: fmt.Sprintf("Saved a PDF of tab %s to %s (%d KB).", c.t.short, a.Path, (len(data)+1023)/1024), Path: a.Path}, nil
}

// quietFor is how long the network must be still for browser_wait load.
const quietFor = 500 * time.Millisecond

// waitLoad waits until the tab's document has loaded (readyState
// complete) and no request of the tab has started or ended for quietFor,
// as the browser reports them; false when timeout ran out first.
func waitLoad(ctx context.Context, t *tab, timeout time.Duration) (bool, error) {
	net, stop := t.events.watch(func(ev any) bool {
		switch ev.(type) {
		case *network.EventRequestWillBeSent, *network.EventResponseReceived, *network.EventLoadingFinished, *network.EventLoadingFailed:
			return true
		}
		return false
	})
	defer stop()
	end := time.NewTimer(timeout)
	defer end.Stop()
	quiet := time.NewTimer(quietFor)
	defer quiet.Stop()
	for {
		select {
		case <-net:
			quiet.Reset(quietFor)
		case <-quiet.C:
			ectx, cancel := context.WithTimeout(ctx, 2*time.Second)
			rs, err := eval[string](ectx, "document.readyState")
			cancel()
			if err == nil && rs == "complete" {
				return true, nil
			}
			quiet.Reset(100 * time.Millisecond) // loading still: its next request resets the wait
		case <-end.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// annotateJS draws each ref's box and name over the page, in a layer of
// its own that annotationsOff removes; it returns how many it drew.
const annotateJS = `(function(refs){
const st = window['__browseragent'];
const layer = document.createElement('div');
layer.id = '__browseragent_annotations';
layer.style.cssText = 'all:initial;position:absolute;left:0;top:0;width:0;height:0;overflow:visible;pointer-events:none;z-index:2147483647';
let n = 0;
for (const ref of refs) {
  const w = st && st.refs.get(ref), el = w && w.deref();
  if (!el || !el.isConnected) continue;
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) continue;
  const box = document.createElement('div');
  box.style.cssText = 'all:initial;position:absolute;box-sizing:border-box;border:2px solid #d11;' +
    'left:' + (r.left + scrollX) + 'px;top:' + (r.top + scrollY) + 'px;width:' + r.width + 'px;height:' + r.height + 'px';
  const label = document.createElement('span');
  label.textContent = ref;
  label.style.cssText = 'all:initial;position:absolute;left:-2px;top:' + (r.top + scrollY >= 14 ? '-14px' : '0') + ';padding:0 3px;background:#d11;color:#fff;font:bold 11px/14px monospace;white-space:nowrap';
  box.appendChild(label);
  layer.appendChild(box);
  n++;
}
document.documentElement.appendChild(layer);
return n;
})(%s)`

const annotationsOff = `(function(){ const l = document.getElementById('__browseragent_annotations'); if (l) l.remove(); return true; })()`

// annotate outlines the page's controls (an interactive snapshot: the refs
// stay valid for the next calls) and draws the refs of the top
// document's ones over the page. It returns the snapshot's lines, for the
// result, and the function that takes the drawing away.
func (c *call) annotate(ctx, pctx context.Context) ([]string, func(), error) {
	s, err := c.snapshot(ctx, snapshotOptions{Interactive: true})
	if err != nil {
		return nil, nil, err
	}
	if s.Error != "" {
		return nil, nil, errors.New(s.Error)
	}
	var refs []string
	for _, e := range s.Elements {
		if RefFrame(e.Ref) == "" {
			refs = append(refs, e.Ref)
		}
	}
	d := docCtx{ctx: pctx}
	if _, err := evalDoc[int](d, fmt.Sprintf(annotateJS, jsArg(refs))); err != nil {
		return nil, nil, err
	}
	off := func() {
		octx, cancel := context.WithTimeout(context.WithoutCancel(pctx), 2*time.Second)
		defer cancel()
		evalDoc[bool](docCtx{ctx: octx}, annotationsOff)
	}
	return s.Lines, off, nil
}

package extract

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// DefaultMaxBytes is the cap FromRendered applies when given none: the HTTP
// client's default body cap.
const DefaultMaxBytes = 10 << 20

// Rendered is a page as a browser shows it, for FromRendered: what the
// tab's document says of itself and its live DOM.
type Rendered struct {
	URL         string // as asked
	FinalURL    string // the tab's location after redirects
	Status      int    // the navigation's HTTP status (0: unknown)
	ContentType string // document.contentType: text/html, application/json, image/png ...
	Size        int64  // the response body's size (decodedBodySize), -1 unknown
	// ContentLength is the response's Content-Length (-1 unknown). A PDF
	// or an image is shown in the browser's viewer, whose document's size
	// is its own: for such a page this is the size.
	ContentLength int64
	// RetryAfter is the response's Retry-After header, honoured by a
	// batch's retry as a plain fetch's is.
	RetryAfter string
	DOM        []byte // document.documentElement.outerHTML
	// Extracted is the extraction of DOM already made, if any: reused when
	// the page is HTML and not cut, instead of extracting it again.
	Extracted *Result
}

// FromRendered makes the Result a plain Fetch would make of the same
// response, from what the browser rendered: HTML is extracted from the
// live DOM (cut at maxBytes, never flagged as a JavaScript shell: its
// scripts ran), JSON and text come from the <pre> the browser shows them
// in, anything else is described by type and size. So `fetch --render`
// answers with the same fields and kinds as `fetch`.
func FromRendered(p *Rendered, maxBytes int64, xo *Options) (*Result, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	ct := p.ContentType
	if ct == "" {
		ct = "text/html"
	}
	final := p.FinalURL
	if final == "" {
		final = p.URL
	}
	meta := func(r *Result) *Result {
		r.URL, r.FinalURL, r.Status, r.ContentType, r.TotalBytes = p.URL, final, p.Status, ct, p.Size
		r.RetryAfter = parseRetryAfter(p.RetryAfter, time.Now())
		return r
	}
	switch kindOf(ct, "", nil) {
	case KindBinary:
		r := meta(&Result{Kind: KindBinary})
		if p.ContentLength >= 0 {
			r.TotalBytes = p.ContentLength
		}
		r.RawBytes = int(max(r.TotalBytes, 0))
		r.fillBinary()
		r.Hint = strings.Replace(r.Hint, "; open the URL in the browser instead.", ": the browser displays it, but there is no text to extract.", 1)
		r.body = r.Hint + "\n"
		return r, nil
	case KindJSON, KindText:
		body, cut := capBytes([]byte(preText(p.DOM)), maxBytes)
		r := meta(&Result{Truncated: cut, RawBytes: len(body)})
		r.truncationWarning(maxBytes)
		if len(body) == 0 {
			body = []byte("\n") // an empty document is not an error here: the browser loaded it
		}
		return r, r.fill(body, strings.Split(ct, ";")[0]+"; charset=utf-8", "", xo)
	}
	dom, cut := capBytes(p.DOM, maxBytes)
	r, err := p.Extracted, error(nil)
	if r == nil || cut {
		r, err = Extract(dom, final, xo)
		if r == nil {
			return nil, err
		}
	}
	r.RawBytes = len(dom)
	r.JSShell, r.Hint = false, ""
	meta(r)
	r.Truncated = cut
	r.truncationWarning(maxBytes)
	return r, err
}

// capBytes cuts b at max bytes, on a UTF-8 boundary.
func capBytes(b []byte, max int64) ([]byte, bool) {
	if int64(len(b)) <= max {
		return b, false
	}
	b = b[:max]
	for len(b) > 0 && b[len(b)-1]&0xC0 == 0x80 {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] >= 0xC0 {
		b = b[:len(b)-1]
	}
	return b, true
}

// truncationWarning is the warning plain Fetch gives a body cut at max.
func (r *Result) truncationWarning(max int64) {
	if r.Truncated {
		r.warn(fmt.Sprintf("the page is larger than %s; only the first %s were read (raise --max-bytes to get more)",
			humanBytes(max), humanBytes(max)))
	}
}

// preText is the text of the first <pre> of a DOM: Chromium shows a JSON or
// text document as one <pre> holding the body.
func preText(dom []byte) string {
	doc, err := html.Parse(bytes.NewReader(dom))
	if err != nil {
		return ""
	}
	if pre := findFirst(doc, atom.Pre); pre != nil {
		return textOf(pre)
	}
	if body := findFirst(doc, atom.Body); body != nil {
		return textOf(body)
	}
	return ""
}

package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
)

// Kind says what a response held, which decides how it is shown.
type Kind string

const (
	KindHTML   Kind = "html"
	KindJSON   Kind = "json"   // pretty-printed
	KindText   Kind = "text"   // passed through
	KindBinary Kind = "binary" // not shown: type and size, and a hint
)

// Link is one absolute link found on the page.
type Link struct {
	URL  string `json:"url"`
	Text string `json:"text,omitempty"`
}

// Result is a fetched (or extracted) page. The content itself is rendered on
// demand by Markdown, Text, HTML or Render, so a caller pays only for the
// format it uses. A Result is not safe for concurrent use.
type Result struct {
	URL         string    // as asked
	FinalURL    string    // after redirects
	Status      int       // HTTP status; 0 for Extract
	ContentType string    // media type as the server sent it
	Kind        Kind      // html, json, text or binary
	Charset     string    // the charset the body was decoded from
	Title       string    // page title (readability's choice for articles)
	Byline      string    // author, when the page names one
	Lang        string    // language tag from metadata or <html lang>
	SiteName    string    // site name from metadata
	Excerpt     string    // short description
	PageType    PageType  // what kind of page the HTML was read as; "" for other kinds
	Published   time.Time // zero when unknown
	Links       []Link    // absolute links, when Options.Links
	JSShell     bool      // the page looks like a JavaScript app shell
	Hint        string    // what to do next (JS shell, binary body), or ""
	Truncated   bool      // the body was cut at MaxBytes
	RawBytes    int       // body bytes read, after decompression
	TotalBytes  int64     // body size the server announced, or -1
	Warnings    []string  // things that were repaired (charset, truncation)
	Error       string    // set by callers that report failures in JSON
	ErrorKind   string    // FailureKind of Error, set with it
	// RetryAfter is the wait a 429 or 503 answer asked for (its
	// Retry-After header), or 0.
	RetryAfter time.Duration

	nodes    []*html.Node // main content, or the nodes --select matched
	selected bool         // nodes came from a selector
	body     string       // content for non-HTML kinds
	md, txt  *string      // render caches
	choiceX  []float64    // the chooser's features, when Options.reading forced one
}

// Response is what an HTTP client read, for FromResponse: the facts of the
// answer and its body (already decompressed and capped).
type Response struct {
	URL, FinalURL string // as asked; after redirects
	Status        int
	ContentType   string // the Content-Type header
	// BodyType is the media type the body is read as (the client may know
	// better than the header: a robots.txt is text); "" means ContentType.
	BodyType string
	// Sniffed is the type sniffed from the body (net/http's
	// DetectContentType), used when the header names none or a generic one.
	Sniffed       string
	ContentLength int64  // as announced, or -1
	RetryAfter    string // the Retry-After header
	Body          []byte
	Truncated     bool  // the body was cut at MaxBytes
	MaxBytes      int64 // the cap it was read with
}

// FromResponse decodes and extracts an HTTP response's body according to
// its media type. On failure it returns a nil Result.
func FromResponse(p *Response, xo *Options) (*Result, error) {
	r := &Result{
		URL:         p.URL,
		FinalURL:    p.FinalURL,
		Status:      p.Status,
		ContentType: p.ContentType,
		Truncated:   p.Truncated,
		RawBytes:    len(p.Body),
		TotalBytes:  p.ContentLength,
		RetryAfter:  parseRetryAfter(p.RetryAfter, time.Now()),
	}
	r.truncationWarning(p.MaxBytes)
	bodyType := p.BodyType
	if bodyType == "" {
		bodyType = p.ContentType
	}
	if err := r.fill(p.Body, bodyType, p.Sniffed, xo); err != nil {
		return nil, err
	}
	return r, nil
}

// parseRetryAfter reads a Retry-After header: seconds, or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(n, 0)) * time.Second
	}
	if t, err := parseHTTPTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// parseHTTPTime is net/http's ParseTime: the three date formats HTTP/1.1
// allows (RFC 9110 5.6.7).
func parseHTTPTime(v string) (t time.Time, err error) {
	for _, layout := range []string{"Mon, 02 Jan 2006 15:04:05 GMT", time.RFC850, time.ANSIC} {
		if t, err = time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return t, err
}

// fill decodes and extracts body according to its media type.
// sniffed is the type sniffed from the body, for a generic contentType.
func (r *Result) fill(body []byte, contentType, sniffed string, xo *Options) error {
	if len(body) == 0 {
		if r.Status >= 400 {
			return nil // StatusError reports it
		}
		return &Error{Kind: ErrEmptyBody, URL: r.URL,
			Msg: fmt.Sprintf("%s answered %d with an empty body", r.FinalURL, r.Status)}
	}
	r.Kind = kindOf(contentType, sniffed, body)
	if r.Kind == KindBinary {
		r.fillBinary()
		return nil
	}
	text, cs, warn := toUTF8(body, contentType, r.Kind == KindHTML)
	r.Charset = cs
	r.warn(warn)
	switch r.Kind {
	case KindHTML:
		err := r.extractHTML(text, r.FinalURL, xo)
		if err != nil && r.Status >= 400 {
			return nil // the status is the error worth telling
		}
		return err
	case KindJSON:
		var out bytes.Buffer
		if err := json.Indent(&out, text, "", "  "); err != nil {
			r.Kind = KindText
			r.warn("the body is labelled JSON but does not parse (" + err.Error() + "); shown as text")
			r.body = string(text)
			return nil
		}
		r.body = out.String()
	default:
		r.body = string(text)
	}
	if xo != nil && xo.Select != "" {
		r.warn("--select applies to HTML pages only; this is " + r.mediaType())
	}
	return nil
}

func (r *Result) fillBinary() {
	size := humanBytes(int64(r.RawBytes))
	if r.TotalBytes > 0 {
		size = humanBytes(r.TotalBytes)
	} else if r.Truncated {
		size = "more than " + size
	}
	r.Hint = fmt.Sprintf("This is binary content (%s, %s), not shown as text; open the URL in the browser instead.",
		r.mediaType(), size)
	r.body = r.Hint + "\n"
}

func (r *Result) warn(w string) {
	if w != "" {
		r.Warnings = append(r.Warnings, w)
	}
}

func (r *Result) mediaType() string {
	mt, _, err := mime.ParseMediaType(r.ContentType)
	if err != nil || mt == "" {
		return "unknown type"
	}
	return mt
}

// kindOf maps a Content-Type (or, when it is missing or generic, the type
// sniffed from the body; text when there is none) to a Kind.
func kindOf(contentType, sniffed string, body []byte) Kind {
	mt, _, _ := mime.ParseMediaType(contentType)
	mt = strings.ToLower(mt)
	if mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" {
		if sniffed == "" {
			sniffed = "text/plain; charset=utf-8" // what DetectContentType says of no bytes
		}
		mt, _, _ = mime.ParseMediaType(sniffed)
		if mt == "text/plain" && json.Valid(bytes.TrimSpace(body)) {
			return KindJSON
		}
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return KindHTML
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return KindJSON
	case strings.HasPrefix(mt, "text/"), mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/javascript", mt == "application/x-javascript", mt == "application/ecmascript",
		mt == "application/x-ndjson", mt == "application/yaml", mt == "application/x-yaml", mt == "application/toml":
		return KindText
	}
	return KindBinary
}

// humanBytes writes n as "512 B", "1.5 KiB", "10 MiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := fmt.Sprintf("%.1f", v)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + string("KMGTPE"[exp]) + "iB"
}

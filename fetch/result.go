package fetch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
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
	Links       []Link    // absolute links, when ExtractOptions.Links
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
	choiceX  []float64    // the chooser's features, when ExtractOptions.reading forced one
}

func newResult(rawURL string, resp *http.Response, body []byte, truncated bool, max int64) *Result {
	r := &Result{
		URL:         rawURL,
		FinalURL:    resp.Request.URL.String(),
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Truncated:   truncated,
		RawBytes:    len(body),
		TotalBytes:  resp.ContentLength,
		RetryAfter:  parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
	if truncated {
		r.Warnings = append(r.Warnings, fmt.Sprintf(
			"the page is larger than %s; only the first %s were read (raise --max-bytes to get more)",
			humanBytes(max), humanBytes(max)))
	}
	return r
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
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// fill decodes and extracts body according to its media type.
func (r *Result) fill(body []byte, contentType string, xo *ExtractOptions) error {
	if len(body) == 0 {
		if r.Status >= 400 {
			return nil // StatusError reports it
		}
		return &Error{Kind: ErrEmptyBody, URL: r.URL, Status: r.Status,
			Msg: fmt.Sprintf("%s answered %d with an empty body", r.FinalURL, r.Status)}
	}
	r.Kind = kindOf(contentType, body)
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

// kindOf maps a Content-Type (or, when it is missing or generic, the
// sniffed bytes) to a Kind.
func kindOf(contentType string, body []byte) Kind {
	mt, _, _ := mime.ParseMediaType(contentType)
	mt = strings.ToLower(mt)
	if mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
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

package mcpclient

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// A network server has no stderr: when its start fails, what explains it
// is the HTTP answer (a 503 with "down for maintenance", a proxy's 502).
// The SDK reports only the status text ("sending \"initialize\": Service
// Unavailable"), so each attempt remembers the last error answer it got,
// and startError adds it.

// maxHTTPErrBody is how much of an error answer's body is kept.
const maxHTTPErrBody = 300

// httpFailure keeps the last error answer of an attempt's HTTP requests.
type httpFailure struct {
	base http.RoundTripper
	a    *attempt
}

// recordHTTP returns c with its error answers recorded on a.
func recordHTTP(a *attempt, c *http.Client) *http.Client {
	out := *c
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	out.Transport = httpFailure{base: rt, a: a}
	return &out
}

func (h httpFailure) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.base.RoundTrip(r)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	head := make([]byte, maxHTTPErrBody+1)
	n, _ := io.ReadFull(resp.Body, head)
	head = head[:n]
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	msg := fmt.Sprintf("HTTP %s from %s %s", resp.Status, r.Method, r.URL.Redacted())
	if body := errBodyText(head); body != "" {
		msg += ": " + body
	}
	h.a.httpFail.Store(&msg)
	return resp, nil
}

// errBodyText is the start of an error body on one line, or "" when it is
// not text.
func errBodyText(b []byte) string {
	cut := len(b) > maxHTTPErrBody
	if cut {
		b = b[:maxHTTPErrBody]
	}
	for !utf8.Valid(b) && len(b) > 0 { // a rune split by the cut
		b = b[:len(b)-1]
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return ""
	}
	s := strings.Join(strings.Fields(string(b)), " ")
	if cut && s != "" {
		s += " …"
	}
	return s
}

// lastHTTPFailure is the last error answer of a's HTTP requests, or "".
func (a *attempt) lastHTTPFailure() string {
	if p := a.httpFail.Load(); p != nil {
		return *p
	}
	return ""
}

package fetch

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/andybalholm/brotli"
)

// readBody reads at most max bytes of the decoded body. truncated reports
// that there was more. The cap applies after decompression so a small
// compressed bomb cannot blow up memory.
func readBody(resp *http.Response, max int64) (body []byte, truncated bool, err error) {
	r, err := decoder(resp.Body, resp.Header.Get("Content-Encoding"))
	if err != nil {
		u := resp.Request.URL.String()
		return nil, false, newError(ErrBody, u, err, "cannot decode the body of %s: %v", u, err)
	}
	buf := make([]byte, 0, initialCap(resp.ContentLength, max))
	w := &capWriter{buf: buf, max: max}
	_, err = io.Copy(w, r)
	if err == errCapReached {
		return w.buf, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return w.buf, false, nil
}

func initialCap(contentLength, max int64) int64 {
	switch {
	case contentLength <= 0:
		return 64 << 10
	case contentLength > max:
		return max
	}
	return contentLength
}

var errCapReached = fmt.Errorf("body cap reached")

// capWriter collects bytes up to max and then fails the copy.
type capWriter struct {
	buf []byte
	max int64
}

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max - int64(len(w.buf))
	if int64(len(p)) > room {
		w.buf = append(w.buf, p[:room]...)
		return int(room), errCapReached
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// decoder undoes a Content-Encoding list ("gzip", "br", "gzip, br").
func decoder(body io.Reader, contentEncoding string) (io.Reader, error) {
	codings := strings.Split(strings.ToLower(contentEncoding), ",")
	r := body
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		switch c := strings.TrimSpace(codings[i]); c {
		case "", "identity":
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(r)
		case "br":
			r = brotli.NewReader(r)
		case "deflate":
			r, err = deflateReader(r)
		default:
			return nil, fmt.Errorf("Content-Encoding %q is not supported (only gzip, deflate and br)", c)
		}
		if err == io.EOF { // an empty compressed body is an empty body
			return strings.NewReader(""), nil
		}
		if err != nil {
			return nil, fmt.Errorf("it is labelled %s but is not: %w", strings.TrimSpace(codings[i]), err)
		}
	}
	return r, nil
}

// deflateReader accepts both zlib-wrapped deflate (what the RFC says) and
// raw deflate (what some servers send).
func deflateReader(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(2)
	if err != nil {
		return nil, err
	}
	// A zlib header has CM=8 in the low nibble and a checksum over both bytes.
	if head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/extract"
)

const articleHTML = `<!doctype html><html lang="en"><head><title>Test Article</title>
<meta name="author" content="Ada Writer"></head><body>
<nav><a href="/home">Home</a> <a href="/about">About</a></nav>
<article><h1>Test Article</h1>
<p>The first paragraph of the article talks about cheese, bread and the long history of both in the valley.</p>
<p>The second paragraph goes on about wine and olives, and how farmers kept them through hard winters. <a href="/more#x">Read more</a>.</p>
<p>A third paragraph closes the article with a note on markets, trade routes and the people who walked them.</p>
</article>
<footer>Copyright footer text</footer></body></html>`

// testServer serves a few fixed routes on 127.0.0.1 for the HTTP cases.
func testServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/article", html(articleHTML))
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		var code int
		fmt.Sscan(r.PathValue("code"), &code)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(code)
		fmt.Fprintf(w, "<html><head><title>Error %d</title></head><body><p>Something went wrong here.</p></body></html>", code)
	})
	mux.HandleFunc("/loop/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop/b", http.StatusFound) })
	mux.HandleFunc("/loop/b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop/a", http.StatusFound) })
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			html(articleHTML)(w, r)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/big", html("<html><body><p>"+strings.Repeat("big page words ", 2000)+"</p></body></html>"))
	mux.HandleFunc("/badutf8", html("<html><head><title>Bad \xff bytes</title></head><body><p>Caf\xe9 au lait \xff\xfe is served here every day of the week, with bread.</p></body></html>"))
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Content-Type", "text/html") })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"b":[1,2],"a":"x"}`)
	})
	mux.HandleFunc("/badjson", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"b":`)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "plain <b>text</b>\n  kept as is\n")
	})
	mux.HandleFunc("/pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(append([]byte("%PDF-1.7\n"), make([]byte, 3000)...))
	})
	mux.HandleFunc("/png-untyped", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // let the client sniff
		w.Write(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...))
	})
	mux.HandleFunc("/shell", html(`<!doctype html><html><head><title>App</title>
<script src="/a.js"></script><script src="/b.js"></script><script type="module" src="/c.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`))
	mux.HandleFunc("/headers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "UA=%s\nAL=%s\nAE=%s\n", r.UserAgent(), r.Header.Get("Accept-Language"), r.Header.Get("Accept-Encoding"))
	})
	mux.HandleFunc("/enc/{coding}", func(w http.ResponseWriter, r *http.Request) {
		coding := r.PathValue("coding")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Encoding", strings.TrimSuffix(coding, "-raw"))
		w.Write(compress(t, coding, []byte(articleHTML)))
	})
	mux.HandleFunc("/cut", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", "5000")
		fmt.Fprint(w, "<html><body><p>only the start") // then the handler ends: the server drops the connection
	})
	mux.HandleFunc("/fake-gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		fmt.Fprint(w, articleHTML)
	})
	mux.HandleFunc("/zstd", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "zstd")
		fmt.Fprint(w, "(\xb5/\xfd")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func compress(t *testing.T, coding string, b []byte) []byte {
	var buf bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "deflate-raw":
		w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
	case "br":
		w = brotli.NewWriter(&buf)
	default:
		t.Fatalf("unknown coding %q", coding)
	}
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// closedPort returns a 127.0.0.1 address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// fetchOnce gets rawURL with a one-off Client.
func fetchOnce(ctx context.Context, rawURL string, opts *Options) (*extract.Result, error) {
	c := NewClient(opts)
	defer c.Close()
	return c.Fetch(ctx, rawURL)
}

// TestFetchBadInput covers every failure a person can hit: each must be an
// *extract.Error (the one error type of a page, also for the extractor's
// failures) of the right kind whose message is one sentence naming the
// cause, retryable only when the server failed or the body was cut.
func TestFetchBadInput(t *testing.T) {
	srv := testServer(t)
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the rejected handshake is expected
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	plainHost := strings.TrimPrefix(srv.URL, "http://")
	dead := closedPort(t)

	tests := []struct {
		name    string
		url     string
		opts    *Options
		wantErr error
		wantMsg string // substring of the one-sentence message
		status  int
	}{
		{"connection refused", "http://" + dead + "/", nil, ErrUnreachable, "cannot connect to " + dead + ": connection refused", 0},
		{"untrusted certificate", tlsSrv.URL + "/", nil, ErrTLS, "TLS certificate of " + strings.TrimPrefix(tlsSrv.URL, "https://") + " is not trusted: certificate signed by unknown authority", 0},
		{"https to a plain server", "https://" + plainHost + "/article", nil, ErrTLS, "the server does not speak TLS", 0},
		{"404", srv.URL + "/status/404", nil, ErrHTTPStatus, "answered 404 Not Found", 404},
		{"500", srv.URL + "/status/500", nil, ErrHTTPStatus, "answered 500 Internal Server Error", 500},
		{"redirect loop", srv.URL + "/loop/a", nil, ErrRedirectLoop, "redirect loop: " + srv.URL + "/loop/a -> " + srv.URL + "/loop/b -> " + srv.URL + "/loop/a", 0},
		{"eleven redirects", srv.URL + "/hop/11", nil, ErrTooManyRedirects, "more than 10 redirects", 0},
		{"redirect cap lowered", srv.URL + "/hop/3", &Options{MaxRedirects: 2}, ErrTooManyRedirects, "more than 2 redirects", 0},
		{"body cut short by the server", srv.URL + "/cut", nil, ErrBody, "reading the body of " + srv.URL + "/cut failed: unexpected EOF", 0},
		{"body not really gzip", srv.URL + "/fake-gzip", nil, ErrBody, "cannot decode the body of " + srv.URL + "/fake-gzip: it is labelled gzip but is not: gzip: invalid header", 0},
		{"unsupported encoding", srv.URL + "/zstd", nil, ErrBody, `Content-Encoding "zstd" is not supported (only gzip, deflate and br)`, 0},
		{"empty body", srv.URL + "/empty", nil, extract.ErrEmptyBody, "answered 200 with an empty body", 0},
		{"timeout", srv.URL + "/slow", &Options{Timeout: 200 * time.Millisecond}, ErrTimeout, "timed out fetching " + srv.URL + "/slow (limit 200ms)", 0},
		{"no scheme", "example.com/page", nil, ErrBadURL, `malformed URL "example.com/page": no scheme; write it as https://example.com/page`, 0},
		{"host:port without scheme", "localhost:8080/x", nil, ErrBadURL, `malformed URL "localhost:8080/x": no scheme; write it as http://localhost:8080/x (or https://)`, 0},
		{"IP:port without scheme", "127.0.0.1:8080/x", nil, ErrBadURL, `malformed URL "127.0.0.1:8080/x": no scheme; write it as http://127.0.0.1:8080/x (or https://)`, 0},
		{"ftp scheme", "ftp://example.com/", nil, ErrBadURL, `scheme "ftp" is not supported`, 0},
		{"no host", "http:///path", nil, ErrBadURL, "no host name", 0},
		{"bad escape", "http://exa%zzmple.com/", nil, ErrBadURL, `malformed URL "http://exa%zzmple.com/": invalid URL escape "%zz"`, 0},
		{"empty url", "  ", nil, ErrBadURL, "it is empty", 0},
		{"space in host", "http://exa mple.com/", nil, ErrBadURL, "it contains white space", 0},
		{"relative path", "/just/a/path", nil, ErrBadURL, "it is not an absolute URL", 0},
		{"control character", "http://example.com/\x7f", nil, ErrBadURL, "invalid control character in URL", 0},
		{"bad selector", srv.URL + "/article", &Options{Extract: extract.Options{Select: "p[["}}, extract.ErrBadSelector, `invalid CSS selector "p[["`, 0},
		{"selector matches nothing", srv.URL + "/article", &Options{Extract: extract.Options{Select: "table.none"}}, extract.ErrNoMatch, `matches the selector "table.none"`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := fetchOnce(context.Background(), tc.url, tc.opts)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Fetch(%q) error = %v, want kind %v", tc.url, err, tc.wantErr)
			}
			var fe *extract.Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not *extract.Error", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.wantMsg) || strings.Contains(msg, "\n") {
				t.Errorf("message = %q, want one line containing %q", msg, tc.wantMsg)
			}
			if want := tc.wantErr == ErrBody || tc.status >= 500; fe.Retryable() != want {
				t.Errorf("Retryable() = %v, want %v", fe.Retryable(), want)
			}
			if tc.status != 0 {
				if res == nil || res.Status != tc.status || fe.Status != tc.status {
					t.Errorf("status: result %+v, error status %d, want %d", res, fe.Status, tc.status)
				}
			}
		})
	}
}

// TestFetchResults covers the cases that succeed, some with a warning.
func TestFetchResults(t *testing.T) {
	srv := testServer(t)
	type summary struct {
		Kind      extract.Kind
		Title     string
		Truncated bool
		JSShell   bool
		Warnings  int
		Contains  bool
		ValidUTF8 bool
	}
	tests := []struct {
		name     string
		path     string
		opts     *Options
		contains string // in the markdown
		want     summary
	}{
		{"article", "/article", nil, "The second paragraph goes on about wine",
			summary{Kind: extract.KindHTML, Title: "Test Article", Contains: true, ValidUTF8: true}},
		{"ten redirects are fine", "/hop/10", nil, "The first paragraph",
			summary{Kind: extract.KindHTML, Title: "Test Article", Contains: true, ValidUTF8: true}},
		{"gzip", "/enc/gzip", nil, "cheese, bread", summary{Kind: extract.KindHTML, Title: "Test Article", Contains: true, ValidUTF8: true}},
		{"deflate zlib", "/enc/deflate", nil, "cheese, bread", summary{Kind: extract.KindHTML, Title: "Test Article", Contains: true, ValidUTF8: true}},
		{"deflate raw", "/enc/deflate-raw", nil, "cheese, bread", summary{Kind: extract.KindHTML, Title: "Test Article", Contains: true, ValidUTF8: true}},
		{"brotli", "/enc/br", nil, "cheese, bread", summary{Kind: extract.KindHTML, Title: "Test Article", Contains: true, ValidUTF8: true}},
		{"larger than the cap", "/big", &Options{MaxBytes: 1000}, "big page words",
			summary{Kind: extract.KindHTML, Truncated: true, Warnings: 1, Contains: true, ValidUTF8: true}},
		{"invalid UTF-8", "/badutf8", nil, "au lait",
			summary{Kind: extract.KindHTML, Title: "Bad \uFFFD bytes", Warnings: 1, Contains: true, ValidUTF8: true}},
		{"json pretty-printed", "/json", nil, "{\n  \"b\": [\n    1,\n    2\n  ],\n  \"a\": \"x\"\n}",
			summary{Kind: extract.KindJSON, Contains: true, ValidUTF8: true}},
		{"broken json shown as text", "/badjson", nil, `{"b":`,
			summary{Kind: extract.KindText, Warnings: 1, Contains: true, ValidUTF8: true}},
		{"text passed through", "/text", nil, "plain <b>text</b>\n  kept as is\n",
			summary{Kind: extract.KindText, Contains: true, ValidUTF8: true}},
		{"pdf", "/pdf", nil, "binary content (application/pdf, 2.9 KiB)",
			summary{Kind: extract.KindBinary, Contains: true, ValidUTF8: true}},
		{"png without a type", "/png-untyped", nil, "binary content (unknown type, 108 B)",
			summary{Kind: extract.KindBinary, Contains: true, ValidUTF8: true}},
		{"javascript shell", "/shell", nil, "",
			summary{Kind: extract.KindHTML, Title: "App", JSShell: true, Contains: true, ValidUTF8: true}},
		{"settable accept-language", "/headers", &Options{AcceptLanguage: "de-CH,de;q=0.8"}, "AL=de-CH,de;q=0.8\nAE=gzip, deflate, br",
			summary{Kind: extract.KindText, Contains: true, ValidUTF8: true}},
		{"browser user-agent", "/headers", nil, "UA=" + DefaultUserAgent,
			summary{Kind: extract.KindText, Contains: true, ValidUTF8: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := fetchOnce(context.Background(), srv.URL+tc.path, tc.opts)
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			md := res.Markdown()
			got := summary{
				Kind: res.Kind, Title: res.Title, Truncated: res.Truncated, JSShell: res.JSShell,
				Warnings: len(res.Warnings), Contains: strings.Contains(md, tc.contains), ValidUTF8: utf8.ValidString(md),
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Fetch(%s) (-want +got):\n%s\nmarkdown:\n%s\nwarnings: %q", tc.path, diff, md, res.Warnings)
			}
		})
	}
}

// TestClassify covers transport failures that cannot be staged on 127.0.0.1
// (DNS) or are awkward to time (cancellation).
func TestClassify(t *testing.T) {
	c := NewClient(&Options{Timeout: 5 * time.Second})
	u, _ := ParseURL("https://nope.invalid/x")
	wrap := func(err error) error { return &url.Error{Op: "Get", URL: u.String(), Err: err} }
	tests := []struct {
		name    string
		err     error
		wantErr error
		wantMsg string
	}{
		{"no such host", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nope.invalid", IsNotFound: true}}),
			ErrUnreachable, `cannot resolve host "nope.invalid": no such host`},
		{"deadline", wrap(context.DeadlineExceeded), ErrTimeout, "timed out fetching https://nope.invalid/x (limit 5s)"},
		{"cancelled", wrap(context.Canceled), ErrTimeout, "fetching https://nope.invalid/x was cancelled"},
		{"tls alert", wrap(tls.AlertError(40)), ErrTLS, "TLS handshake with nope.invalid failed: handshake failure"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := c.classify(tc.err, u, 5*time.Second)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("kind: got %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantMsg, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

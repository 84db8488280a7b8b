package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

const parityArticle = `<!doctype html><html lang="en"><head><title>Valley Notes</title>
<meta name="author" content="Ada Lovelace"><meta property="article:published_time" content="2024-05-06T07:08:09Z">
</head><body><nav><a href="/">Home</a></nav>
<article><h1>Valley Notes</h1><p class="byline">By Ada Lovelace</p>
<p>The first paragraph of the article talks about cheese, bread and the long history of both in the valley.</p>
<p>The second paragraph goes on about wine and olives, and how farmers kept them through hard winters.</p>
<ul class="prices"><li>Cheese 4.50</li><li>Bread 2.10</li></ul>
<p>A third paragraph closes the article with a note on markets, trade routes and the people who walked them.</p>
</article></body></html>`

// a 1×1 PNG
const parityPNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\xa5\xf6E@\x00\x00\x00\x00IEND\xaeB`\x82"

// a one-page PDF, padded so that its size is not the viewer's
var parityPDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj " +
	"3 0 obj<</Type/Page/MediaBox[0 0 200 200]/Parent 2 0 R>>endobj\n%" + strings.Repeat("x", 4000) + "\ntrailer<</Root 1 0 R>>\n%%EOF\n"

func parityServer(t *testing.T) *httptest.Server {
	t.Helper()
	page := func(ct, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			io.WriteString(w, body)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/article", page("text/html; charset=utf-8", parityArticle))
	mux.HandleFunc("/big", page("text/html; charset=utf-8", "<html><head><title>Big</title></head><body><article><h1>Big</h1>"+
		strings.Repeat("<p>Lots of words in a paragraph of the big page, repeated many times over.</p>\n", 800)+"</article></body></html>"))
	mux.HandleFunc("/data.json", page("application/json", `{"a":1,"b":[1,2]}`))
	mux.HandleFunc("/notes.txt", page("text/plain; charset=utf-8", "line one\nline two\n"))
	mux.HandleFunc("/pic.png", page("image/png", parityPNG))
	mux.HandleFunc("/doc.pdf", page("application/pdf", parityPDF))
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html><head><title>Not here</title></head><body><h1>Not here</h1><p>There is no page at this address, sorry.</p></body></html>")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// parityView is what must be the same whether a page was fetched or
// rendered.
type parityView struct {
	Status                            int
	ContentType, Kind                 string // the Content-Type as sent, charset and all
	Title, Byline, Excerpt, Published string
	Truncated, HasBytes, BytesMatch   bool
	Content                           string // for html, json and text
	Binary                            bool   // a hint and no text
	BinaryBytes                       int    // raw_bytes of a binary page: the response's size
	Error                             string
}

func parityViews(t *testing.T, stdout string) []parityView {
	t.Helper()
	var views []parityView
	dec := json.NewDecoder(strings.NewReader(stdout))
	for dec.More() {
		var j struct {
			Status                                                        int
			ContentType                                                   string `json:"content_type"`
			Kind, Title, Byline, Excerpt, Published, Content, Hint, Error string
			Truncated                                                     bool
			RawBytes                                                      int `json:"raw_bytes"`
			ContentBytes                                                  int `json:"content_bytes"`
		}
		if err := dec.Decode(&j); err != nil {
			t.Fatalf("output is not JSON records: %v\n%s", err, stdout)
		}
		mt, _, _ := mime.ParseMediaType(j.ContentType)
		v := parityView{Status: j.Status, ContentType: j.ContentType, Kind: j.Kind, Title: j.Title, Byline: j.Byline, Excerpt: j.Excerpt,
			Published: j.Published, Truncated: j.Truncated, HasBytes: j.RawBytes > 0, BytesMatch: j.ContentBytes == len(j.Content), Error: j.Error}
		if j.Kind == "binary" {
			v.Binary = j.Hint != "" && strings.HasPrefix(j.Content, "This is binary content ("+mt)
			v.BinaryBytes = j.RawBytes
		} else {
			v.Content = j.Content
		}
		views = append(views, v)
	}
	return views
}

// TestRenderParity: `fetch --render` answers like plain `fetch` on the
// same local pages: the same JSON fields and values (status, content type,
// kind, metadata, byte counts, truncation), non-HTML answered by kind,
// --max-bytes and --select honoured, -f text the body only (no title line), and a
// malformed URL or an unsupported scheme refused in the same words. The
// cases are the binary, run in parallel, each with its own browser.
func TestRenderParity(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	e := newBinEnv(t)
	tmp := e.tmp
	t.Cleanup(func() { testutil.WaitNoProcessWith(t, filepath.Clean(tmp)) }) // after every case
	srv := parityServer(t)
	u := func(p string) string { return srv.URL + p }
	tests := []struct {
		name string
		args []string
	}{
		{"every kind as json", []string{"-f", "json", u("/article"), u("/data.json"), u("/notes.txt"), u("/pic.png"), u("/doc.pdf")}},
		{"cut at max-bytes", []string{"-f", "json", "--max-bytes", "20k", u("/big")}},
		{"select keeps the metadata", []string{"-f", "json", "--select", "ul.prices", u("/article")}},
		{"text is the body only", []string{"-f", "text", u("/article")}},
		{"404", []string{u("/missing")}},
		{"unsupported scheme", []string{"ftp://127.0.0.1/x"}},
		{"malformed URL", []string{"http//127.0.0.1/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pcode, pout, perr := e.run(t, "", append([]string{"fetch"}, tc.args...)...)
			rcode, rout, rerr := e.run(t, "", append([]string{"fetch", "--render"}, tc.args...)...)
			type run struct {
				Code   int
				Views  []parityView
				Text   string
				Stderr string
			}
			view := func(code int, out, errOut string) run {
				r := run{Code: code, Stderr: errOut}
				if strings.Contains(strings.Join(tc.args, " "), "-f json") {
					r.Views = parityViews(t, out)
				} else {
					r.Text = out
				}
				return r
			}
			plain, rendered := view(pcode, pout, perr), view(rcode, rout, rerr)
			if diff := cmp.Diff(plain, rendered); diff != "" {
				t.Errorf("fetch %q vs fetch --render (-plain +render):\n%s", tc.args, diff)
			}
			switch tc.name {
			case "every kind as json":
				kinds := []string{}
				for _, v := range plain.Views {
					kinds = append(kinds, v.Kind)
				}
				if diff := cmp.Diff([]string{"html", "json", "text", "binary", "binary"}, kinds); diff != "" {
					t.Errorf("kinds (-want +got):\n%s", diff)
				}
				if a := plain.Views[0]; a.Byline != "Ada Lovelace" || !strings.HasPrefix(a.Excerpt, "The first paragraph") || a.Published != "2024-05-06T07:08:09Z" {
					t.Errorf("article metadata: byline %q, excerpt %q, published %q", a.Byline, a.Excerpt, a.Published)
				}
			case "cut at max-bytes":
				if plain.Code != 3 || !plain.Views[0].Truncated {
					t.Errorf("--max-bytes 20k: exit %d, truncated %v", plain.Code, plain.Views[0].Truncated)
				}
			case "select keeps the metadata":
				if a := plain.Views[0]; a.Title != "Valley Notes" || a.Byline != "Ada Lovelace" || a.Published == "" {
					t.Errorf("--select dropped metadata: %+v", a)
				}
			case "text is the body only":
				if !strings.HasPrefix(plain.Text, "The first paragraph") {
					t.Errorf("-f text does not start with the article's first paragraph:\n%s", plain.Text)
				}
			case "unsupported scheme", "malformed URL":
				if plain.Code != 2 {
					t.Errorf("exit %d, want 2: %s", plain.Code, plain.Stderr)
				}
			}
		})
	}
}

// TestJSShellNoteSaysRender: the note on a JavaScript app shell tells the
// person the flag that reads it, and --render does. It runs the binary,
// beside the other parallel tests.
func TestJSShellNoteSaysRender(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	e := newBinEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>App</title><script>document.addEventListener('DOMContentLoaded', () => {
document.getElementById('root').innerHTML = '<article><h1>Drawn</h1><p>This text was drawn by the script of the app after it loaded.</p></article>'})</script></head><body><div id="root"></div></body></html>`)
	}))
	defer srv.Close()
	_, _, stderr := e.run(t, "", "fetch", srv.URL)
	if !strings.Contains(stderr, "note: This page looks like a JavaScript app shell") || !strings.HasSuffix(stderr, "Add --render to read it in the browser.\n") {
		t.Errorf("plain fetch's note does not say --render: %q", stderr)
	}
	code, out, stderr := e.run(t, "", "fetch", "--render", srv.URL)
	if code != 0 || !strings.Contains(out, "drawn by the script of the app") || stderr != "" {
		t.Errorf("--render: exit %d, stderr %q, stdout:\n%s", code, stderr, out)
	}
}

// TestRenderBatchRetryAfter: a --render batch honours a 429's or 503's
// Retry-After, in seconds or as an HTTP date, as a plain batch does: the
// retry waited only the 0.5 s backoff, the browser's response headers
// unread.
func TestRenderBatchRetryAfter(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	tests := []struct {
		name       string
		status     int
		retryAfter func() string
	}{
		{"429, seconds", 429, func() string { return "6" }},
		{"503, HTTP date", 503, func() string { return time.Now().Add(7 * time.Second).UTC().Format(http.TimeFormat) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var hits []time.Time
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/page" {
					http.NotFound(w, r)
					return
				}
				mu.Lock()
				hits = append(hits, time.Now())
				first := len(hits) == 1
				mu.Unlock()
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				if first {
					w.Header().Set("Retry-After", tc.retryAfter())
					w.WriteHeader(tc.status)
					fmt.Fprint(w, "<html><head><title>Busy</title></head><body><p>Too busy, come back later.</p></body></html>")
					return
				}
				fmt.Fprint(w, parityArticle)
			}))
			defer srv.Close()
			e := newBinEnv(t)
			out := filepath.Join(e.dir, "out.jsonl")
			code, _, stderr := e.run(t, srv.URL+"/page\n", "fetch", "--render", "-i", "-", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got []string
			for _, l := range readBatchOut(t, out) {
				got = append(got, fmt.Sprintf("%d %q %q", l.Status, l.Title, l.Error))
			}
			if diff := cmp.Diff([]string{`200 "Valley Notes" ""`}, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(hits) != 2 {
				t.Fatalf("%d requests, want 2", len(hits))
			}
			// The server asked for 6 s (the date, 6 to 7 s, to the second).
			if gap := hits[1].Sub(hits[0]); gap < 5500*time.Millisecond {
				t.Errorf("retried %s after the %d, which asked for 6 s or more", gap.Round(time.Millisecond), tc.status)
			}
		})
	}
}

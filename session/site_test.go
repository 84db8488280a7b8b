package session

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// testSite is the one web site of session's tests: an ordinary shop on
// 127.0.0.1 and "the bank" on localhost — the same server under another
// name, so another site and another renderer process — whose /bank paths
// bankRules names. It serves:
//
//   - /bank/pay, the bank's payment form: a "Pay 500" button that pays
//     (/bank/paid) and then says "Paid";
//   - /news, an ordinary page;
//   - any other path no test gave a page of its own: "Page PATH" with a
//     heading and a "Press me" button.
//
// A test adds the pages it is about (page, handle) and reads how often a
// path was asked for (hits: what the bank was paid).
type testSite struct {
	URL  string // the shop's origin: http://127.0.0.1:PORT
	Bank string // the bank's: http://localhost:PORT
	srv  *httptest.Server
	mux  *http.ServeMux

	mu   sync.Mutex
	seen map[string]int
}

// newTestSite starts the site; a cleanup stops it.
func newTestSite(t *testing.T) *testSite {
	t.Helper()
	s := &testSite{mux: http.NewServeMux(), seen: map[string]int{}}
	s.page("/bank/pay", `<title>Bank</title><body style="margin:0"><button style="width:300px;height:200px" onclick="fetch('/bank/paid').then(()=>this.textContent='Paid')">Pay 500</button>`)
	s.handle("/bank/paid", func(http.ResponseWriter, *http.Request) {})
	s.page("/news", `<title>News</title><h1>News</h1><p>Today's news.</p>`)
	s.handle("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><h1>Heading of %s</h1><button onclick="document.title='clicked'">Press me</button></body></html>`, r.URL.Path, r.URL.Path)
	})
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen[r.URL.Path]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		s.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	s.Bank = strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	return s
}

// page serves html at path; {bank} in it stands for the bank's origin.
func (s *testSite) page(path, html string) {
	s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, strings.ReplaceAll(html, "{bank}", s.Bank))
	})
}

// handle serves path with h.
func (s *testSite) handle(path string, h http.HandlerFunc) { s.mux.HandleFunc(path, h) }

// hits is how often path was asked for so far.
func (s *testSite) hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[path]
}

// serveSite is the site's server, for the tests that need only its
// generic pages.
func serveSite(t *testing.T) *httptest.Server { return newTestSite(t).srv }

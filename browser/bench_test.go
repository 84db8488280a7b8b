package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// BenchmarkSnapshot2000 is browser_snapshot of a page with 2000 interactive
// elements (1000 links, 1000 fields). Target: under 100 ms a snapshot.
func BenchmarkSnapshot2000(b *testing.B) {
	if _, err := FindChrome(); err != nil {
		b.Skipf("skipping: %v", err)
	}
	site := newSite(b)
	br := New(nil)
	defer br.Close()
	mustCall(b, br, "browser_open", map[string]any{"url": site.URL + "/big?n=2000"})
	r := mustCall(b, br, "browser_snapshot", nil)
	if !contains(r.Text, "ref=e2000") && !contains(r.Text, "from_line=") {
		b.Fatalf("snapshot lacks 2000 refs:\n%.500s", r.Text)
	}
	b.ResetTimer()
	for b.Loop() {
		if r, err := br.run(context.Background(), "browser_snapshot", "", nil); err != nil || r.IsError {
			b.Fatal(err, r)
		}
	}
}

// BenchmarkFreshBrowser is what a test pays for a browser of its own, up to
// its first page: launching a Chromium (Launch) against a fresh browser
// context in the package's shared one (Context), the way newOwnBrowser and
// newTestBrowser give it. Compare the two in the same run:
//
//	go test ./browser -run '^$' -bench FreshBrowser -benchtime 5x
func BenchmarkFreshBrowser(b *testing.B) {
	site := newSite(b)
	for _, bc := range []struct {
		name string
		opts func() *Options
	}{
		{"Launch", func() *Options { return nil }},
		{"Context", func() *Options { return &Options{Launch: LaunchOptions{Host: shared.Endpoint(b)}} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			testutil.Require(b, "chromium", FindChrome)
			opts := bc.opts() // the shared Chromium starts before the clock
			for b.Loop() {
				br := New(opts)
				mustCall(b, br, "browser_open", map[string]any{"url": site.URL + "/article.html"})
				if err := br.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadThroughDialGuard loads a page of 40 subresources in the
// isolated browser, directly and with every connection going through the
// dial-guard proxy (LaunchOptions.DialControl), in one run: what the
// guard's check at the resolved address costs a page load.
func BenchmarkLoadThroughDialGuard(b *testing.B) {
	if _, err := FindChrome(); err != nil {
		b.Skipf("skipping: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Many</title>")
		for i := range 40 {
			fmt.Fprintf(w, `<img src="/px/%d?v=%s">`, i, r.URL.RawQuery)
		}
	})
	mux.HandleFunc("/px/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "image/gif")
		w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	allow := func(context.Context, string, string, syscall.RawConn) error { return nil }
	for _, bc := range []struct {
		name    string
		control DialControl
	}{{"direct", nil}, {"dial-guarded", allow}} {
		b.Run(bc.name, func(b *testing.B) {
			br := New(&Options{Launch: LaunchOptions{DialControl: bc.control}})
			defer br.Close()
			mustCall(b, br, "browser_open", map[string]any{"url": srv.URL + "/page?v=0"})
			n := 0
			for b.Loop() {
				n++
				mustCall(b, br, "browser_navigate", map[string]any{"url": fmt.Sprintf("%s/page?v=%d", srv.URL, n)})
			}
		})
	}
}

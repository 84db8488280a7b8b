package browser

import (
	"context"
	"testing"
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
		if r, err := br.Call(context.Background(), "browser_snapshot", nil); err != nil || r.IsError {
			b.Fatal(err, r)
		}
	}
}

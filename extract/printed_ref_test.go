package extract

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPrintedReference writes what `fetch` prints (-f markdown, -f text,
// -f json) for every page of the three
// shared sets into $PRINTED_REF/<set>/<page>.{md,txt,json}: a speed change
// must leave every byte as it was (diff -r against the same dump from main).
// Skipped without the variable.
func TestPrintedReference(t *testing.T) {
	out := os.Getenv("PRINTED_REF")
	if out == "" {
		t.Skip("set PRINTED_REF=DIR to write every page's printed output")
	}
	type page struct {
		set, name, url string
		body           []byte
	}
	var pages []page
	for _, p := range loadReadabilityPages(t) {
		pages = append(pages, page{"readability", p.name, "http://127.0.0.1/" + p.name + "/", p.source})
	}
	dir, evals := loadEvalPages(t)
	for _, p := range evals {
		b, err := gunzipFile(filepath.Join(dir, "html", p.File+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page{"trafilatura-eval", p.File, "http://127.0.0.1/" + p.File, b})
	}
	for _, p := range loadWCXB(t) {
		pages = append(pages, page{"wcxb-dev", p.id, p.url, p.html})
	}
	for _, p := range pages {
		d := filepath.Join(out, p.set)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		res := func() *Result {
			r, err := served(p.body, p.url)
			if err != nil {
				r = &Result{URL: p.url, Error: err.Error()}
			}
			return r
		}
		// Text first, then markdown: each must be what it is when
		// rendered alone (-f text, -f markdown).
		r := res()
		txt, _ := r.Render(FormatText)
		md, _ := r.Render(FormatMarkdown)
		js, _ := res().Render(FormatJSON)
		for ext, b := range map[string][]byte{".md": md, ".txt": txt, ".json": js} {
			if err := os.WriteFile(filepath.Join(d, p.name+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

package extract

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readabilityDir finds the shared extraction test pages: they live in
// shared/ beside the repository (<module root>/../shared/testdata/readability),
// both here and in CI's fresh clone.
func readabilityDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "..", "shared", "testdata", "readability")
			if _, err := os.Stat(p); err != nil {
				t.Skipf("extraction test pages not found at %s (shared/ must sit beside the repository): %v", p, err)
			}
			return p
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

// readabilityPage is one test page: its source and what Mozilla Readability
// extracts from it.
type readabilityPage struct {
	name          string
	source        []byte
	expectedHTML  []byte
	expectedTitle string
}

func loadReadabilityPages(t testing.TB) []readabilityPage {
	t.Helper()
	dir := readabilityDir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pages []readabilityPage
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := readabilityPage{name: e.Name()}
		read := func(f string) []byte {
			b, err := os.ReadFile(filepath.Join(dir, e.Name(), f))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		p.source = read("source.html")
		p.expectedHTML = read("expected.html")
		var meta struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal(read("expected-metadata.json"), &meta); err != nil {
			t.Fatalf("%s: expected-metadata.json: %v", e.Name(), err)
		}
		p.expectedTitle = meta.Title
		pages = append(pages, p)
	}
	if len(pages) == 0 {
		t.Fatalf("no pages in %s", dir)
	}
	return pages
}

// printedText is what `fetch -f text` prints for res: the command asks
// web_fetch for text and prints Render(FormatText). Quality tests score
// these bytes, not an in-process view of the content, so a rendering bug
// the person sees costs points. (The text is the same whether or not the
// markdown was rendered first: TestPrintedReference's dump shows it.)
func printedText(res *Result) string {
	out, _ := res.Render(FormatText)
	return string(out)
}

// served is the Result fetch.Client.Fetch makes of page when a server sends
// it from rawURL as text/html without a charset (so charset sniffing is
// exercised too), read as the client reads a body: cut at DefaultMaxBytes.
func served(page []byte, rawURL string) (*Result, error) {
	cut := len(page) > DefaultMaxBytes
	if cut {
		page = page[:DefaultMaxBytes]
	}
	return FromResponse(&Response{URL: rawURL, FinalURL: rawURL, Status: 200, ContentType: "text/html",
		ContentLength: -1, Body: page, Truncated: cut, MaxBytes: DefaultMaxBytes}, nil)
}

// hostOf is the lower-cased host of a URL.
func hostOf(t testing.TB, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ToLower(u.Host)
}

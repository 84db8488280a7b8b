package extract

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const selectPage = `<html><head><title>Shop</title><base href="https://shop.test/catalog/"></head><body>
<nav><a href="/">Home</a><a href="javascript:void(0)">Menu</a><a href="#top">Top</a><a href="mailto:x@y.z">Mail</a></nav>
<ul class="items">
<li class="item"><a href="apple">Apple</a> <img src="img/apple.png" alt="apple"> 1.20</li>
<li class="item"><a href="pear?x=1#frag">Pear</a> 0.90</li>
</ul>
<p>Footer <a href="https://other.test/about" title="About us"></a></p></body></html>`

func TestExtractSelect(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		format Format
		want   string
	}{
		{"text", Options{Select: "li.item"}, FormatText, "Apple 1.20\n\nPear 0.90\n"},
		{"markdown", Options{Select: "li.item a"}, FormatMarkdown,
			"[Apple](https://shop.test/catalog/apple)\n\n[Pear](https://shop.test/catalog/pear?x=1#frag)\n"},
		{"outer html with absolute urls", Options{Select: "li.item:first-child"}, FormatHTML,
			`<li class="item"><a href="https://shop.test/catalog/apple">Apple</a> <img src="https://shop.test/catalog/img/apple.png" alt="apple"/> 1.20</li>` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(selectPage), "https://shop.test/page", &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := res.Render(tc.format)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractLinks(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want []Link
	}{
		{"whole page", Options{Links: true}, []Link{
			{URL: "https://shop.test/", Text: "Home"},
			{URL: "https://shop.test/catalog/apple", Text: "Apple"},
			{URL: "https://shop.test/catalog/pear?x=1", Text: "Pear"},
			{URL: "https://other.test/about", Text: "About us"},
		}},
		{"inside the selection", Options{Links: true, Select: "ul"}, []Link{
			{URL: "https://shop.test/catalog/apple", Text: "Apple"},
			{URL: "https://shop.test/catalog/pear?x=1", Text: "Pear"},
		}},
		{"a selected link itself", Options{Links: true, Select: "nav a"}, []Link{
			{URL: "https://shop.test/", Text: "Home"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(selectPage), "https://shop.test/page", &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res.Links); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetectJSShell(t *testing.T) {
	para := "<p>" + strings.Repeat("Plenty of server rendered article text here. ", 40) + "</p>"
	tests := []struct {
		name string
		page string
		want bool
	}{
		{"empty react root", `<html><head><script src="/x.js"></script></head><body><div id="root"></div></body></html>`, true},
		{"next.js without ssr", `<html><body><div id="__next"></div><script src="/1.js"></script><script src="/2.js"></script><script id="__NEXT_DATA__" type="application/json">{}</script></body></html>`, true},
		{"angular app-root", `<html><body><app-root>Loading...</app-root><script src="main.js"></script></body></html>`, true},
		{"scripts and no text", `<html><body><script>a()</script><script>b()</script><script>c()</script><p>Hi</p></body></html>`, true},
		{"noscript asks for javascript", `<html><body><noscript>Please enable JavaScript.</noscript></body></html>`, true},
		{"server-rendered next.js", `<html><body><div id="__next">` + para + `</div><script src="/1.js"></script></body></html>`, false},
		{"plain article", `<html><body><article>` + para + `</article></body></html>`, false},
		{"short static page", `<html><body><p>Short page without scripts.</p></body></html>`, false},
		{"json-ld only", `<html><body><script type="application/ld+json">{}</script><script type="application/ld+json">{}</script><script type="application/ld+json">{}</script><p>Tiny.</p></body></html>`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(tc.page), "http://127.0.0.1/", nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.JSShell != tc.want || (res.Hint != "") != tc.want {
				t.Errorf("JSShell = %v (hint %q), want %v", res.JSShell, res.Hint, tc.want)
			}
		})
	}
}

func TestRenderJSON(t *testing.T) {
	page := `<html lang="fr"><head><title>Le titre</title>
<meta property="article:published_time" content="2024-03-05T10:20:30Z">
<meta name="author" content="Jeanne Auteur"></head>
<body><article><h1>Le titre</h1><p>` + strings.Repeat("Un paragraphe assez long pour être retenu comme article. ", 12) + `</p></article></body></html>`
	res, err := Extract([]byte(page), "https://news.test/a", &Options{Links: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := res.Render(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	content, _ := got["content"].(string)
	if !strings.HasPrefix(content, "# Le titre\n\nUn paragraphe") {
		t.Errorf("content = %q, want the markdown article", content)
	}
	delete(got, "content")
	want := map[string]any{
		"url": "https://news.test/a", "final_url": "https://news.test/a", "kind": "html", "charset": "utf-8",
		"title": "Le titre", "byline": "Jeanne Auteur", "lang": "fr", "published": "2024-03-05T10:20:30Z", "page_type": "article",
		"format": "markdown", "links": []any{}, "js_shell": false, "truncated": false,
		"raw_bytes": float64(len(page)), "content_bytes": float64(len(content)),
		"excerpt": strings.TrimSpace(strings.Repeat("Un paragraphe assez long pour être retenu comme article. ", 12)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	if !res.Published.Equal(time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)) {
		t.Errorf("Published = %v", res.Published)
	}
}

func TestExtractRepairsUTF8(t *testing.T) {
	res, err := Extract([]byte("<p>ok \xff\xfe bytes</p>"), "http://127.0.0.1/", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2 bytes of invalid UTF-8 replaced with U+FFFD"}
	if diff := cmp.Diff(want, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if got := res.Text(); got != "ok \uFFFD bytes" {
		t.Errorf("Text() = %q", got)
	}
}

func TestTextKeepsBareMath(t *testing.T) {
	page := `<p>Let <math><mi>a</mi><mo>≠</mo><mn>0</mn></math> and ` +
		`<math><semantics><mi>b</mi><annotation encoding="application/x-tex">b^2</annotation></semantics></math>.</p>`
	res, err := Extract([]byte(page), "http://127.0.0.1/", &Options{Select: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("Let a≠0 and $b^2$.", res.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
	if html := res.html(); !strings.Contains(html, "<math><mi>a</mi>") {
		t.Errorf("HTML after Text lost the <math> element: %s", html)
	}
}

// hangLimit is far above any real extraction time (milliseconds, even under
// -race on a loaded machine); past it FuzzExtract reports a hang. It is a
// deadlock detector, not a speed check.
const hangLimit = 20 * time.Second

// FuzzExtract feeds arbitrary bytes to Extract and every renderer: no
// panic, no hang, always valid UTF-8 out.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("<nav><a href=/>Home</a></nav><article><h1>T</h1><p>"+strings.Repeat("Words of an article. ", 20)+"</p></article>"), "")
	f.Add([]byte(selectPage), "li a")
	f.Add([]byte("<table><tr><td><math><mi>x</mi></math><svg><p>"), "td")
	f.Add([]byte(strings.Repeat("<div>", 600)), "")
	f.Fuzz(func(t *testing.T, page []byte, sel string) {
		// A hang is a failure too: crash the worker with the stacks so the
		// fuzzer records the input.
		watchdog := time.AfterFunc(hangLimit, func() {
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("Extract hangs on %q (selector %q)\n%s", page, sel, buf[:runtime.Stack(buf, true)]))
		})
		defer watchdog.Stop()
		res, err := Extract(page, "http://127.0.0.1/fuzz", &Options{Select: sel, Links: true})
		if res == nil {
			t.Fatalf("nil result (err %v)", err)
		}
		for _, f := range formats {
			out, err := res.Render(f)
			if err != nil {
				t.Fatalf("Render(%s): %v", f, err)
			}
			if !json.Valid(out) && f == FormatJSON {
				t.Fatalf("Render(json) is not JSON: %q", out)
			}
		}
	})
}

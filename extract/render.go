package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"codeberg.org/readeck/go-readability/v2/render"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Format is an output format of Render.
type Format string

const (
	FormatMarkdown Format = "markdown"
	FormatText     Format = "text"
	FormatJSON     Format = "json"
	FormatHTML     Format = "html"
)

// formats lists every Format, for help text and completion.
var formats = []Format{FormatMarkdown, FormatText, FormatJSON, FormatHTML}

// ParseFormat accepts a format name ("md" and "txt" too).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "markdown", "md":
		return FormatMarkdown, nil
	case "text", "txt":
		return FormatText, nil
	case "json":
		return FormatJSON, nil
	case "html":
		return FormatHTML, nil
	}
	return "", fmt.Errorf("unknown format %q: use markdown, text, json or html", s)
}

// markdownConverter is built once: building it registers every plugin's
// rules, and ConvertNode is safe for concurrent use.
var markdownConverter = sync.OnceValue(func() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(table.WithSkipEmptyRows(true)),
	))
})

// Render returns the result in format f: the content for markdown, text
// and html, the whole record (content as markdown) for json. Non-HTML bodies
// are the same in every format but json.
func (r *Result) Render(f Format) ([]byte, error) {
	switch f {
	case FormatJSON:
		return r.JSON(FormatMarkdown)
	case FormatText:
		return withNewline(r.Text()), nil
	case FormatHTML:
		return withNewline(r.html()), nil
	}
	return withNewline(r.Markdown()), nil
}

// Markdown is the content as markdown; a main-content article starts with
// its title as a heading.
func (r *Result) Markdown() string {
	if r.Kind != KindHTML {
		return r.body
	}
	if r.md != nil {
		return *r.md
	}
	var b strings.Builder
	if !r.selected && r.Title != "" {
		b.WriteString("# " + r.Title + "\n\n")
	}
	heading := b.Len()
	for _, n := range r.nodes {
		// The converter changes the tree it is given (it collapses the
		// whitespace between blocks into nothing), so it gets a copy: Text
		// and HTML, rendered after it, would read "abc.Next" for "abc. Next".
		out, err := markdownConverter().ConvertNode(cloneTree(n), converter.WithDomain(r.FinalURL))
		if err != nil {
			// The converter fails only on a broken tree; text still helps.
			out = []byte(render.InnerText(n))
		}
		out = bytes.TrimSpace(out)
		if len(out) == 0 {
			continue
		}
		if b.Len() > heading {
			b.WriteString("\n\n")
		}
		if b.Len() == heading && heading > 0 && bytes.HasPrefix(out, []byte("# ")) {
			b.Reset() // the article starts with its own title heading
			heading = 0
		}
		b.Write(out)
	}
	// The converter already keeps at most one blank line in a row, and
	// large pages make every extra copy count: no tidying pass here.
	md := strings.TrimSpace(b.String())
	r.md = &md
	return md
}

// Text is the content as plain text, paragraphs separated by blank lines:
// the main content only, what `-f text` prints. The title, byline and date
// are Result fields (-f json), never put in front of it, as every
// main-content tool's text output and every benchmark's truth is the body.
func (r *Result) Text() string {
	if r.Kind != KindHTML {
		return r.body
	}
	if r.txt != nil {
		return *r.txt
	}
	var parts []string
	for _, n := range r.nodes {
		var s string
		withReadableMath(n, func() { s = strings.TrimSpace(render.InnerText(n)) })
		if s != "" {
			parts = append(parts, s)
		}
	}
	txt := tidyBlankLines(strings.Join(parts, "\n\n"))
	r.txt = &txt
	return txt
}

// html is the outer HTML of the content nodes, one after another.
func (r *Result) html() string {
	if r.Kind != KindHTML {
		return r.body
	}
	var b strings.Builder
	for i, n := range r.nodes {
		if i > 0 {
			b.WriteByte('\n')
		}
		_ = html.Render(&b, n) // a strings.Builder never fails
	}
	return b.String()
}

// LinksText lists r.Links: "- [text](url)" lines for markdown, "url" lines
// otherwise.
func (r *Result) LinksText(f Format) string {
	var b strings.Builder
	for _, l := range r.Links {
		if f == FormatMarkdown {
			text := strings.NewReplacer("[", `\[`, "]", `\]`).Replace(l.Text)
			if text == "" {
				text = l.URL
			}
			fmt.Fprintf(&b, "- [%s](%s)\n", text, l.URL)
		} else {
			b.WriteString(l.URL + "\n")
		}
	}
	return b.String()
}

// jsonResult is the JSON shape of a Result, one line per page in batch mode.
type jsonResult struct {
	URL          string   `json:"url"`
	FinalURL     string   `json:"final_url,omitempty"`
	Status       int      `json:"status,omitempty"`
	ContentType  string   `json:"content_type,omitempty"`
	Kind         Kind     `json:"kind,omitempty"`
	Charset      string   `json:"charset,omitempty"`
	Title        string   `json:"title"`
	Byline       string   `json:"byline"`
	Lang         string   `json:"lang"`
	SiteName     string   `json:"site_name,omitempty"`
	Excerpt      string   `json:"excerpt,omitempty"`
	Published    string   `json:"published"`
	PageType     PageType `json:"page_type,omitempty"`
	Format       Format   `json:"format,omitempty"`
	Content      string   `json:"content"`
	Links        []Link   `json:"links"`
	JSShell      bool     `json:"js_shell"`
	Hint         string   `json:"hint,omitempty"`
	Truncated    bool     `json:"truncated"`
	RawBytes     int      `json:"raw_bytes"`
	ContentBytes int      `json:"content_bytes"`
	Warnings     []string `json:"warnings,omitempty"`
	Error        string   `json:"error,omitempty"`
	ErrorKind    string   `json:"error_kind,omitempty"`
}

// JSON is the result as one line of JSON with the content in format
// content (markdown, text or html).
func (r *Result) JSON(content Format) ([]byte, error) {
	j := jsonResult{
		URL: r.URL, FinalURL: r.FinalURL, Status: r.Status, ContentType: r.ContentType,
		Kind: r.Kind, Charset: r.Charset, Title: r.Title, Byline: r.Byline, Lang: r.Lang,
		SiteName: r.SiteName, Excerpt: r.Excerpt, PageType: r.PageType, Links: r.Links, JSShell: r.JSShell,
		Hint: r.Hint, Truncated: r.Truncated, RawBytes: r.RawBytes, Warnings: r.Warnings, Error: r.Error,
		ErrorKind: r.ErrorKind,
	}
	if !r.Published.IsZero() {
		j.Published = r.Published.Format(time.RFC3339)
	}
	if j.Links == nil {
		j.Links = []Link{}
	}
	if r.Kind != "" {
		j.Format = content
		switch content {
		case FormatText:
			j.Content = r.Text()
		case FormatHTML:
			j.Content = r.html()
		default:
			j.Format = FormatMarkdown
			j.Content = r.Markdown()
		}
	}
	j.ContentBytes = len(j.Content)
	return json.Marshal(j)
}

var blankRuns = lazyRegexp(`\n[ \t]*\n(?:[ \t]*\n)+`)

// tidyBlankLines keeps at most one blank line in a row. Trailing spaces
// stay: two of them are a markdown line break.
func tidyBlankLines(s string) string {
	return strings.TrimSpace(blankRuns().ReplaceAllString(s, "\n\n"))
}

// withNewline copies s once into a byte slice ending in a newline.
func withNewline(s string) []byte {
	if s == "" {
		return nil
	}
	b := make([]byte, len(s), len(s)+1)
	copy(b, s)
	if !strings.HasSuffix(s, "\n") {
		b = append(b, '\n')
	}
	return b
}

// withReadableMath runs fn while MathML without a TeX source is disguised as
// plain spans: render.InnerText prints math only as TeX and would otherwise
// drop such formulas ("a ≠ 0") that the markdown keeps. The tree is
// restored afterwards.
func withReadableMath(n *html.Node, fn func()) {
	type saved struct {
		node     *html.Node
		data, ns string
		dataAtom atom.Atom
	}
	var changed []saved
	walk(n, func(c *html.Node) bool {
		if c.Type == html.ElementNode && isBareMath(c) {
			changed = append(changed, saved{c, c.Data, c.Namespace, c.DataAtom})
			c.Data, c.Namespace, c.DataAtom = "span", "", atom.Span
		}
		return true
	})
	defer func() {
		for _, s := range changed {
			s.node.Data, s.node.Namespace, s.node.DataAtom = s.data, s.ns, s.dataAtom
		}
	}()
	fn()
}

// isBareMath reports a <math> without a TeX annotation or a MathJax
// container without data-latex: the cases render.InnerText leaves out.
func isBareMath(n *html.Node) bool {
	switch n.Data {
	case "math":
		found := false
		walk(n, func(c *html.Node) bool {
			if v, _ := attr(c, "encoding"); c.Data == "annotation" && v == "application/x-tex" {
				found = true
			}
			return !found
		})
		return !found
	case "mjx-container":
		found := false
		walk(n, func(c *html.Node) bool {
			if _, ok := attr(c, "data-latex"); ok && c.Type == html.ElementNode {
				found = true
			}
			return !found
		})
		return !found
	}
	return false
}

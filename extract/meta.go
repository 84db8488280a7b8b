package extract

import (
	"net/url"
	"strings"
	"time"

	"codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// selectedMetadata fills the byline, date, site name and excerpt of a
// --select result from readability's reading of the whole page, made on a
// copy so the selected nodes stay as they are: a selection is part of an
// article, and who wrote it and when still hold.
func (r *Result) selectedMetadata(doc *html.Node, base *url.URL) {
	parser := readability.NewParser()
	art, err := parser.ParseDocument(doc, base)
	if err != nil {
		return
	}
	r.Byline = strings.TrimSpace(art.Byline())
	r.SiteName = art.SiteName()
	r.Lang = firstNonEmpty(art.Language(), r.Lang)
	if t, err := art.PublishedTime(); err == nil {
		r.Published = t.UTC().Truncate(time.Second)
	}
	r.Excerpt = art.Excerpt()
	if art.Node != nil {
		r.Excerpt = firstParagraph(r.Excerpt, r.Byline, art.Node)
	}
}

// firstParagraph keeps readability's excerpt unless it is the byline (its
// fallback is the first <p>, which on many pages is "By Jane Doe"), and
// then takes the first paragraph of the content that is not.
func firstParagraph(excerpt, byline string, content *html.Node) string {
	if !bylineLike(excerpt, byline) {
		return excerpt
	}
	var found string
	walk(content, func(n *html.Node) bool {
		if found != "" {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.P {
			if t := strings.Join(strings.Fields(textOf(n)), " "); countVisible(t) >= 20 && !bylineLike(t, byline) {
				found = t
			}
			return false
		}
		return true
	})
	if found == "" {
		return excerpt
	}
	return found
}

// bylineLike reports an excerpt that only names the author: empty, the
// byline with a few words around it ("By Jane Doe, May 5"), or a short
// "By ..." line.
func bylineLike(s, byline string) bool {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return true
	case byline != "" && strings.Contains(strings.ToLower(s), strings.ToLower(byline)) && len(s) < len(byline)+40:
		return true
	}
	lower := strings.ToLower(s)
	return (strings.HasPrefix(lower, "by ") || strings.HasPrefix(lower, "von ") || strings.HasPrefix(lower, "par ")) && len(strings.Fields(s)) <= 8
}

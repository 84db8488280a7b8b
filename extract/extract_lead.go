package extract

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/browseragent/browseragent/internal/textutil"
)

// Readability starts the article at its body text and drops the lead (the
// standfirst, teaser or subtitle between the headline and the body): it
// sits in the article's header, beside the title and the byline. addLead
// finds it in the page and puts it back in front of the article.

// leadName matches a class or id token naming an article's lead.
var leadName = mustPhraseRE(`^(?:lead|leadin|lede|intro|introduction|teaser|teasertext|excerpt|summary|subtitle|subheadline|subhead|subline|standfirst|chapo|chapeau|abstract|deck|dek|kicker|perex|bajada|entradilla|sumario|sottotitolo|vorspann|anriss)`)

// weakLeadName names a lead only on a paragraph.
var weakLeadName = lazyRegexp(`^descr`)

// leadGap is how many letters may stand between the lead's end and the
// article's first text (a picture's caption, the byline, the date, a box
// of links), and leadGapShort how many of them when more than
// leadGapPlain are outside links and headings: paragraphs of something
// else stand between.
const (
	leadGap      = 1000
	leadGapShort = 400
	leadGapPlain = 200
)

// docPositions are the text nodes of a page in document order, with the
// letters before each, and each element's span of letters.
type docPositions struct {
	byText map[string]textPos // the first text node of that (trimmed) text
	leads  []leadCand
}

// textPos is a text node of the page, the letters before it, and those
// of them outside links and headings.
type textPos struct {
	n          *html.Node
	pos, prose int
}

type leadCand struct {
	n               *html.Node
	start, end, pro int // pro: the plain letters before the lead's end
}

// indexPage walks the page once: where each text starts, and the lead
// candidates (with where they start and end).
func indexPage(doc *html.Node) *docPositions {
	p := &docPositions{byText: map[string]textPos{}}
	pos, prose := 0, 0
	// ctx is what the ancestors of a node say about it.
	type ctx struct {
		inArticle, inHeader, skip, inLink bool
	}
	var visit func(n *html.Node, x ctx)
	visit = func(n *html.Node, x ctx) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				l := countLetters(c.Data)
				if l >= 12 {
					if k := strings.TrimSpace(c.Data); p.byText[k].n == nil {
						p.byText[k] = textPos{c, pos, prose}
					}
				}
				pos += l
				if !x.inLink && !x.skip {
					prose += l
				}
			case html.ElementNode:
				if nonContent[c.DataAtom] {
					continue
				}
				cx := x
				switch c.DataAtom {
				case atom.Article, atom.Main:
					cx.inArticle = true
				case atom.Header:
					cx.inHeader = true
				case atom.Nav, atom.Aside, atom.Footer, atom.Form, atom.Figure, atom.Figcaption, atom.Ul, atom.Ol, atom.Table, atom.H1:
					cx.skip = true
				}
				switch c.DataAtom {
				case atom.A:
					cx.inLink = cx.inLink || !isAnchorLink(c)
				case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
					cx.inLink = true
				}
				start := pos
				// A block holding a figure, a list or the headline is a
				// wrapper, not the lead.
				cand := !cx.skip && isLeadCandidate(c, x.inHeader && x.inArticle) &&
					(c.DataAtom == atom.P || !hasAny(c, wrapperTags))
				if !cx.skip && c.DataAtom != atom.Body && c.DataAtom != atom.Main && c.DataAtom != atom.Article && isSiteBlock(c) {
					cx.skip = true
				}
				if cand {
					cx.skip = true
				}
				visit(c, cx)
				if cand {
					p.leads = append(p.leads, leadCand{c, start, pos, prose})
				}
			}
		}
	}
	visit(doc, ctx{})
	return p
}

// wrapperTags are what a lead never holds.
var wrapperTags = map[atom.Atom]bool{
	atom.H1: true, atom.Figure: true, atom.Table: true, atom.Nav: true, atom.Img: true,
}

func hasAny(n *html.Node, tags map[atom.Atom]bool) bool {
	found := false
	walk(n, func(c *html.Node) bool {
		if found {
			return false
		}
		if c != n && c.Type == html.ElementNode && tags[c.DataAtom] {
			found = true
		}
		return !found
	})
	return found
}

// siteName matches a class or id token of the site's own header (its name
// and slogan), or of a block that is never the article's.
var siteName = mustPhraseRE(`site[-_]?(?:header|head|title|description|branding|name|logo)|masthead|branding|slogan|tagline`)

// isSiteBlock says n is the site's header, or is named as boilerplate.
func isSiteBlock(n *html.Node) bool {
	if hasBoilerplateName(n) {
		return true
	}
	return classOrIDSays(n, &siteNames, func(v string) bool { return siteName.MatchString(strings.ToLower(v)) })
}

var siteNames = valueMemo[bool]{max: memoValue}

// isLeadCandidate says n may be an article's lead: a paragraph-like block
// called lead, teaser, intro, subtitle … or a paragraph in a <header>.
func isLeadCandidate(n *html.Node, inHeader bool) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.H2, atom.H3, atom.Span, atom.Section, atom.Strong:
	default:
		return false
	}
	if n.DataAtom == atom.P && inHeader {
		return true
	}
	for _, a := range n.Attr {
		if a.Namespace != "" || (a.Key != "class" && a.Key != "id") {
			continue
		}
		for _, toks := range splitNames(a.Val).toks {
			for _, tok := range toks {
				if leadName.MatchString(tok) || (n.DataAtom == atom.P && weakLeadName().MatchString(tok)) {
					return true
				}
			}
		}
	}
	return false
}

// origin is where in the page the text of article (a copy of a part of
// it) starts: the first text node of article found in the page.
func (p *docPositions) origin(article *html.Node) textPos {
	var found textPos
	walk(article, func(n *html.Node) bool {
		if found.n != nil {
			return false
		}
		if n.Type == html.TextNode && countLetters(n.Data) >= 12 {
			found = p.byText[strings.TrimSpace(n.Data)]
		}
		return found.n == nil
	})
	return found
}

// addLead puts the page's lead in front of article when the article starts
// shortly after it and does not hold it already.
func addLead(article *html.Node, pos *docPositions) {
	if pos == nil || len(pos.leads) == 0 {
		return
	}
	orig := pos.origin(article)
	if orig.n == nil {
		return
	}
	start := orig.pos
	text := ""
	var first *html.Node = article.FirstChild
	for _, c := range pos.leads {
		if c.end > start || start-c.end > leadGap || (start-c.end > leadGapShort && orig.prose-c.pro > leadGapPlain) {
			continue
		}
		l := c.end - c.start
		if l < 30 || l > 1500 {
			continue
		}
		s := measure(c.n, map[*html.Node]textStats{})
		if s.link*10 > s.text*3 {
			continue
		}
		t := textutil.OneLine(textOf(c.n), 0)
		if metaLine.MatchString(t) || creditLine.MatchString(t) || callToAction.MatchString(t) || mostlyFigures(t) {
			continue
		}
		if text == "" {
			text = textutil.OneLine(textOf(article), 0)
		}
		if strings.Contains(text, t) {
			continue
		}
		lead := cloneTree(c.n)
		if lead.DataAtom != atom.P && lead.DataAtom != atom.Div && lead.DataAtom != atom.Section {
			p := &html.Node{Type: html.ElementNode, DataAtom: atom.P, Data: "p"}
			p.AppendChild(lead)
			lead = p
		}
		article.InsertBefore(lead, first)
	}
}

// mostlyFigures says a third or more of t's letters and digits are
// digits: a market summary, a score board or a table of dates ("S&P 500
// 2,111.72 -14.43 (-0.68%)"), never a lead, whatever its class says.
func mostlyFigures(t string) bool {
	digits, all := 0, 0
	for _, r := range t {
		switch {
		case r >= '0' && r <= '9':
			digits++
			all++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			all++
		}
	}
	return digits*3 >= all
}

package extract

import (
	"encoding/json"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/browseragent/browseragent/internal/textutil"
)

// Some pages carry their article where readability never looks: inside a
// <noscript> (parsed as raw text, since the parser runs with scripting
// on), or only inside a script: JSON-LD's articleBody, a framework's
// hydration state (__NEXT_DATA__, window.__INITIAL_STATE__ …). The rules
// here get that text back, without adding to pages whose text is found.

// pageScripts are a page's <script> and <noscript> elements, collected
// before readability removes them from the tree.
type pageScripts struct {
	scripts []*html.Node
}

// noscriptText is how many letters a <noscript>'s markup must hold to be
// read as part of the page: "enable JavaScript" notes and tracking pixels
// stay out.
const noscriptText = 200

// prepareScripts walks the page once: it collects the scripts, and puts
// the markup of every <noscript> holding a page's worth of text into the
// tree, as a <div> in its place, so readability and the second opinion
// see it.
func prepareScripts(doc *html.Node) *pageScripts {
	ps := &pageScripts{}
	var noscripts []*html.Node
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.Script:
			ps.scripts = append(ps.scripts, n)
			return false
		case atom.Noscript:
			noscripts = append(noscripts, n)
			return false
		case atom.Style, atom.Template, atom.Svg:
			return false
		}
		return true
	})
	for _, n := range noscripts {
		unwrapNoscript(n)
	}
	return ps
}

// unwrapNoscript replaces n by a <div> holding its markup parsed, when
// that markup has at least noscriptText letters outside links.
func unwrapNoscript(n *html.Node) {
	raw := n.FirstChild
	if raw == nil || raw.Type != html.TextNode || raw.NextSibling != nil || n.Parent == nil {
		return
	}
	if countLetters(raw.Data) < noscriptText || !strings.Contains(raw.Data, "<") {
		return
	}
	ctx := &html.Node{Type: html.ElementNode, DataAtom: atom.Div, Data: "div"}
	nodes, err := html.ParseFragment(strings.NewReader(raw.Data), ctx)
	if err != nil {
		return
	}
	div := &html.Node{Type: html.ElementNode, DataAtom: atom.Div, Data: "div"}
	for _, c := range nodes {
		div.AppendChild(c)
	}
	if plainTextLen(div) < noscriptText {
		return
	}
	n.Parent.InsertBefore(div, n)
	n.Parent.RemoveChild(n)
}

// scriptTextMin is the letters below which the extracted text is so short
// that the scripts are read for the article; scriptGain is how many times
// the text found there must exceed it, and scriptProse how many letters
// it must have at least (an article's worth, not a review or a summary).
const (
	scriptTextMin = 1500
	scriptGain    = 2
	scriptProse   = 1500
)

// articleFromScripts returns the article's text found in the page's
// scripts, as paragraphs, when the extracted text (found letters) is short
// and the scripts hold much more prose; nil otherwise.
func (ps *pageScripts) articleFromScripts(found int, foundText string) *html.Node {
	if ps == nil || found >= scriptTextMin {
		return nil
	}
	var best []string
	bestLen := 0
	for _, s := range ps.scripts {
		if s.FirstChild == nil || s.FirstChild.Type != html.TextNode {
			continue
		}
		typ := strings.ToLower(attrOr(s, "type"))
		if typ != "" && !strings.Contains(typ, "json") && !strings.Contains(typ, "javascript") && !strings.Contains(typ, "ecmascript") {
			continue
		}
		var paras []string
		if strings.Contains(typ, "ld+json") {
			paras = ldArticleBody(s.FirstChild.Data)
		}
		if len(paras) == 0 {
			paras = proseStrings(s.FirstChild.Data)
		}
		l := 0
		for _, p := range paras {
			l += countLetters(p)
		}
		if l > bestLen {
			best, bestLen = paras, l
		}
	}
	if bestLen < scriptGain*found || bestLen < scriptProse {
		return nil
	}
	if found >= scriptOwnText && shared(foundText, best) < scriptShared {
		// The page has an article of its own, and the script's prose does
		// not hold it: a playlist's captions, teasers of other stories.
		return nil
	}
	best = unprinted(best, foundText)
	l := 0
	for _, p := range best {
		l += countLetters(p)
	}
	if l*2 < bestLen {
		// Most of the scripts' prose is on the page already: the state
		// of a front page, whose teasers the page lists, not an article
		// it hides.
		return nil
	}
	div := &html.Node{Type: html.ElementNode, DataAtom: atom.Div, Data: "div"}
	for _, p := range best {
		pn := &html.Node{Type: html.ElementNode, DataAtom: atom.P, Data: "p"}
		pn.AppendChild(&html.Node{Type: html.TextNode, Data: p})
		div.AppendChild(pn)
	}
	return div
}

// scriptOwnText is the letters of found text from which the page is taken
// to have an article of its own, and scriptShared the share of its word
// triples the script's prose must hold to be that article in full (a
// hydrated page renders the start of the article the state holds).
const (
	scriptOwnText = 800
	scriptShared  = 0.2
)

// unprinted are the paragraphs of paras whose words text does not
// already hold in a row.
func unprinted(paras []string, text string) []string {
	printed := " " + strings.Join(proseWordsOf(text), " ") + " "
	var out []string
	for _, p := range paras {
		if !strings.Contains(printed, " "+strings.Join(proseWordsOf(p), " ")+" ") {
			out = append(out, p)
		}
	}
	return out
}

// proseWordsOf splits s into lower-case runs of letters and digits.
func proseWordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// shared is the share of text's word triples that are also in paras.
func shared(text string, paras []string) float64 {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	have := map[[3]string]bool{}
	for _, p := range paras {
		w := split(p)
		for i := 2; i < len(w); i++ {
			have[[3]string{w[i-2], w[i-1], w[i]}] = true
		}
	}
	w := split(text)
	if len(w) < 3 {
		return 1
	}
	n := 0
	for i := 2; i < len(w); i++ {
		if have[[3]string{w[i-2], w[i-1], w[i]}] {
			n++
		}
	}
	return float64(n) / float64(len(w)-2)
}

// ldArticleBody is the articleBody of the JSON-LD objects in raw, split
// into paragraphs.
func ldArticleBody(raw string) []string {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &v); err != nil {
		return nil
	}
	var out []string
	var visit func(v any)
	visit = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if b, ok := t["articleBody"].(string); ok {
				out = append(out, markupParagraphs(b)...)
			}
			for k, c := range t {
				if k != "articleBody" {
					visit(c)
				}
			}
		case []any:
			for _, c := range t {
				visit(c)
			}
		}
	}
	visit(v)
	return out
}

// proseMin is the letters, proseWords the words, a string literal of a
// script must have to be read as the article's prose.
// A paragraph of such a string is kept from paraMin letters.
const (
	proseMin   = 80
	proseWords = 12
	paraMin    = 20
)

// proseStrings are the string literals in a script (JSON or JavaScript,
// HTML-escaped or not) that read as prose, each split into paragraphs,
// in order, each paragraph once.
func proseStrings(raw string) []string {
	if strings.Contains(raw, "&quot;") {
		raw = html.UnescapeString(raw)
	}
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i+1)
		if end < 0 {
			break
		}
		if raw[end] != '"' {
			i = end // a line break: no JSON string literal
			continue
		}
		lit := raw[i : end+1]
		i = end
		if len(lit) < proseMin {
			continue
		}
		var s string
		if err := json.Unmarshal([]byte(lit), &s); err != nil {
			continue
		}
		if strings.Contains(s, "&lt;") {
			s = html.UnescapeString(s)
		}
		paras := markupParagraphs(s)
		if !isProse(strings.Join(paras, " ")) {
			continue
		}
		for _, p := range paras {
			if !seen[p] && countLetters(p) >= paraMin && !strings.ContainsAny(p, "{}<>=") {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// stringEnd is the index of the quote closing the string literal that
// starts at i, of the line break that ends it unclosed, or -1.
func stringEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		case '\n':
			return i
		}
	}
	return -1
}

// isProse says s reads as sentences: enough letters and words, mostly
// letters, and no markup or code left in it.
func isProse(s string) bool {
	letters := countLetters(s)
	if letters < proseMin || len(strings.Fields(s)) < proseWords {
		return false
	}
	if strings.ContainsAny(s, "{}<>=") || strings.Contains(s, "http") && len(strings.Fields(s)) < 2*proseWords {
		return false
	}
	if !sentenceEnd().MatchString(s) {
		return false // a list of keywords or names
	}
	other := 0
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r) && !strings.ContainsRune(".,;:!?'\"-–—()«»„“”‘’%/", r) {
			other++
		}
	}
	return other*20 < letters
}

// markupParagraphs splits s into its paragraphs: by its block elements
// when it is HTML, by its line breaks otherwise.
func markupParagraphs(s string) []string {
	if strings.Contains(s, "<") && strings.Contains(s, ">") {
		ctx := &html.Node{Type: html.ElementNode, DataAtom: atom.Div, Data: "div"}
		nodes, err := html.ParseFragment(strings.NewReader(s), ctx)
		if err == nil {
			var b strings.Builder
			for _, n := range nodes {
				walk(n, func(c *html.Node) bool {
					switch c.Type {
					case html.TextNode:
						b.WriteString(c.Data)
					case html.ElementNode:
						if nonContent[c.DataAtom] {
							return false
						}
						if c.DataAtom == atom.Br || isBlock(c.DataAtom) {
							b.WriteByte('\n')
						}
					}
					return true
				})
				b.WriteByte('\n')
			}
			s = b.String()
		}
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = textutil.OneLine(line, 0); line != "" {
			out = append(out, line)
		}
	}
	return out
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Li, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Blockquote, atom.Section, atom.Article, atom.Tr, atom.Ul, atom.Ol, atom.Figure, atom.Figcaption, atom.Pre:
		return true
	}
	return false
}

// addScriptArticle appends the article found in the scripts when the
// content found so far is short.
func (r *Result) addScriptArticle(ps *pageScripts) {
	found := 0
	for _, n := range r.nodes {
		found += plainTextLen(n)
	}
	if ps == nil || found >= scriptTextMin {
		return
	}
	// The text nodes apart: a heading and the paragraph after it are two
	// runs of words, not one glued at the seam.
	var text strings.Builder
	for _, n := range r.nodes {
		walk(n, func(c *html.Node) bool {
			if c.Type == html.TextNode {
				text.WriteString(c.Data)
				text.WriteByte(' ')
			}
			return true
		})
	}
	if extra := ps.articleFromScripts(found, text.String()); extra != nil {
		r.nodes = append(r.nodes, extra)
	}
}

// sentenceEnd matches the end of a sentence.
var sentenceEnd = lazyRegexp(`[\p{L}\d)"”»’][.!?…。！？](?:\s|$)`)

// Readability scores a long table or list (a register of names, a price
// list) above the paragraphs around it, and picks it alone. When its pick
// is mostly a table or list inside the page's own article body, and that
// body holds much more running text outside tables and lists, the body
// is the article.

// listPick says the second opinion should win over readability's pick
// first: first is mostly tables and lists, lies inside container, and
// second has at least twice its running text (and 500 letters) outside
// them.
func listPick(first, second, container *html.Node, idx *docPositions) bool {
	fl, fr := listLetters(first)
	if fl*10 < (fl+fr)*6 {
		return false
	}
	_, sr := listLetters(second)
	if sr < 500 || sr < 2*fr {
		return false
	}
	orig := idx.origin(first)
	for n := orig.n; n != nil; n = n.Parent {
		if n == container {
			return true
		}
	}
	return false
}

// listLetters are the letters under n inside tables and lists, and those
// in running text outside them (links left out of both).
func listLetters(n *html.Node) (inList, running int) {
	var visit func(n *html.Node, list bool)
	visit = func(n *html.Node, list bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if list {
					inList += countLetters(c.Data)
				} else {
					running += countLetters(c.Data)
				}
			case html.ElementNode:
				a := c.DataAtom
				if a == 0 {
					a = atom.Lookup([]byte(c.Data)) // readability's renamed elements
				}
				if nonContent[a] || (a == atom.A && !isAnchorLink(c)) {
					continue
				}
				visit(c, list || listTags[a])
			}
		}
	}
	visit(n, false)
	return
}

// listTags are what tables and lists are made of (readability may leave
// the rows of a table without the table).
var listTags = map[atom.Atom]bool{
	atom.Table: true, atom.Tr: true, atom.Ul: true, atom.Ol: true, atom.Li: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
}

// A page may set its article out in several sibling blocks of one kind:
// a recipe's header, ingredients and steps, each an <article
// class="box …">; readability takes the one that scores best. addParts
// adds the chosen block's siblings of the same kind (same tag, the same
// class names), when there are only a few of them and none is boilerplate
// or mostly links: a list of teasers has many.

// maxParts is how many sibling blocks an article may be set out in;
// partMin the letters outside links a part holds, once cleaned (less is
// an info box or a credit).
const (
	maxParts = 6
	partMin  = 80
)

// addParts adds to article (a copy of a part of the page) the blocks that
// share its kind, in page order.
func addParts(article *html.Node, idx *docPositions) {
	orig := idx.origin(article)
	if orig.n == nil {
		return
	}
	var text string
	for a := orig.n.Parent; a != nil && a.Type == html.ElementNode && a.DataAtom != atom.Body && a.DataAtom != atom.Main; a = a.Parent {
		if a.DataAtom != atom.Article && a.DataAtom != atom.Section && a.DataAtom != atom.Div {
			continue
		}
		parts := sameKind(a)
		if len(parts) < 2 {
			continue
		}
		if len(parts) > maxParts {
			return
		}
		before := true
		first := article.FirstChild
		for _, p := range parts {
			if p == a {
				before = false
				continue
			}
			if hasBoilerplateName(p) || isSiteBlock(p) || isHidden(p) {
				continue
			}
			s := measure(p, map[*html.Node]textStats{})
			if s.text < 20 || s.link*2 > s.text {
				continue
			}
			if text == "" {
				text = textutil.OneLine(textOf(article), 0)
			}
			if po := firstText(p); po == "" || strings.Contains(text, po) {
				continue
			}
			c := cloneTree(p)
			cleanContainer(c)
			if plainTextLen(c) < partMin {
				continue
			}
			if before {
				article.InsertBefore(c, first)
			} else {
				article.AppendChild(c)
			}
		}
		return
	}
}

// sameKind are the element children of a's parent with a's tag and all
// of a's class names but one, a among them, in order; nil when a has
// fewer than two class names.
func sameKind(a *html.Node) []*html.Node {
	cls := strings.Fields(attrOr(a, "class"))
	if len(cls) < 2 || a.Parent == nil {
		return nil
	}
	var out []*html.Node
	for c := a.Parent.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom != a.DataAtom {
			continue
		}
		if c == a {
			out = append(out, c)
			continue
		}
		have := map[string]bool{}
		for _, k := range strings.Fields(attrOr(c, "class")) {
			have[k] = true
		}
		shared := 0
		for _, k := range cls {
			if have[k] {
				shared++
			}
		}
		if shared >= len(cls)-1 && shared >= 2 {
			out = append(out, c)
		}
	}
	return out
}

// firstText is the first text of n with 12 letters or more, on one line.
func firstText(n *html.Node) string {
	var t string
	walk(n, func(c *html.Node) bool {
		if t != "" {
			return false
		}
		if c.Type == html.ElementNode && nonContent[c.DataAtom] {
			return false
		}
		if c.Type == html.TextNode && countLetters(c.Data) >= 12 {
			t = textutil.OneLine(c.Data, 0)
		}
		return t == ""
	})
	return t
}

package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/browseragent/browseragent/internal/textutil"
)

// Readability picks the right part of most pages but keeps what sits
// inside it: share bars, "read more" links, related-article lists, author
// boxes, captions, newsletter and subscription prompts. pruneArticle takes
// those out of the chosen subtree. Every rule is about the kind of block
// (its class or id, its share of link text, its opening words), never about
// a site, and no rule removes a block holding a large part of the text.

// textStats are the letters and digits under a node, and how many of them
// are inside links.
type textStats struct{ text, link int }

// measure fills stats for n and every element under it in one pass.
func measure(n *html.Node, stats map[*html.Node]textStats) textStats {
	var s textStats
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			s.text += countLetters(c.Data)
		case html.ElementNode:
			if c.DataAtom == 0 {
				// Readability renames elements (div to p) without
				// setting the atom.
				c.DataAtom = atom.Lookup([]byte(c.Data))
			}
			cs := measure(c, stats)
			if c.DataAtom == atom.A && !isAnchorLink(c) {
				cs.link = cs.text
			}
			s.text += cs.text
			s.link += cs.link
		}
	}
	stats[n] = s
	return s
}

// isAnchorLink says a points into the same page ("#section"): tables of
// contents are part of the article.
func isAnchorLink(a *html.Node) bool {
	href, _ := attr(a, "href")
	href = strings.TrimSpace(href)
	// A bare "#" (or "#!") goes nowhere: a script's button (Print, Email,
	// Tweet), counted as a link like any other.
	return strings.HasPrefix(href, "#") && href != "#" && href != "#!"
}

// countLetters is how many letters and digits s holds.
func countLetters(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			n += int(asciiAlnum[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
		i += size
	}
	return n
}

// asciiAlnum is 1 for the ASCII letters and digits: most of the text
// countLetters reads is ASCII, where unicode's tables are the slow way.
var asciiAlnum = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		if unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) {
			t[c] = 1
		}
	}
	return t
}()

// boilerplateName matches a class or id token naming a block that is not
// the article's text. Tokens are the class and id split at anything that
// is not a letter or digit, lower-cased; the pattern must match a whole
// token's start.
var boilerplateName = mustPhraseRE(`^(?:` +
	`comment|disqus|respond|repl(?:y|ies)|discussion|` +
	`share|sharing|shariff|social|sociable|syndication|addthis|` +
	`related|relatedposts|recommend|more(?:stories|articles|news)|mostpopular|popular|trending|readmore|seealso|teaser|` +
	`newsletter|subscri|signup|paywall|premium|promo|cookie|consent|gdpr|` +
	`tags?$|taglist|tagcloud|keywords$|categor|` +
	`sidebar|widget|banner|advert|ads?$|adsense|sponsor|outbrain|taboola|` +
	`breadcrumb|pagination|pager$|nav|menu|toolbar|tools$|print$|rating|vote|` +
	`author|byline|bio$|meta$|metadata|postmeta|entrymeta|dateline|timestamp|date$|posted|` +
	`caption|credit|copyright|footer|donat|login` +
	`)`)

// boilerplateTags are the elements pruneArticle judges by name.
var boilerplateTags = map[atom.Atom]bool{
	atom.Div: true, atom.Section: true, atom.Aside: true, atom.Ul: true, atom.Ol: true,
	atom.P: true, atom.Span: true, atom.Footer: true, atom.Header: true, atom.Nav: true,
	atom.Form: true, atom.Dl: true, atom.Li: true, atom.Table: true, atom.Figure: true,
}

// hasBoilerplateName says a class, id, itemprop or role of n names it as
// boilerplate.
func hasBoilerplateName(n *html.Node) bool { return boilerplateNamed(n, false) }

// boilerplateNamed is hasBoilerplateName, by n's class alone when
// classOnly is set.
func boilerplateNamed(n *html.Node, classOnly bool) bool {
	for _, a := range n.Attr {
		if a.Namespace != "" || (a.Key != "class" && (classOnly || a.Key != "id" && a.Key != "itemprop" && a.Key != "role")) {
			continue
		}
		if a.Key == "role" {
			v := strings.ToLower(a.Val)
			if v == "navigation" || v == "complementary" || v == "contentinfo" {
				return true
			}
			continue
		}
		memo, p := &boilerNames, n.DataAtom == atom.P
		if p {
			memo = &boilerNamesP
		}
		for _, toks := range memo.get(a.Val, func(v string) [][]string { return boilerplateHits(v, p) }) {
			if a.Key != "id" || !isHeadingSlug(n, toks) {
				return true // an id that is its heading's slug ("sharing-with-a-single-developer") says what, not which kind
			}
		}
	}
	return false
}

// boilerNames and boilerNamesP remember boilerplateHits (for a <p>: P).
var boilerNames, boilerNamesP = valueMemo[[][]string]{max: memoValue}, valueMemo[[][]string]{max: memoValue}

// boilerplateHits are the tokens of each name of the class or id value v
// that names boilerplate, in order; p says the value is a <p>'s.
func boilerplateHits(v string, p bool) [][]string {
	c := splitNames(v)
	var hits [][]string
	live := false
	content := contentWidget(c)
	for i, name := range c.names {
		toks := c.toks[i]
		if len(toks) > 1 && stateWord[toks[0]] {
			continue // "no-caption", "has-sidebar": a state, not a kind
		}
		if p && (name == "paywall" || name == "premium") {
			continue // a paragraph of the article behind the paywall, not the paywall's notice
		}
		for j, tok := range toks {
			if liveName().MatchString(tok) {
				live = true
			}
			if tok == "teaser" && articleWord[toks[0]] {
				continue // "article-teaser" is the article's lead
			}
			if strings.HasPrefix(tok, "widget") && (content || widgetPart(toks, j)) {
				continue // a page builder's block of text, or a part of some widget: not a sidebar's widget
			}
			if boilerplateName.MatchString(tok) && !(live && strings.HasPrefix(tok, "comment")) {
				hits = append(hits, toks)
				break
			}
		}
	}
	return hits
}

// sectionText is the letters outside links that must follow a heading,
// before the next heading, for the heading to open a section of the
// article: a teaser's heading links to its story over a line or two.
const sectionText = 400

// headsSection says n is a heading (h2 to h6) that opens a section of
// running text: the linked item headings of a list article ("“Thumper”
// ($20)", linking to the game's page, then a paragraph on it).
func headsSection(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
	default:
		return false
	}
	l := 0
	for sib := n.NextSibling; sib != nil && l < sectionText; sib = sib.NextSibling {
		if sib.Type != html.ElementNode {
			continue
		}
		switch sib.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return false
		}
		l += plainTextLen(sib)
	}
	return l >= sectionText
}

// sentenceItems says most items of list n are sentences around their
// links: each has linkFreeWords words or more outside its links.
func sentenceItems(n *html.Node) bool {
	if n.DataAtom == atom.Table {
		return false
	}
	items, prose := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom != atom.Li {
			continue
		}
		items++
		words := 0
		walk(c, func(d *html.Node) bool {
			if d.Type == html.ElementNode && (d.DataAtom == atom.A || nonContent[d.DataAtom]) {
				return false
			}
			if d.Type == html.TextNode {
				for _, w := range strings.Fields(d.Data) {
					if countLetters(w) >= 2 {
						words++
					}
				}
			}
			return true
		})
		if words >= linkFreeWords {
			prose++
		}
	}
	return items > 0 && prose*2 > items
}

// linkFreeWords is how many words outside its links make a list item a
// sentence, not a link with a date or a count beside it.
const linkFreeWords = 6

// isHeadingSlug says the id whose tokens are toks is the slug of n's own
// heading (documentation generators, Markdown renderers and CMSs give each
// section the id of its title: "sharing-with-a-single-developer",
// "getting-into-trouble-with-shared-mutable-history"): it says what the
// section is about, not what kind of block it is. Three words at least,
// each a word of the first heading in n.
func isHeadingSlug(n *html.Node, toks []string) bool {
	words := 0
	for _, t := range toks {
		if countLetters(t) > 0 && strings.Trim(t, "0123456789") != "" {
			words++
		}
	}
	if words < 3 {
		return false
	}
	var h *html.Node
	walk(n, func(c *html.Node) bool {
		if h != nil {
			return false
		}
		switch c.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			h = c
			return false
		}
		return true
	})
	if h == nil {
		return false
	}
	title := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(textOf(h)), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		title[w] = true
	}
	for _, t := range toks {
		if !title[t] && strings.Trim(t, "0123456789") != "" {
			return false
		}
	}
	return true
}

// Page builders (Elementor, HubSpot, SiteOrigin …) call every block of a
// page a widget and name its kind after the word: "elementor-widget
// elementor-widget-text-editor", "hs_cos_wrapper_widget
// hs_cos_wrapper_type_rich_text", and the grid cell or the wrapper inside
// a widget after it too ("widget-span widget-type-cell",
// "elementor-widget-container"). Only a widget of some other kind, or a
// bare one (a sidebar's), is boilerplate by that name.

// widgetContentKinds are the kinds of a page builder's widget that hold
// the page's own text, as the tokens that end its name.
var widgetContentKinds = [][]string{
	{"text", "editor"}, {"rich", "text"}, {"post", "content"}, {"heading"},
	{"toggle"}, {"accordion"}, {"tabs"}, {"icon", "box"}, {"image", "box"},
}

// widgetLayoutWords follow "widget" in the name of a layout part: a grid
// cell, a widget's own wrapper. What it holds is judged by its own names.
var widgetLayoutWords = map[string]bool{
	"container": true, "wrap": true, "wrapper": true, "inner": true, "span": true,
	"cell": true, "row": true, "column": true, "col": true, "section": true,
}

// contentWidget says one of the class names c is a page builder's widget
// of a kind that holds text: after a "widget" or "type" token, the name
// ends with one of widgetContentKinds.
func contentWidget(c classNames) bool {
	for _, toks := range c.toks {
		for i, tok := range toks {
			if tok != "widget" && tok != "type" {
				continue
			}
			rest := toks[i+1:]
			for _, k := range widgetContentKinds {
				if len(rest) >= len(k) && slices.Equal(rest[len(rest)-len(k):], k) {
					return true
				}
			}
		}
	}
	return false
}

// widgetPart says the name toks, whose token j is a "widget" one, names a
// layout part ("widget-span", "widget-type-cell", "widget-container"),
// not a kind of widget.
func widgetPart(toks []string, j int) bool {
	if toks[j] != "widget" {
		return false
	}
	rest := toks[j+1:]
	if len(rest) > 0 && rest[0] == "type" {
		rest = rest[1:]
	}
	return len(rest) > 0 && widgetLayoutWords[rest[0]]
}

// stateWord opens a class name that says what a block has or does, not
// what it is: "no-caption", "has-comments", "with-sidebar".
// A "js-" class is a script's hook, not a kind either.
var stateWord = map[string]bool{"no": true, "has": true, "with": true, "without": true, "is": true, "show": true, "hide": true, "not": true, "js": true}

// articleWord opens a class name of a part of the article itself.
var articleWord = map[string]bool{"article": true, "story": true, "post": true, "entry": true}

// seeAlso matches the opening words of a cross-reference to another
// article ("Read more: …", "Lesen Sie auch …"), in the languages most
// pages are written in.
var seeAlso = mustPhraseRE(`(?i)^\W*(?:` +
	`read (?:more|also|next)|see also|related|more on this|recommended|also read|` +
	`lesen sie (?:auch|mehr|hier)|mehr zum thema|mehr dazu|auch interessant|das könnte sie|weitere artikel|` +
	`lea (?:también|más)|lee (?:también|más)|le puede interesar|vea también|te puede interesar|mira|mire|` +
	`(?:à )?lire aussi|voir aussi|leggi anche|czytaj (?:też|także|również)|zobacz (?:też|także)|przeczytaj|` +
	`siehe auch|weiter (?:zu|mit)|dowiedz się więcej` +
	`)(?:[^\p{L}\p{N}]|$)`)

// callToAction matches the sentences a site puts around every article:
// subscribe, share, follow, comment, newsletter, app, copyright and ad
// labels.
var callToAction = mustPhraseRE(`(?i)(?:` +
	`\bsubscri(?:be|ption|bers?)\b|\bsign(?:ing)? up\b|\bnewsletter|\bfollow (?:us|me|the)\b|\bshare (?:this|the|on)\b|` +
	`\bjoin our\b|\bnever miss\b|\bdownload (?:the|our)\b.*\bapp|\ball rights reserved|\bcopyright\b|` +
	`\bwritten permission\b|\bclick here\b|\bkeep up with\b|\bwe want to hear\b|\bleave a (?:comment|reply)\b|` +
	`\babonnier|\b(?:artikel|beitrag|seite|jetzt) teilen\b|\bteilen (?:auf|per|via)\b|\bfolgen sie\b|\bkommentare? (?:schreiben|geschlossen|insgesamt)|\balle rechte vorbehalten|` +
	`^\W*(?:anzeige|werbung|advertisement|reklama|publicidad)\b|\bverpasse keine\b|\bauf dem laufenden\b|` +
	`\bsuscr[ií]b|\b[uú]nete\b|\bs[ií]guenos\b|\bcanal de (?:youtube|telegram|whatsapp)|\bhazte miembro\b|` +
	`\babonnez|\binscrivez|\bpour lire la suite\b|\biscriviti\b|\bzapisz si[eę](?:[^\p{L}]|$)` +
	`)`)

// moreHeading matches the whole text of a heading that opens what follows
// an article: related articles, more on the topic, comments, sources.
var moreHeading = mustPhraseRE(`(?i)^\W*(?:` +
	`related(?: \w+)?|more (?:on|from|about|stories|articles|news)\b.*|further reading|see also|you (?:may|might) also like.*|recommended(?: \w+)?|popular(?: \w+)?|(?:\d+ )?comments?|leave a (?:comment|reply)|` +
	`(?:weitere|verwandte|ähnliche|passende|neueste|beliebte|aktuelle) (?:artikel|beiträge|themen|links|news|nachrichten|tests)\b.*|` +
	`mehr (?:zum thema|zu diesem thema|themen|dazu|artikel|news|zu)\b.*|auch interessant.*|zum weiterlesen|entdecke weitere.*|das (?:könnte|interessiert) (?:sie|dich).*|` +
	`siehe auch|lesen sie auch.*|weiterführende (?:links|informationen|artikel)|empfehlungen.*|(?:keine )?kommentare|` +
	`noticias relacionadas|art[ií]culos relacionados|te puede interesar.*|m[aá]s noticias|` +
	`sur le même sujet|à lire aussi|lire aussi|articles? similaires|leggi anche|articoli correlati|` +
	`czytaj (?:też|także)|zobacz (?:też|także)|podobne artykuły|dowiedz się więcej|veja também|leia também` +
	`)\W*$`)

// headingLike are the elements a "more" heading is written with.
var headingLike = map[atom.Atom]bool{
	atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.P: true, atom.Div: true, atom.Span: true, atom.Strong: true, atom.B: true, atom.Header: true,
}

// cutTail removes, from the first "related / more / comments" heading in
// the last third of the text, everything that follows it.
func cutTail(root *html.Node, stats map[*html.Node]textStats, total int) []*html.Node {
	seen := 0
	var cut *html.Node
	walk(root, func(n *html.Node) bool {
		if cut != nil {
			return false
		}
		if n.Type == html.TextNode {
			seen += countLetters(n.Data)
			return true
		}
		if n.Type != html.ElementNode || n == root || !headingLike[n.DataAtom] {
			return true
		}
		s := stats[n]
		if s.text == 0 || s.text > 60 {
			return true
		}
		if seen*3 >= total*2 && isMoreHeading(textutil.OneLine(textOf(n), 0)) {
			cut = n
			return false
		}
		return true
	})
	if cut == nil {
		return nil
	}
	var drop []*html.Node
	for n := cut; n != nil && n != root; n = n.Parent {
		for sib := n.NextSibling; sib != nil; sib = sib.NextSibling {
			drop = append(drop, sib)
		}
	}
	drop = append(drop, cut)
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
	return drop
}

// metaLine matches a short line that dates or files the article rather
// than telling it: "Published 3 May 2021", "23.10.2018", "4 min read",
// "Kategorie: News".
var metaLine = mustPhraseRE(`(?i)^\W*(?:` +
	`(?:published|updated|posted|last modified|veröffentlicht|aktualisiert|erstellt|stand|publikacja|aktualizacja|publicado|actualizado|publié|mis à jour|pubblicato|kategorie|category|categories|rubrik|schlagworte|tags|filed under)\b.*|` +
	`(?:\w+,? )?\d{1,2}[./-] ?\d{1,2}[./-] ?\d{2,4}(?:,? \d{1,2}[:.]\d{2}(?: ?uhr| ?[ap]m)?)?|` +
	`(?:\w+,? )?\d{1,2}\.? (?:jan|feb|mär|mar|apr|mai|may|jun|jul|aug|sep|okt|oct|nov|dez|dec)\p{L}*\.? \d{4}(?:,? \d{1,2}[:.]\d{2}.*)?|` +
	`(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\p{L}*\.? \d{1,2},? \d{4}(?:,? \d{1,2}[:.]\d{2}.*)?|` +
	`\d{4}-\d{2}-\d{2}.*|\d+ min(?:ute)?s? (?:read|lesezeit)|lesezeit:? \d+.*` +
	`)\W*$`)

// creditLine matches a picture credit or a source line: "Foto: dpa",
// "Photograph by …", "AFP / JANE DOE", "Getty Images".
var creditLine = mustPhraseRE(`(?i)^\W*(?:` +
	`(?:photo|foto|fotos|bild|bilder|image|picture|credit|crédit|photograph|photography|illustration|grafik|quelle|source|fuente|titelbild|beitragsbild)s?(?: by| von)?\W*:?\s.*|` +
	`.*\b(?:getty images|shutterstock|istock(?:photo)?|imago|picture[- ]alliance|dpa|afp|reuters|ap photo|keystone|epa)\b.*|` +
	`[\p{Lu}\d][\p{L}\d.&-]*(?: [\p{L}\d.&-]+)* ?/ ?[\p{Lu}][\p{L}.-]*(?: [\p{L}.-]+){0,3}` +
	`)$`)

// metaTags are the elements a metaLine is looked for in.
var metaTags = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Li: true, atom.Span: true, atom.Time: true, atom.Small: true,
	atom.Dd: true, atom.Dt: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
}

// pruneArticle removes boilerplate blocks from the subtree at root and
// returns them.
func pruneArticle(root *html.Node) []*html.Node {
	stats := map[*html.Node]textStats{}
	total := measure(root, stats).text
	if total == 0 {
		return nil
	}
	// A block holding more than this much of the text is the article (or
	// wraps it), whatever it is called.
	maxShare := total * 2 / 5
	var drop []*html.Node
	seen := 0 // letters before n, for telling the last third
	walk(root, func(n *html.Node) bool {
		if n.Type == html.TextNode {
			seen += countLetters(n.Data)
		}
		if n == root || n.Type != html.ElementNode {
			return true
		}
		s := stats[n]
		if s.text > maxShare && !isBigRelated(n, s, total) {
			return true
		}
		if isBoilerplateBlock(n, s) {
			drop = append(drop, n)
			return false
		}
		// "Related" headings before the last third (cutTail handles those)
		// go, with the block of links they announce when it is still there.
		if headingLike[n.DataAtom] && s.text <= 60 && seen*3 < total*2 && isMoreHeading(textutil.OneLine(textOf(n), 0)) {
			drop = append(drop, n)
			if next := nextElement(n); next != nil {
				if ns := stats[next]; ns.text > 0 && ns.link*2 > ns.text && ns.text <= maxShare {
					drop = append(drop, next)
				}
			}
			return false
		}
		return true
	})
	for _, n := range drop {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	return append(drop, cutTail(root, stats, total-droppedText(drop, stats))...)
}

// blockText is a block's text, read (textOf) when a rule first asks and
// then kept for the other rules.
type blockText struct {
	n          *html.Node
	raw, oneLn string
	read, flat bool
}

func (b *blockText) text() string {
	if !b.read {
		b.raw, b.read = textOf(b.n), true
	}
	return b.raw
}

// line is the text on one line (textutil.OneLine).
func (b *blockText) line() string {
	if !b.flat {
		b.oneLn, b.flat = textutil.OneLine(b.text(), 0), true
	}
	return b.oneLn
}

func nextElement(n *html.Node) *html.Node {
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode {
			return s
		}
	}
	return nil
}

func droppedText(drop []*html.Node, stats map[*html.Node]textStats) int {
	n := 0
	for _, d := range drop {
		n += stats[d].text
	}
	return n
}

// figureText is the length from which a figure's text counts as content.
var figureText = 100000

func isBoilerplateBlock(n *html.Node, s textStats) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Form, atom.Button:
		return true
	case atom.Figure, atom.Figcaption, atom.Picture:
		// Captions and credits are not the article's text, unless the
		// figure holds a table or paragraphs of its own.
		return s.text < figureText && findFirst(n, atom.Table) == nil
	}
	t := &blockText{n: n}
	if boilerplateTags[n.DataAtom] && hasBoilerplateName(n) || isBoilerExtra(n, s, t) {
		return true
	}
	if s.text == 0 {
		return false
	}
	if s.text < 50 && metaTags[n.DataAtom] {
		if t := t.line(); metaLine.MatchString(t) || creditLine.MatchString(t) {
			return true
		}
	}
	switch n.DataAtom {
	case atom.P, atom.Li, atom.Div, atom.Section, atom.Dd, atom.Dt, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		// A short block that is mostly link: "Read more: <a>…</a>".
		if s.link > 0 && s.text < 200 && seeAlso.MatchString(t.text()) {
			return true
		}
		if s.text < 100 && s.link*10 > s.text*8 && n.DataAtom != atom.Li && !headsSection(n) {
			return true
		}
		if s.text < 160 && callToAction.MatchString(t.text()) {
			return true
		}

	case atom.Ul, atom.Ol, atom.Table:
		// A list of links is navigation or "related" (not a list of
		// sentences that cite their sources: "Neil has patches up to
		// <a>improve the tab unloader</a>, and <a>show UI when …</a>").
		if s.link*10 > s.text*7 && !sentenceItems(n) {
			return true
		}
	}
	return false
}

package extract

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// More boilerplate than pruneArticle's first rules see: blocks named for
// what they are in a compound class ("image-caption", "BorlabsCookie",
// "twitter-tweet"), the site's notes around an article (disclaimers,
// licences, donation and login prompts, "load more", embed placeholders),
// captions written as "Figure 4: …" or carrying a "©", and "more on this"
// headings in the phrasings pages use. Like the first rules these are
// about kinds of block, never about a site.

// boilerExtraName matches a class or id token (split as hasBoilerplateName
// splits them) of a block that is not the article's text.
var boilerExtraName = mustPhraseRE(`^(?:` +
	`kommentar|komentarz|comentario|commentaire|` +
	`utility$|disclaimer|disclosure|affiliate|licen[cs]e|` +
	`readingtime|readtime|alert$|linkbox|buybox|` +
	`imagedesc|imgdesc|bildunter|bildtext|bildbeschreibung|bildnachweis|legende?$` +
	`)`)

// boilerSubName matches a class or id token that names boilerplate
// anywhere inside it: "BorlabsCookie", "textwidget", "shariff-wrapper".
var boilerSubName = lazyRegexp(`cookie|consent|widget|newsletter|breadcrumb`)

// boilerWholeName matches a whole class name (lower-cased, not split) of a
// caption, a picture credit, an embedded post of another site, or text
// shown to screen readers only. (A bare "hidden" is not one: Tailwind's
// "hidden lg:block" is shown on a desktop.)
var boilerWholeName = mustPhraseRE(`^(?:` +
	`(?:image|img|bild|photo|foto|picture|media)[-_]*(?:subtitle|description|desc|legend|unterschrift|beschreibung|credit|copyright|source|title)s?|` +
	`instagram-media|tiktok-embed|fb-post|fb-video|` +
	`sr-only|screen-reader-text|visually-hidden|visuallyhidden|hidecompletely` +
	`)$`)

// boilerExtraTags are elements judged by boilerExtraName beside
// boilerplateTags: inline wrappers a caption or credit is written in.
var boilerExtraTags = map[atom.Atom]bool{
	atom.Strong: true, atom.Em: true, atom.Small: true, atom.B: true, atom.Blockquote: true,
	atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Label: true,
}

// hasBoilerExtraName says a class or id of n names it as boilerplate by
// the extra names.
func hasBoilerExtraName(n *html.Node) bool {
	return classOrIDSays(n, &boilerExtraNames, boilerExtraValue)
}

var boilerExtraNames = valueMemo[bool]{max: memoValue}

// boilerExtraValue says the class or id value v names boilerplate by the
// extra names.
func boilerExtraValue(v string) bool {
	c := splitNames(v)
	for i, name := range c.names {
		if boilerWholeName.MatchString(name) {
			return true
		}
		toks := c.toks[i]
		if len(toks) > 1 && stateWord[toks[0]] {
			continue
		}
		for _, tok := range toks {
			if boilerExtraName.MatchString(tok) || (len(tok) > 8 && boilerSubName().MatchString(tok)) {
				return true
			}
		}
	}
	return false
}

// siteNotes are the sentences a site puts around its articles that
// callToAction does not have: disclaimers, licences, rights, donation,
// login and "load more" prompts, placeholders of embedded content, print
// and save buttons. Each is lower case and matched at word boundaries; a
// trailing "*" lets the word go on ("subskrypcj*" for subskrypcji). They
// are plain phrases, not a regexp: a short block is tested against all of
// them, and a scan is several times cheaper than an unanchored regexp.
var siteNotes = append([]string{
	"this entry was posted", "bookmark the permalink", "our advertisers", "views expressed",
	"load more", "external content", "not logged in", "unless otherwise noted", "unless otherwise stated",
	"print this", "print recipe", "print article",
	"meinung des autor*", "meinung der autor*", "meinung des verfasser*", "ohne gewähr", "nicht eingeloggt",
	"lade weitere", "weitere inhalte laden", "weitere artikel laden", "externer inhalt", "inhalt laden",
	"um den inhalt von", "mit diesem button", "klicken sie auf", "klicken sie hier", "sofern nicht anders",
	"rezept drucken", "artikel drucken", "beitrag drucken", "seite drucken", "bei pinterest speichern", "bei pinterest merken",
	"nichts mehr verpassen", "nichts mehr versäumen", "jede spende", "jede kleine spende", "jetzt spenden", "spenden sie",
	"gefällt dir unser*", "gefällt ihnen unser*", "gefällt euch unser*", "mit anderen teilen", "mit freunden teilen",
	"wszelkie prawa zastrzeżone", "prawem autorskim", "subskrypcj*", "prenumerat*",
	"todos los derechos", "derechos reservados", "valora esta", "cancela cuando quieras", "tous droits réservés",
}, firstPublished()...)

// firstPublished are the notes saying where an article came out first:
// "Dieser Text wurde zuerst veröffentlicht", "dieser Beitrag ist erschienen".
func firstPublished() []string {
	var out []string
	for _, subj := range []string{"dieser text", "dieser beitrag", "dieser artikel"} {
		for _, verb := range []string{" wurde", " ist"} {
			for _, when := range []string{"", " zuerst", " erstmals"} {
				for _, part := range []string{" veröffentlicht", " erschienen"} {
					out = append(out, subj+verb+when+part)
				}
			}
		}
	}
	return out
}

// siteNote is one of siteNotes: its text, and whether the word may go on.
type siteNote struct {
	text string
	open bool
}

// siteNotesByFirst are siteNotes by their first byte.
var siteNotesByFirst = sync.OnceValue(func() *[256][]siteNote {
	var t [256][]siteNote
	for _, p := range siteNotes {
		text, open := strings.CutSuffix(p, "*")
		t[text[0]] = append(t[text[0]], siteNote{text, open})
	}
	return &t
})

// followNetworks end a "follow … on …" prompt.
var followNetworks = []string{" on twitter", " on facebook", " on instagram", " on linkedin"}

// hasSiteNote says t holds one of siteNotes, or "follow <name> on
// <network>".
func hasSiteNote(t string) bool {
	l := strings.ToLower(t)
	// Each note starts a word: only where a word starts with a note's
	// first byte is it looked for (one pass, not a scan a note).
	byFirst := siteNotesByFirst()
	for i := 0; i < len(l); i++ {
		for _, p := range byFirst[l[i]] {
			if strings.HasPrefix(l[i:], p.text) && !wordBefore(l, i) && (p.open || !wordAfter(l, i+len(p.text))) {
				return true
			}
		}
	}
	if i := indexWord(l, "follow "); i >= 0 {
		rest := l[i:]
		if len(rest) > 60 {
			rest = rest[:60]
		}
		for _, nw := range followNetworks {
			if strings.Contains(rest, nw) {
				return true
			}
		}
	}
	return false
}

// indexWord is where p first starts at a word boundary in l, or -1.
func indexWord(l, p string) int {
	for off := 0; off < len(l); {
		i := strings.Index(l[off:], p)
		if i < 0 {
			return -1
		}
		if !wordBefore(l, off+i) {
			return off + i
		}
		off += i + 1
	}
	return -1
}

func wordBefore(l string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(l[:i])
	return i > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func wordAfter(l string, i int) bool {
	r, _ := utf8.DecodeRuneInString(l[i:])
	return i < len(l) && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// figureLine matches a caption written in the text: "Abbildung 4: …",
// "Fig. 2 – …".
var figureLine = mustPhraseRE(`(?i)^\W*(?:abbildung|abb\.|figure|fig\.|bild|grafik|tabelle|table|foto|photo)\s*\d+[a-z]?\s*[:.–-]`)

// moreHeadingExtra matches the whole text of a heading that opens what
// follows an article, in phrasings moreHeading does not have.
var moreHeadingExtra = mustPhraseRE(`(?i)^\W*(?:` +
	`(?:weitere|verwandte|ähnliche|passende|neueste|beliebte|aktuelle) \p{L}*(?:artikel|beiträge|themen|links|news|nachrichten|tests|tipps|rezepte|videos)|` +
	`.*\bkönnten? (?:sie|dich|euch) (?:auch )?interessieren.*|(?:noch )?mehr info(?:s|rmationen)?(?: für (?:dich|sie|euch))?|` +
	`auch (?:auf|bei) [\p{L}\p{N}-]+\.\p{L}{2,}|weiterführender? links?|meist(?:-| )?(?:gelesen|diskutiert|kommentiert)\p{L}*|` +
	`most (?:read|popular|viewed|commented|shared)|über (?:diese reihe|den autor|die autorin|die autoren|uns)|about (?:this series|the authors?|us)|sobre (?:el|la) autora?|à propos de l'auteur|o autorze|(?:presse)?kontakt|contact(?: us)?|ansprechpartner(?:in)?(?: zum thema)?|suggested citation|zitiervorschlag|cite this(?: article)?|` +
	`(?:.* )?similar (?:recipes|articles|posts|stories|products)\b.*|` +
	`articles? liés|à lire (?:aussi|également)|(?:\p{L}+ et )?\p{L}+ sur le (?:même )?(?:sujet|thème)` +
	`)[^\p{L}\p{N}]*$`)

// isMoreHeading says t, the whole text of a short heading-like block,
// announces what follows an article (related, more, comments).
func isMoreHeading(t string) bool {
	return moreHeading.MatchString(t) || moreHeadingExtra.MatchString(t)
}

// metaLineExtra matches short meta lines metaLine does not: "Release
// Date: …", "Veröffentlichung: …", "Von: Jane Doe", "3:59 PM",
// "Aufrufe: 1120 | …".
var metaLineExtra = mustPhraseRE(`(?i)^\W*(?:` +
	`(?:\p{L}+ )?date\s*:.*|veröffentlich\p{L}*\b.*|publiziert\b.*|(?:von|by|autor(?:in)?|author)\s*:.*|` +
	`\d{1,2}:\d{2}(?: ?[ap]m| uhr)?|\d{1,2}\.\d{1,2}\.\d{2,4}.*(?:kategorie|category|rubrik|tags?)\s*:.*|(?:aufrufe|views|hinzugefügt(?: von)?)\s*:.*|kommentare insgesamt\b.*` +
	`)$`)

// inlineTags are the elements whose text rules apply only when they stand
// alone in their parent: inside a sentence they are its words.
var inlineTags = map[atom.Atom]bool{
	atom.Span: true, atom.Em: true, atom.Strong: true, atom.Small: true, atom.B: true, atom.Label: true,
}

// standsAlone says n is not inside running text: the nearest sibling on
// either side (past white space) is no text with letters and no inline
// element. A parent holding nothing else counts too.
func standsAlone(n *html.Node) bool {
	for _, step := range []func(*html.Node) *html.Node{
		func(c *html.Node) *html.Node { return c.PrevSibling },
		func(c *html.Node) *html.Node { return c.NextSibling },
	} {
		for c := step(n); c != nil; c = step(c) {
			if c.Type == html.TextNode {
				if strings.TrimSpace(c.Data) == "" {
					continue
				}
				if countLetters(c.Data) > 0 {
					return false
				}
				continue // punctuation: "·", "|"
			}
			if c.Type == html.ElementNode && (inlineTags[c.DataAtom] || c.DataAtom == atom.A || c.DataAtom == atom.I) && countLetters(textOf(c)) > 0 {
				return false
			}
			break
		}
	}
	return true
}

// labelLine matches the whole text of a button or a box's title: "Quellen
// ausblenden", "Show more", "Inhaltsverzeichnis".
var labelLine = mustPhraseRE(`(?i)^\W*(?:` +
	`(?:\p{L}+ )?(?:ausblenden|einblenden)|(?:mehr|weniger|alle) anzeigen|show (?:more|less|all)|mostrar más|voir plus|` +
	`inhaltsverzeichnis|table of contents|spis treści|sommaire|índice` +
	`)\W*$`)

// metaFields says t is a row of "Label: value" fields split by "|", as
// a post's views, author, tags and rating line: "Aufrufe: 1120 |
// Hinzugefügt von: Posh | Tags: …".
func metaFields(t string) bool {
	parts := strings.Split(t, "|")
	if len(parts) < 3 {
		return false
	}
	n := 0
	for _, p := range parts {
		if i := strings.IndexByte(p, ':'); i > 0 && i < 25 && countLetters(p[:i]) > 0 {
			n++
		}
	}
	return n >= 3
}

// isBoilerExtra says n is boilerplate by the extra rules.
func isBoilerExtra(n *html.Node, s textStats, t *blockText) bool {
	if (boilerplateTags[n.DataAtom] || boilerExtraTags[n.DataAtom]) && hasBoilerExtraName(n) ||
		boilerExtraTags[n.DataAtom] && boilerplateNamed(n, true) {
		// (By its class alone: a heading's id is an anchor made of its
		// words, "nav_nur_die_folie", not a kind.)
		return true
	}
	if s.text == 0 || s.text >= 600 {
		return false
	}
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Span, atom.Li, atom.Section, atom.Em, atom.Strong, atom.Small, atom.B, atom.Td, atom.Dd,
		atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Figcaption, atom.Label, atom.Time:
	default:
		return false
	}
	if s.text >= 250 {
		// A "see also" opening a run of links: "Siehe auch <a>…</a> <a>…</a>".
		return s.link*10 > s.text*8 && seeAlso.MatchString(t.text())
	}
	return isBoilerLine(n, s, t.line())
}

// isBoilerLine says n, a block of fewer than 250 letters whose text is t
// on one line, is boilerplate by the extra rules.
func isBoilerLine(n *html.Node, s textStats, t string) bool {
	hit := (s.text < 100 && strings.ContainsRune(t, '©')) || hasSiteNote(t) ||
		(s.text < 160 && figureLine.MatchString(t)) ||
		(s.text < 100 && metaFields(t)) ||
		(s.text < 50 && (metaLineExtra.MatchString(t) || labelLine.MatchString(t) ||
			(!metaTags[n.DataAtom] && n.DataAtom != atom.Td && (metaLine.MatchString(t) || creditLine.MatchString(t))))) ||
		(s.link*10 > s.text*8 && seeAlso.MatchString(t))
	return hit && (!inlineTags[n.DataAtom] || standsAlone(n))
}

// relatedName matches a class or id token of a list of related posts.
var relatedName = lazyRegexp(`^(?:related|relatedposts|yarpp|crp)`)

// isBigRelated says n is a list of related posts that holds more than the
// 2/5 of the text a boilerplate block may (each post with its excerpt,
// under a short article) but not two thirds of it: named so, a list or a
// block, and with some of its text in links.
func isBigRelated(n *html.Node, s textStats, total int) bool {
	switch n.DataAtom {
	case atom.Ul, atom.Ol, atom.Div, atom.Section, atom.Aside:
	default:
		return false
	}
	return s.text*3 <= total*2 && s.link*10 >= s.text && hasNameIn(n, relatedName())
}

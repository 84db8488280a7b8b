package fetch

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/browseragent/browseragent/internal/textutil"
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
var boilerExtraName = regexp.MustCompile(`^(?:` +
	`kommentar|komentarz|comentario|commentaire|` +
	`utility$|disclaimer|disclosure|affiliate|licen[cs]e|` +
	`readingtime|readtime|alert$|linkbox|` +
	`imagedesc|imgdesc|bildunter|bildtext|bildbeschreibung|bildnachweis|legende?$` +
	`)`)

// boilerSubName matches a class or id token that names boilerplate
// anywhere inside it: "BorlabsCookie", "textwidget", "shariff-wrapper".
var boilerSubName = regexp.MustCompile(`cookie|consent|widget|newsletter|breadcrumb`)

// boilerWholeName matches a whole class name (lower-cased, not split) of a
// caption, a picture credit or an embedded post of another site.
var boilerWholeName = regexp.MustCompile(`^(?:` +
	`(?:image|img|bild|photo|foto|picture|media)[-_]*(?:subtitle|description|desc|legend|unterschrift|beschreibung|credit|copyright|source|title)s?|` +
	`instagram-media|tiktok-embed|fb-post|fb-video` +
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
	for _, a := range n.Attr {
		if a.Namespace != "" || (a.Key != "class" && a.Key != "id") {
			continue
		}
		for _, name := range strings.Fields(strings.ToLower(a.Val)) {
			if boilerWholeName.MatchString(name) {
				return true
			}
			toks := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			if len(toks) > 1 && stateWord[toks[0]] {
				continue
			}
			for _, tok := range toks {
				if boilerExtraName.MatchString(tok) || (len(tok) > 8 && boilerSubName.MatchString(tok)) {
					return true
				}
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

// followNetworks end a "follow … on …" prompt.
var followNetworks = []string{" on twitter", " on facebook", " on instagram", " on linkedin"}

// hasSiteNote says t holds one of siteNotes, or "follow <name> on
// <network>".
func hasSiteNote(t string) bool {
	l := strings.ToLower(t)
	for _, p := range siteNotes {
		if containsWord(l, p) {
			return true
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

// containsWord says l holds phrase p starting and (unless p ends in "*")
// ending at a word boundary.
func containsWord(l, p string) bool {
	open := strings.HasSuffix(p, "*")
	p = strings.TrimSuffix(p, "*")
	for off := 0; off < len(l); {
		i := strings.Index(l[off:], p)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(p)
		if !wordBefore(l, i) && (open || !wordAfter(l, end)) {
			return true
		}
		off = i + 1
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
var figureLine = regexp.MustCompile(`(?i)^\W*(?:abbildung|abb\.|figure|fig\.|bild|grafik|tabelle|table|foto|photo)\s*\d+[a-z]?\s*[:.–-]`)

// moreHeadingExtra matches the whole text of a heading that opens what
// follows an article, in phrasings moreHeading does not have.
var moreHeadingExtra = regexp.MustCompile(`(?i)^\W*(?:` +
	`(?:weitere|verwandte|ähnliche|passende|neueste|beliebte|aktuelle) \p{L}*(?:artikel|beiträge|themen|links|news|nachrichten|tests|tipps|rezepte|videos)|` +
	`.*\bkönnten? (?:sie|dich|euch) (?:auch )?interessieren.*|(?:noch )?mehr infos?(?: für (?:dich|sie|euch))?|` +
	`auch (?:auf|bei) [\p{L}\p{N}-]+\.\p{L}{2,}|weiterführender? links?|meist(?:-| )?(?:gelesen|diskutiert|kommentiert)\p{L}*|` +
	`most (?:read|popular|viewed|commented|shared)|suggested citation|zitiervorschlag|cite this(?: article)?|` +
	`(?:.* )?similar (?:recipes|articles|posts|stories|products)|` +
	`articles? liés|à lire (?:aussi|également)|sur le même (?:sujet|thème)|(?:articles? )?(?:et )?vidéos? sur le (?:même )?sujet` +
	`)[^\p{L}\p{N}]*$`)

// isMoreHeading says t, the whole text of a short heading-like block,
// announces what follows an article (related, more, comments).
func isMoreHeading(t string) bool {
	return moreHeading.MatchString(t) || moreHeadingExtra.MatchString(t)
}

// classOnly is n with its class attribute alone: a heading's id is an
// anchor made of its words ("nav_nur_die_folie"), not a kind.
func classOnly(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data}
	if v, ok := attr(n, "class"); ok {
		c.Attr = []html.Attribute{{Key: "class", Val: v}}
	}
	return c
}

// metaLineExtra matches short meta lines metaLine does not: "Release
// Date: …", "Veröffentlichung: …", "Von: Jane Doe", "3:59 PM",
// "Aufrufe: 1120 | …".
var metaLineExtra = regexp.MustCompile(`(?i)^\W*(?:` +
	`(?:\p{L}+ )?date\s*:.*|veröffentlich\p{L}*\b.*|publiziert\b.*|(?:von|by|autor(?:in)?|author)\s*:.*|` +
	`\d{1,2}:\d{2}(?: ?[ap]m| uhr)?|(?:aufrufe|views|hinzugefügt(?: von)?)\s*:.*|kommentare insgesamt\b.*` +
	`)$`)

// inlineTags are the elements whose text rules apply only when they stand
// alone in their parent: inside a sentence they are its words.
var inlineTags = map[atom.Atom]bool{
	atom.Span: true, atom.Em: true, atom.Strong: true, atom.Small: true, atom.B: true, atom.Label: true,
}

// standsAlone says n holds all the letters of its parent.
func standsAlone(n *html.Node, letters int) bool {
	return n.Parent == nil || countLetters(textOf(n.Parent)) == letters
}

// isBoilerExtra says n is boilerplate by the extra rules.
func isBoilerExtra(n *html.Node, s textStats) bool {
	if (boilerplateTags[n.DataAtom] || boilerExtraTags[n.DataAtom]) && hasBoilerExtraName(n) ||
		boilerExtraTags[n.DataAtom] && hasBoilerplateName(classOnly(n)) {
		return true
	}
	if s.text == 0 || s.text >= 160 {
		return false
	}
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Span, atom.Li, atom.Section, atom.Em, atom.Strong, atom.Small, atom.B, atom.Td, atom.Dd,
		atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Figcaption, atom.Label, atom.Time:
	default:
		return false
	}
	t := textutil.OneLine(textOf(n), 0)
	hit := (s.text < 100 && strings.ContainsRune(t, '©')) || figureLine.MatchString(t) || hasSiteNote(t) ||
		(s.text < 50 && (metaLineExtra.MatchString(t) || (!metaTags[n.DataAtom] && n.DataAtom != atom.Td && (metaLine.MatchString(t) || creditLine.MatchString(t)))))
	return hit && (!inlineTags[n.DataAtom] || standsAlone(n, s.text))
}

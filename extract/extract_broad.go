package extract

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page that is not an article holds its content in many blocks: the
// posts of a thread, the cards of a listing, the sections of a landing
// page, a product's description beside its specifications. Readability
// keeps the one block with the most prose and loses the rest; for these
// pages the content is the page's main region without what every page has
// around it (navigation, header, footer, sidebars, cookie and newsletter
// boxes, filters, sorting and pagination).

// chromeName matches a class or id token (split at anything that is not a
// letter or digit, lower case) of a block that is part of the site around
// the content, whatever the kind of page.
var chromeName = mustPhraseRE(`^(?:` +
	`nav$|navbar|navigation|navi$|menu|megamenu|submenu|breadcrumbs?$|sidebar|sidenav|offcanvas|drawer|` +
	`footer|masthead|topbar|skiplink|skip$|` +
	`cookie|consent|gdpr|modal|popup|overlay|newsletter|` +
	`share|sharing|social|pagination|pager$|paging|filters?$|sort$|sorting|sortby|toolbar|` +
	`toc$|tableofcontents|advert|ads$|adsense|sponsor|outbrain|taboola|` +
	`searchbar|searchform|login|signin` +
	`)`)

// chromeRoles are ARIA roles of the site's own parts.
var chromeRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "search": true,
	"complementary": true, "dialog": true, "alertdialog": true, "menu": true, "menubar": true,
}

// broadCopyMax is the largest page (bytes of HTML) whose broad reading is
// made whatever its size when it reads as an article; a bigger one gets it
// only when its main region holds at most broadLettersMax letters. The
// broad reading is a copy of what it keeps (the region without its chrome,
// scripts, styles and pictures), which on a big shop page, most of it
// scripts and JSON, is small, but on a page of text is as big as the tree:
// a 5 MiB page must stay under 100 MiB. Of WCXB's dev pages, 17 are over
// 2 MiB, 16 of them products and collections.
const (
	broadCopyMax    = 2 << 20
	broadLettersMax = 256 << 10
)

// strictTextLen is plainTextLen (letters outside links) without blocks
// named as boilerplate.
func strictTextLen(root *html.Node) int { return lettersUnder(root, namedBoilerplate) }

// namedBoilerplate reports a block whose class or id names boilerplate or
// a gallery.
func namedBoilerplate(n *html.Node) bool { return hasBoilerplateName(n) || hasNameIn(n, galleryName) }

// broadContent is a copy of the page's main region (its <main>, or the
// body) without the site's chrome, and for a thread (a forum or Q&A page)
// without what the board prints around its posts (postFurniture); nil
// when maxLetters > 0 and the region holds more letters (outside links)
// than that. Disclosure widgets are read open (findDisclosures). doc is
// not changed.
func broadContent(doc *html.Node, maxLetters int, thread bool) *html.Node {
	body := findFirst(doc, atom.Body)
	if body == nil {
		return nil
	}
	region := body
	if m := mainRegion(body); m != nil && plainTextLen(m)*3 >= plainTextLen(body) {
		region = m
	}
	total := plainTextLen(region)
	if maxLetters > 0 && total > maxLetters {
		return nil
	}
	// Only what is kept is copied.
	root := shallowClone(region)
	if isHidden(region) {
		unhide(root) // a reader sees the region, whatever a modal's script said
	}
	open := findDisclosures(region)
	type pair struct{ src, dst *html.Node }
	stack := []pair{{region, root}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for c := p.src.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.CommentNode {
				continue
			}
			if c.Type == html.ElementNode && !open[c] && (isChrome(c, region, total) || thread && postFurniture(c, total)) {
				continue
			}
			cc := shallowClone(c)
			if c.Type == html.ElementNode && isHidden(c) {
				unhide(cc) // a hidden block holding most of the region, or an opened panel
			}
			p.dst.AppendChild(cc)
			if c.FirstChild != nil {
				stack = append(stack, pair{c, cc})
			}
		}
	}
	return root
}

// findDisclosures finds, under region, the disclosure widgets a reader
// opens: an accordion's or a tab list's toggle (a button, or an element
// whose role is button or tab, with aria-controls and aria-expanded or
// aria-selected) and the panel it controls, hidden until it is clicked (a
// FAQ's answers, a product's specifications tab). The panel, and an
// accordion's toggle (its header, a FAQ's question; not a tab's label),
// are mapped to true when the panel is not the site's chrome apart from
// its being hidden (a menu button's menu stays out); the caller copies
// them whatever hides them. Nil when the region has none.
func findDisclosures(region *html.Node) map[*html.Node]bool {
	var toggles []*html.Node
	ids := map[string]bool{}
	walk(region, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if id := disclosureTarget(n); id != "" {
			toggles = append(toggles, n)
			ids[id] = true
		}
		return true
	})
	if len(toggles) == 0 {
		return nil
	}
	panels := map[string]*html.Node{}
	walk(region, func(n *html.Node) bool {
		if n.Type == html.ElementNode {
			if id, ok := attr(n, "id"); ok && ids[id] && panels[id] == nil {
				panels[id] = n
			}
		}
		return true
	})
	open := map[*html.Node]bool{}
	for _, t := range toggles {
		p := panels[disclosureTarget(t)]
		if p == nil || !isHidden(p) || p.DataAtom == atom.Nav || p.DataAtom == atom.Dialog || hasChromeName(p) {
			continue
		}
		if r, _ := attr(p, "role"); chromeRoles[strings.ToLower(r)] {
			continue
		}
		open[p] = true
		if _, ok := attr(t, "aria-expanded"); ok {
			open[t] = true // an accordion's header (a FAQ's question); a tab's label is not printed
		}
	}
	return open
}

// disclosureTarget is the id of the panel n opens when n is a disclosure
// toggle, else "".
func disclosureTarget(n *html.Node) string {
	role, _ := attr(n, "role")
	if n.DataAtom != atom.Button && role != "button" && role != "tab" {
		return ""
	}
	_, expanded := attr(n, "aria-expanded")
	_, selected := attr(n, "aria-selected")
	if !expanded && !selected {
		return ""
	}
	id, _ := attr(n, "aria-controls")
	if f := strings.Fields(id); len(f) == 1 {
		return f[0]
	}
	return ""
}

// displayNone says n's own style takes it out of the layout.
func displayNone(n *html.Node) bool {
	s, _ := attr(n, "style")
	return strings.Contains(strings.ReplaceAll(strings.ToLower(s), " ", ""), "display:none")
}

// unhide removes what hides n from a reader of its text (the text
// renderer leaves out an aria-hidden block).
func unhide(n *html.Node) {
	attrs := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Namespace == "" && (a.Key == "hidden" || a.Key == "aria-hidden") {
			continue
		}
		attrs = append(attrs, a)
	}
	n.Attr = attrs
}

// mainRegion is the page's <main> or role=main element, if it has one.
func mainRegion(body *html.Node) *html.Node {
	var found *html.Node
	walk(body, func(n *html.Node) bool {
		if found != nil {
			return false
		}
		if n.Type == html.ElementNode {
			if r, _ := attr(n, "role"); n.DataAtom == atom.Main || r == "main" {
				found = n
				return false
			}
		}
		return true
	})
	return found
}

// isChrome says n is never the content of a page: markup that shows
// nothing, the site's navigation, header and footer, forms, and blocks
// named for such parts.
// A block named as chrome holding most of the region's text (a wrapper
// whose class says "menu-open") is kept and looked into.
func isChrome(n, region *html.Node, total int) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object,
		atom.Embed, atom.Link, atom.Meta, atom.Nav, atom.Select, atom.Button,
		atom.Input, atom.Textarea, atom.Dialog, atom.Canvas, atom.Video, atom.Audio, atom.Picture, atom.Img:
		return true
	case atom.Form, atom.Aside, atom.Header, atom.Footer:
		// A forum wraps its thread in a form (moderation tools), a shop
		// its product options; a search box, a sidebar, the site's header
		// and footer are small. A post's own header stays.
		if (n.DataAtom == atom.Form || n.DataAtom == atom.Aside || !inside(n, region, atom.Article)) && plainTextLen(n)*3 < total {
			return true
		}
	}
	if isHidden(n) && !streamedIn(n) && !(displayNone(n) && plainTextLen(n)*2 >= total) {
		// A block out of the layout holding most of the region is the
		// page itself, which a script shows (an age gate, a store's lock
		// until its scripts run); what else is hidden is a modal, a
		// menu, a tab.
		return true
	}
	if r, _ := attr(n, "role"); chromeRoles[strings.ToLower(r)] {
		return true
	}
	return hasChromeName(n) && plainTextLen(n)*2 < total
}

// postFurniture says n is what a forum prints around each post, not the
// post: the poster's signature, and on a Q&A page the comments on its
// question and answers.
func postFurniture(n *html.Node, total int) bool {
	if commentOnAnswer(n) {
		return true
	}
	return hasSignatureName(n) && !holdsTime(n) && plainTextLen(n)*2 < total
}

// commentOnAnswer says n is marked (schema.org microdata) as a comment on a
// question or an answer of a Q&A page: a remark under a post ("does this
// work on Windows 10?"), not one of the thread's posts. A forum's replies
// marked as comments on its first post are posts and stay. The question's
// scope may hold the page's main region itself.
func commentOnAnswer(n *html.Node) bool {
	p, _ := attr(n, "itemprop")
	if p != "comment" {
		return false
	}
	for a := n.Parent; a != nil; a = a.Parent {
		if t, ok := attr(a, "itemtype"); ok {
			t = strings.ToLower(t)
			if strings.HasSuffix(t, "/answer") || strings.HasSuffix(t, "/question") {
				return true
			}
		}
	}
	return false
}

// hasSignatureName says n's class or id names a signature: the lines a
// forum prints under every post of its poster (a quote, links, their
// gear), which are not the post. A question-and-answer site calls its
// author line (who asked, when) a signature too, which holdsTime tells.
func hasSignatureName(n *html.Node) bool { return classOrIDSays(n, &signatureNames, signatureValue) }

var signatureNames = valueMemo[bool]{max: memoValue}

func signatureValue(v string) bool {
	for _, toks := range splitNames(v).toks {
		for _, tok := range toks {
			if strings.HasPrefix(tok, "signature") || strings.HasPrefix(tok, "postsignature") {
				return true
			}
		}
	}
	return false
}

// holdsTime says a <time> element, or an element named for a time or a
// date, is under n.
func holdsTime(n *html.Node) bool {
	found := false
	walk(n, func(c *html.Node) bool {
		if found || c.Type != html.ElementNode {
			return !found
		}
		if c.DataAtom == atom.Time || classOrIDSays(c, &timeNames, timeValue) {
			found = true
		}
		return !found
	})
	return found
}

var timeNames = valueMemo[bool]{max: memoValue}

func timeValue(v string) bool {
	for _, toks := range splitNames(v).toks {
		for _, tok := range toks {
			if tok == "time" || tok == "date" || tok == "relativetime" || tok == "timestamp" {
				return true
			}
		}
	}
	return false
}

func hasChromeName(n *html.Node) bool { return classOrIDSays(n, &chromeNames, chromeValue) }

var chromeNames = valueMemo[bool]{max: memoValue}

// chromeValue says the class or id value v names the site's chrome.
func chromeValue(v string) bool {
	c := splitNames(v)
	for _, toks := range c.toks {
		if len(toks) > 1 && stateWord[toks[0]] {
			continue // "has-sidebar", "no-menu": a state, not a kind
		}
		for _, tok := range toks {
			if chromeName.MatchString(tok) {
				return true
			}
		}
	}
	return false
}

// inside says an ancestor of n, up to region, is an element a.
func inside(n, region *html.Node, a atom.Atom) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == a {
			return true
		}
		if p == region {
			break
		}
	}
	return false
}

// streamedIn says n is a hidden block a React server streams its content
// in (<div hidden id="S:1">), which its script moves into the page.
func streamedIn(n *html.Node) bool {
	id, _ := attr(n, "id")
	if len(id) < 3 || id[:2] != "S:" {
		return false
	}
	for _, r := range id[2:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// dropHeadline removes, from the start of a broad reading, the heading
// that repeats the page's title and the line that gives its byline: the
// article reading leaves both out (they are the Result's Title and
// Byline), and -f text prints the body only. Only what comes before the
// first other text is looked at.
func dropHeadline(root *html.Node, title, byline string) {
	title, byline = normSpaceLower(title), normSpaceLower(byline)
	for range 3 {
		first := firstLetterText(root)
		if first == nil {
			return
		}
		var drop *html.Node
		for n := first.Parent; n != nil && n != root; n = n.Parent {
			if n.Type != html.ElementNode {
				continue
			}
			t := normSpaceLower(textOf(n))
			switch {
			case title != "" && n.DataAtom == atom.H1 && t == title:
				drop = n
			case byline != "" && (t == byline || t == "by "+byline):
				drop = n
			}
			if drop != nil || isBlock(n.DataAtom) {
				break
			}
		}
		if drop == nil {
			return
		}
		drop.Parent.RemoveChild(drop)
	}
}

// firstLetterText is the first text node under root that shows a letter or digit.
func firstLetterText(root *html.Node) *html.Node {
	var found *html.Node
	walk(root, func(n *html.Node) bool {
		if found != nil {
			return false
		}
		if n.Type == html.TextNode && strings.IndexFunc(n.Data, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			found = n
			return false
		}
		return true
	})
	return found
}

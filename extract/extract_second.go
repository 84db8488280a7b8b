package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Readability scores paragraphs and picks the best-scoring ancestor; on a
// page whose article is split into many small blocks, or that carries a
// big table or list beside it, it can pick the wrong part. The second
// opinion is the element the page itself names as its article body (by
// its class, id, itemprop or tag), cleaned the same way. chooseArticle
// takes it when readability's pick is much smaller than it, or is mostly
// links.

// containerNames are class/id values naming the article's body, most
// specific first: a page is judged by the first tier that matches.
var containerTiers = []*phraseRE{
	mustPhraseRE(`(?:^|[^a-z])(?:article|entry|post|story|blog|news|single)[-_]{0,2}(?:body|content|text|entry|inner)|articlebody|` +
		`(?:^|[^a-z])(?:body|content)[-_]?(?:text|copy)(?:$|[^a-z])|fulltext|rich[-_]?text|field[-_]body`),
	mustPhraseRE(`(?:^|[^a-z])(?:main|page|site)[-_]?content|content[-_]?(?:main|body|area|wrapper|inner)|(?:^|[^a-z])content(?:$|[^a-z])|(?:^|[^a-z])(?:article|post|entry|story)(?:$|[^a-z])`),
}

// containerTier is the first of containerTiers n's class and id match,
// or -1.
func containerTier(n *html.Node) int {
	return containerTierMemo.get(strings.ToLower(attrOr(n, "class")+" "+attrOr(n, "id")), func(names string) int {
		for i, re := range containerTiers {
			if re.MatchString(names) {
				return i
			}
		}
		return -1
	})
}

var containerTierMemo = valueMemo[int]{max: memoValue}

// findContainer returns the element the page names as its article body,
// or nil.
func findContainer(doc *html.Node) *html.Node {
	var byTier [3][]*html.Node // the tiers, then <article>/<main>
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Head, atom.Nav, atom.Footer, atom.Aside, atom.Form:
			return false
		case atom.Div, atom.Section, atom.Article, atom.Main, atom.Td:
		default:
			return true
		}
		if v, _ := attr(n, "itemprop"); strings.EqualFold(v, "articleBody") {
			byTier[0] = append(byTier[0], n)
			return true
		}
		if i := containerTier(n); i >= 0 {
			byTier[i] = append(byTier[i], n)
			return true
		}
		if n.DataAtom == atom.Article || n.DataAtom == atom.Main {
			byTier[2] = append(byTier[2], n)
		}
		return true
	})
	for _, cands := range byTier {
		var best *html.Node
		bestLen := 0
		for _, c := range cands {
			if l := plainTextLen(c); l > bestLen {
				best, bestLen = c, l
			}
		}
		if best != nil && bestLen >= 200 {
			return best
		}
	}
	return nil
}

// namesArticleBody says doc has an element it names as an article's body
// (itemprop=articleBody, a class such as article-body or entry-content):
// a page declared a product or a listing that says so is an article about
// one.
func namesArticleBody(doc *html.Node) bool {
	found := false
	walk(doc, func(n *html.Node) bool {
		if found || n.Type != html.ElementNode {
			return !found
		}
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Head, atom.Nav, atom.Footer, atom.Aside, atom.Form:
			return false
		case atom.Div, atom.Section, atom.Article, atom.Main, atom.Td:
			if v, _ := attr(n, "itemprop"); strings.EqualFold(v, "articleBody") || containerTier(n) == 0 {
				found = plainTextLen(n) >= 200
			}
		}
		return !found
	})
	return found
}

func attrOr(n *html.Node, key string) string {
	v, _ := attr(n, key)
	return v
}

// plainTextLen is the letters under n outside links and outside what is
// never content.
func plainTextLen(n *html.Node) int { return lettersUnder(n, nil) }

// lettersUnder is plainTextLen leaving out, too, every block below root
// that skip reports (nil skips none).
func lettersUnder(root *html.Node, skip func(*html.Node) bool) int {
	l := 0
	walk(root, func(c *html.Node) bool {
		switch c.Type {
		case html.TextNode:
			l += countLetters(c.Data)
		case html.ElementNode:
			if nonContent[c.DataAtom] || (c.DataAtom == atom.A && !isAnchorLink(c)) {
				return false
			}
			if skip != nil && c != root && skip(c) {
				return false
			}
		}
		return true
	})
	return l
}

// cloneTree deep-copies n (without parent or siblings).
func cloneTree(n *html.Node) *html.Node {
	root := shallowClone(n)
	type pair struct{ src, dst *html.Node }
	stack := []pair{{n, root}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for c := p.src.FirstChild; c != nil; c = c.NextSibling {
			cc := shallowClone(c)
			p.dst.AppendChild(cc)
			if c.FirstChild != nil {
				stack = append(stack, pair{c, cc})
			}
		}
	}
	return root
}

func shallowClone(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace}
	if len(n.Attr) > 0 {
		c.Attr = append([]html.Attribute(nil), n.Attr...)
	}
	return c
}

// cleanContainer drops from a container what is never its text: scripts
// and the like, navigation, hidden elements, then pruneArticle's
// boilerplate.
func cleanContainer(root *html.Node) {
	var drop []*html.Node
	walk(root, func(n *html.Node) bool {
		if n == root {
			return true
		}
		switch n.Type {
		case html.CommentNode:
			drop = append(drop, n)
			return false
		case html.ElementNode:
		default:
			return true
		}
		if nonContent[n.DataAtom] || n.DataAtom == atom.Nav || n.DataAtom == atom.Footer ||
			n.DataAtom == atom.Aside || n.DataAtom == atom.Form || n.DataAtom == atom.Button ||
			n.DataAtom == atom.Select || n.DataAtom == atom.Input || isHidden(n) {
			drop = append(drop, n)
			return false
		}
		return true
	})
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
	dropBigGallery(root)
	pruneArticle(root)
}

// dropBigGallery removes from the second opinion a slideshow holding more
// than half its text: a gallery of other stories' pictures with their
// captions ("Business news in pictures", 50 slides) set inside the
// article's body, which would win the second opinion its place by its
// length alone. A recipe's few captioned photos stay.
func dropBigGallery(root *html.Node) {
	var galleries []*html.Node
	walk(root, func(n *html.Node) bool {
		if n != root && n.Type == html.ElementNode && hasNameIn(n, galleryName) {
			galleries = append(galleries, n)
			return false
		}
		return true
	})
	if len(galleries) == 0 {
		return
	}
	total := plainTextLen(root)
	for _, g := range galleries {
		if plainTextLen(g)*2 > total {
			g.Parent.RemoveChild(g)
		}
	}
}

// galleryName matches a class or id token of a slideshow: its slides'
// captions are not the article's text, and they would make the second
// opinion longer than readability's pick by their count alone.
var galleryName = mustPhraseRE(`^(?:gallery|slideshow|carousel)`)

// isHidden says n is not shown: the hidden attribute, aria-hidden, or an
// inline display:none / visibility:hidden.
func isHidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "style":
			s := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// secondOpinion is the container's copy, made before readability changes
// the tree, and cleaned (cleanContainer) only when it is looked at: on most
// pages readability's pick holds so much of the text that the container
// could not win whatever its cleaning leaves, and cleaning it is as dear
// as pruning the pick.
type secondOpinion struct {
	raw   *html.Node
	clean bool
}

// newSecondOpinion copies container; nil for none.
func newSecondOpinion(container *html.Node) *secondOpinion {
	if container == nil {
		return nil
	}
	return &secondOpinion{raw: cloneTree(container)}
}

// cleaned is the copy after cleanContainer (done on the first call).
func (s *secondOpinion) cleaned() *html.Node {
	if !s.clean {
		cleanContainer(s.raw)
		s.clean = true
	}
	return s.raw
}

// chooseArticle is readability's pick, or the second opinion when that
// holds more than twice its text outside links: readability then took one
// part of a page whose article is split into many blocks (or a table or a
// list beside it). The second opinion also wins when readability's pick
// lies in a block named as never the article (a cookie notice, an author
// box, the comments, a sidebar widget) outside the second opinion's
// element.
func chooseArticle(first *html.Node, second *secondOpinion, container *html.Node, idx *docPositions) *html.Node {
	if second == nil {
		return first
	}
	l1 := plainTextLen(first)
	wins := func(c *html.Node) bool { return plainTextLen(c) > 2*l1 || listPick(first, c, container, idx) }
	// Cleaning only removes: a copy that cannot win before it cannot after.
	if wins(second.raw) && wins(second.cleaned()) {
		return second.raw
	}
	orig := idx.origin(first)
	if orig.n == nil {
		return first
	}
	// Up to the body: the classes of <html> and <body> are the page's
	// flags ("flag-unfollowComments-on", "has-sidebar"), not a block's kind.
	for n := orig.n.Parent; n != nil && n != container && n.DataAtom != atom.Body && n.DataAtom != atom.Html; n = n.Parent {
		if n.Type == html.ElementNode && n.DataAtom != atom.Body && n.DataAtom != atom.Main && n.DataAtom != atom.Article && hasNameIn(n, wrongPickName) && !hasNameIn(n, liveName()) {
			return second.cleaned()
		}
	}
	return first
}

// wrongPickName matches a class or id token of a block that is never the
// article, however much text it has.
var wrongPickName = mustPhraseRE(`^(?:cookie|consent|gdpr|comments?$|commentlist|disqus|respond$|author|newsletter|subscri|sidebar|widget)`)

// liveName matches a token of a live ticker's blocks: their "comments"
// are the reporter's.
var liveName = lazyRegexp(`^(?:live|liveblog|ticker)`)

// hasNameIn says a token of n's class or id matches re.
func hasNameIn(n *html.Node, re interface{ MatchString(string) bool }) bool {
	for _, a := range n.Attr {
		if a.Namespace != "" || (a.Key != "class" && a.Key != "id") {
			continue
		}
		for _, toks := range splitNames(a.Val).toks {
			for _, tok := range toks {
				if re.MatchString(tok) {
					return true
				}
			}
		}
	}
	return false
}

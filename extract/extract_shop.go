package extract

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/browseragent/browseragent/internal/textutil"
)

// A product page shows, beside its product, other products: related,
// recently viewed, "you may also like", sponsored, bought together. Both
// readings of a product page leave them out: a block named for one of
// them, or opened by a heading that says it is one, as long as it holds
// less than half of the reading's text. Its customer reviews are left
// out too, a block named for them (id="reviews", "product-reviews",
// "customerReviews"), as long as it holds less than four fifths of the
// text: they are often most of a product page's words, and WCXB's dev
// pages leave them out (product 0.658 -> 0.688, trees refitted). An
// "editorialReviews" block (a critic's quote) is not named so and stays;
// a heading rule ("Customer reviews", "Reviews (159)") moved nothing and
// a bare "Reviews" heading opened a brand's own quotes and a comparison
// table's row.

// shopExtraName matches a class or id token (or a name's tokens run
// together) of such a block, or of what the shop puts around its
// product: a carousel (pictures, testimonials, other products), the legal
// fine print, a promotion's banner, the badges on a picture. Held to the
// same half of the text, these lift WCXB's dev products 0.687 -> 0.701
// (held out by domain 0.646 -> 0.668), trees refitted; a landing page
// read as a product loses its carousel of case studies (0.89 -> 0.78).
var shopExtraName = mustPhraseRE(`^(?:` +
	`upsells?$|crosssells?$|recommend|related$|relatedproducts?|recentlyviewed|alsoviewed|alsobought|similarproducts?|similaritems?|` +
	`carousel$|legal$|disclaimers?$|banners?$|badges?$` +
	`)`)

// shopExtraHeading matches the whole text of a heading that opens such a
// block.
var shopExtraHeading = mustPhraseRE(`(?i)^\W*(?:` +
	`you (?:may|might|will) also (?:like|love|enjoy|need)|you may be interested in|` +
	`related (?:products|items)|similar (?:products|items)|compare (?:with )?similar (?:products|items)|` +
	`(?:customers|people|shoppers) (?:also|who) (?:viewed|bought|purchased|searched|liked).*|` +
	`frequently bought together|recently viewed(?: products| items)?|more from (?:this|the) (?:seller|brand|shop|store|collection)|` +
	`sponsored (?:products|items)(?: related to this item)?|products related to this item.*|complete the look|shop the look` +
	`)\W*$`)

// pruneShopReading prunes root, a reading of a page of kind, as a shop's
// page: a product without the other products, a product or a grid without
// the controls on its cards.
func pruneShopReading(root *html.Node, kind PageType) {
	if kind == PageProduct {
		pruneShop(root)
	}
	if kind == PageProduct || kind == PageCollection {
		pruneShopCards(root)
	}
}

// pruneShop removes the other products from root, a reading of a product
// page.
func pruneShop(root *html.Node) {
	stats := map[*html.Node]textStats{}
	total := measure(root, stats).text
	if total == 0 {
		return
	}
	small := func(n *html.Node) bool { return stats[n].text*2 < total }
	var drop []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n == root {
			return true
		}
		if classOrIDSays(n, &shopNames, shopExtraValue) && small(n) ||
			classOrIDSays(n, &reviewNames, reviewValue) && stats[n].text*5 < total*4 {
			drop = append(drop, n)
			return false
		}
		if s := stats[n]; headingLike[n.DataAtom] || n.DataAtom == atom.H1 {
			if s.text == 0 || s.text > 60 || s.link == s.text || !shopExtraHeading.MatchString(textutil.OneLine(textOf(n), 0)) {
				return true
			}
			drop = append(drop, shopSection(n, root, stats, total)...)
			return false
		}
		return true
	})
	for _, n := range drop {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

var shopNames = valueMemo[bool]{max: memoValue}

// reviewName matches a class or id token of a product's customer reviews
// (a token that is one name run together, "customerReviews", too).
var reviewName = mustPhraseRE(`^(?:reviews$|customerreviews|productreviews|ratingsandreviews|reviewsandratings)`)

var reviewNames = valueMemo[bool]{max: memoValue}

// reviewValue says the class or id value v names a product's customer
// reviews.
func reviewValue(v string) bool {
	for _, toks := range splitNames(v).toks {
		for _, tok := range toks {
			if reviewName.MatchString(tok) {
				return true
			}
		}
	}
	return false
}

// shopExtraValue says the class or id value v names a block of other
// products.
func shopExtraValue(v string) bool {
	for _, toks := range splitNames(v).toks {
		if len(toks) > 1 && stateWord[toks[0]] {
			continue
		}
		joined := ""
		for _, tok := range toks {
			joined += tok
			if shopExtraName.MatchString(tok) {
				return true
			}
		}
		if len(toks) > 1 && shopExtraName.MatchString(joined) {
			return true // "recently-viewed", "cross-sell", "customer-reviews"
		}
	}
	return false
}

// shopSection is what heading h opens: the largest block around it whose
// text starts with it and is less than half the reading's; when that is
// the heading alone, the heading and its following siblings up to the
// next heading.
func shopSection(h, root *html.Node, stats map[*html.Node]textStats, total int) []*html.Node {
	sec := h
	for p := h.Parent; p != nil && p != root; p = p.Parent {
		if stats[p].text*2 >= total || firstLetterText(p) != firstLetterText(h) {
			break
		}
		sec = p
	}
	if sec != h && stats[sec].text > stats[h].text {
		return []*html.Node{sec}
	}
	out := []*html.Node{h}
	text := stats[h].text
	for s := h.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode && (isHeading(s) || findHeading(s) != nil) {
			break
		}
		text += stats[s].text
		if text*2 >= total {
			return []*html.Node{h}
		}
		out = append(out, s)
	}
	return out
}

func isHeading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// findHeading is the first h1–h6 under n.
func findHeading(n *html.Node) *html.Node {
	var found *html.Node
	walk(n, func(c *html.Node) bool {
		if found != nil {
			return false
		}
		if c != n && c.Type == html.ElementNode && isHeading(c) {
			found = c
			return false
		}
		return true
	})
	return found
}

// shopControl matches the whole text of a shop's control drawn as a link
// or a label on every card of a grid and beside every product: what it
// does, not what is sold.
var shopControl = mustPhraseRE(`(?i)^\W*(?:` +
	`quick (?:shop|view|add|buy)|add to (?:cart|bag|basket|wish ?list|favou?rites|compare|registry)|compare|` +
	`(?:select|choose|view) options|notify me(?: when (?:available|back in stock))?|` +
	`be the first to review this product|write a review|more options|view details|see details` +
	`)\W*$`)

// pruneShopCards removes, from root, a reading of a product or a grid of
// products, the controls every card repeats (shopControl), a block whose
// text repeats one of the three blocks before it (a card's name in its
// picture's link, its heading and a hidden label), and a block of
// shopRepeatLen bytes or more whose text is an earlier block's (a
// product's description in its tab and again in the mobile layout's
// accordion, a banner shown twice).
func pruneShopCards(root *html.Node) {
	var drop []*html.Node
	var recent [3]string
	next := 0
	seen := map[string]bool{}
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n == root {
			return true
		}
		if hasBlockChild(n) {
			return true
		}
		t := normSpaceLower(textOf(n))
		if t == "" {
			return false
		}
		if len(t) <= 64 && shopControl.MatchString(t) {
			drop = append(drop, n)
			return false
		}
		if len(t) >= shopRepeatLen {
			if seen[t] {
				drop = append(drop, n)
				return false
			}
			seen[t] = true
		}
		for _, r := range recent {
			if r == t {
				drop = append(drop, n)
				return false
			}
		}
		recent[next] = t
		next = (next + 1) % len(recent)
		return false
	})
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// shopRepeatLen is the shortest text (normalised, in bytes) that
// pruneShopCards leaves out wherever it comes again: a shorter one ("Black",
// "$20.00", "Size") is told again by other cards.
const shopRepeatLen = 20

// hasBlockChild says an element child of n is a block.
func hasBlockChild(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (isBlock(c.DataAtom) || c.DataAtom == 0 && c.Data != "") {
			return true
		}
	}
	return false
}

package extract

import (
	"encoding/json"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// PageType is the kind of page a result was read as, which decides how its
// main content is found: an article is one container of prose, the others
// hold their content in many blocks (posts, cards, sections).
type PageType string

const (
	PageArticle       PageType = "article"
	PageForum         PageType = "forum"      // a thread of posts, a Q&A page
	PageProduct       PageType = "product"    // one thing for sale
	PageCollection    PageType = "collection" // a grid of products
	PageListing       PageType = "listing"    // an index of articles, courses, jobs …
	PageDocumentation PageType = "documentation"
	PageService       PageType = "service" // a landing page: hero, features, pricing, FAQ
)

// itemized says a page of this kind is one thing or a list of things
// (a product, a grid of products, a listing) whose words are short: its
// scripts' prose is not its missing article but the shop's terms, a
// size guide, other items' descriptions (WCXB dev: listing 0.705 ->
// 0.729, product 0.623 -> 0.630 without it, articles unchanged).
func (t PageType) itemized() bool {
	return t == PageProduct || t == PageCollection || t == PageListing
}

// pageSignals are what classifyPage reads of a page before extraction.
type pageSignals struct {
	ldTypes  map[string]bool // JSON-LD and microdata @type values, lower case
	ldTop    map[string]bool // of them, those of a JSON-LD block's own item (not a property's value)
	ogType   string
	path     string // the URL's path, lower case
	host     string
	pre      int // <pre> blocks
	articles int // <article> elements
	// articleMax and articleSum are the letters of the longest <article>
	// and of all of them: a listing's are alike, a page's one article
	// beside its teasers is most of them.
	articleMax, articleSum int
	prices                 int // elements named or marked as a price
	cart                   bool
	posts                  int // blocks named as a post, comment, reply or message
	// heads are the h2-h4 headings outside the site's header, footer,
	// navigation and sidebars, teasers those of them that are links (a
	// card's title), longParas the paragraphs of 400 letters or more.
	heads, teasers, longParas int
}

// classifyPage says what kind of page doc is, from its structured data
// (JSON-LD, microdata, og:type), its URL and the shape of its DOM. Every
// page it cannot place is an article, which is how it was read before.
// declared says the page's structured data (or a forum's host name) names
// a kind other than an article: the verdict is the page's own, not a guess
// from its URL path or its shape (a blog's comments look like a thread's
// posts).
func classifyPage(doc *html.Node, pageURL string, ps *pageScripts) (t PageType, declared bool) {
	s := readSignals(doc, pageURL, ps)
	t = s.classify()
	declared = t != PageArticle && (s.ogType == "product" || t == PageForum && s.forumHost() || s.ld("qapage", "discussionforumposting", "product", "productgroup",
		"techarticle", "apireference", "collectionpage", "itemlist", "offercatalog", "searchresultspage",
		"service", "localbusiness", "professionalservice", "faqpage", "webapplication", "softwareapplication"))
	return t, declared
}

func (s *pageSignals) classify() PageType {
	switch {
	case s.ld("qapage", "discussionforumposting", "socialmediaposting") || s.ld("question") && !s.ld("faqpage"):
		return PageForum
	case s.ld("product", "productgroup", "offer", "aggregateoffer") && !s.ld("itemlist", "collectionpage", "offercatalog") && !s.articleDeclared():
		return PageProduct
	case s.ld("techarticle", "apireference", "softwaresourcecode"):
		return PageDocumentation
	case s.ld(articleTypes...) || s.ogType == "article":
		if s.forumPath() {
			return PageForum
		}
		return PageArticle
	case s.forumPath() || s.posts >= 4:
		return PageForum
	case s.ogType == "product" || productPath(s.path):
		return PageProduct
	case s.docsPath():
		return PageDocumentation
	case s.ld("collectionpage", "itemlist", "offercatalog", "searchresultspage") || collectionPath(s.path):
		if s.prices >= 3 || s.cart {
			return PageCollection
		}
		return PageListing
	case s.prices >= 6:
		return PageCollection
	case s.articles >= 4 && s.articleMax*3 < s.articleSum:
		return PageListing
	case s.teaserIndex():
		return PageListing
	case s.pre >= 3:
		return PageDocumentation
	case s.ld("service", "organization", "localbusiness", "professionalservice", "faqpage", "webapplication", "softwareapplication"):
		return PageService
	}
	return PageArticle
}

// teaserIndex says the page is an index of teasers: a dozen headings or
// more, most of them links to what they announce, and no paragraph an
// article would have: a news front page, a blog's home. Of WCXB's dev
// pages it recognises 8 more listings (23% -> 31%), and reads 3
// collections and 1 article as listings too.
func (s *pageSignals) teaserIndex() bool {
	return s.teasers >= 12 && s.longParas == 0 && s.teasers*10 >= s.heads*7
}

// countHeading counts an h2-h4 heading outside the site's chrome, and as
// a teaser when it is a link or mostly a link's text.
func (s *pageSignals) countHeading(n *html.Node) {
	inLink := false
	for a := n.Parent; a != nil; a = a.Parent {
		switch a.DataAtom {
		case atom.Nav, atom.Header, atom.Footer, atom.Aside:
			return
		case atom.A:
			inLink = true
		}
	}
	s.heads++
	all, linked := 0, 0
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			all += countLetters(c.Data)
		}
		return true
	})
	walk(n, func(c *html.Node) bool {
		if c.Type == html.ElementNode && c.DataAtom == atom.A {
			linked += countLetters(textOf(c))
			return false
		}
		return true
	})
	if all > 0 && (inLink || linked*2 > all) {
		s.teasers++
	}
}

// articleTypes are the JSON-LD types of an article.
var articleTypes = []string{"newsarticle", "blogposting", "article", "reportagenewsarticle", "recipe", "review"}

// articleDeclared says the structured data names an article. A Review
// that is a property's value counts only on a page that sells nothing
// (no "add to cart", no og:type product): a product's reviews are
// Reviews too (of WCXB's dev products, 16 were read as articles for them).
func (s *pageSignals) articleDeclared() bool {
	for _, t := range articleTypes {
		if s.ldTypes[t] && (t != "review" || s.ldTop[t] || !s.cart && !strings.HasPrefix(s.ogType, "product")) {
			return true
		}
	}
	return false
}

func (s *pageSignals) ld(types ...string) bool {
	for _, t := range types {
		if s.ldTypes[t] {
			return true
		}
	}
	return false
}

func (s *pageSignals) forumPath() bool {
	return hasSegment(s.path, "forum", "forums", "thread", "threads", "topic", "topics", "questions", "discussion", "discussions", "community", "t", "viewtopic.php", "showthread.php") ||
		s.forumHost() || strings.Contains(s.path, "/r/") && strings.Contains(s.path, "/comments/")
}

// forumHost says the site is a forum by its name.
func (s *pageSignals) forumHost() bool {
	return strings.HasPrefix(s.host, "forum.") || strings.HasPrefix(s.host, "forums.") || strings.HasPrefix(s.host, "community.") ||
		strings.HasPrefix(s.host, "discuss.") || strings.HasSuffix(s.host, "stackexchange.com") || s.host == "stackoverflow.com"
}

func (s *pageSignals) docsPath() bool {
	return strings.HasPrefix(s.host, "docs.") || strings.HasPrefix(s.host, "developer.") || strings.HasPrefix(s.host, "learn.") ||
		hasSegment(s.path, "docs", "doc", "documentation", "api", "reference", "manual", "handbook", "guide", "guides", "usersguide", "howto", "tutorial", "tutorials", "wiki")
}

func productPath(p string) bool {
	return hasSegment(p, "product", "products", "dp", "p", "item", "itm", "shop-item")
}

func collectionPath(p string) bool {
	return hasSegment(p, "collections", "collection", "category", "categories", "c", "shop", "catalog", "catalogue", "browse", "search", "list", "listing", "listings", "courses", "jobs", "events", "tag", "archive")
}

// hasSegment says one of path's segments is one of names.
func hasSegment(path string, names ...string) bool {
	for _, seg := range strings.Split(path, "/") {
		for _, n := range names {
			if seg == n {
				return true
			}
		}
	}
	return false
}

func readSignals(doc *html.Node, pageURL string, ps *pageScripts) *pageSignals {
	s := &pageSignals{ldTypes: map[string]bool{}, ldTop: map[string]bool{}}
	if u, err := url.Parse(pageURL); err == nil {
		s.path = strings.ToLower(u.EscapedPath())
		s.host = strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	}
	if ps != nil {
		for _, sc := range ps.scripts {
			if t, _ := attr(sc, "type"); strings.EqualFold(strings.TrimSpace(t), "application/ld+json") {
				ldTypes(textOf(sc), s.ldTypes, s.ldTop)
			}
		}
	}
	var canonical string // the page's own URL, as its <link rel=canonical> or og:url says
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Template, atom.Svg, atom.Noscript:
			return false
		case atom.Link:
			if r, _ := attr(n, "rel"); strings.EqualFold(strings.TrimSpace(r), "canonical") {
				canonical = firstNonEmpty(canonical, attrOr(n, "href"))
			}
		case atom.Meta:
			switch p, _ := attr(n, "property"); p {
			case "og:type":
				c, _ := attr(n, "content")
				s.ogType = strings.ToLower(strings.TrimSpace(c))
			case "og:url":
				canonical = firstNonEmpty(canonical, attrOr(n, "content"))
			}
		case atom.Pre:
			s.pre++
		case atom.H2, atom.H3, atom.H4:
			s.countHeading(n)
		case atom.P:
			if plainTextLen(n) >= 400 {
				s.longParas++
			}
		case atom.Article:
			s.articles++
			l := plainTextLen(n)
			s.articleMax, s.articleSum = max(s.articleMax, l), s.articleSum+l
		case atom.Button, atom.A, atom.Input:
			if !s.cart && cartWords(n) {
				s.cart = true
			}
		}
		for _, a := range n.Attr {
			switch a.Key {
			case "itemtype":
				t := strings.ToLower(a.Val)
				if i := strings.LastIndexByte(t, '/'); i >= 0 {
					s.ldTypes[t[i+1:]] = true
				}
			case "itemprop":
				if a.Val == "price" {
					s.prices++
				}
			case "class":
				s.countClass(n, a.Val)
			}
		}
		return true
	})
	if localHost(s.host) {
		s.host = canonicalHost(canonical, s.host)
	}
	return s
}

// localHost says host names no site: a loopback or private address, an
// IP address, localhost, or nothing (a page saved to disk, served from a
// local mirror or a test server).
func localHost(host string) bool {
	if host == "" || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	return ipAddress(host)
}

// ipAddress says host is written as an IP address: four dot-separated
// numbers, or IPv6 (hex digits and colons, maybe a dotted tail or a zone).
// extract imports no network package (layers_test.go), net/netip neither.
func ipAddress(host string) bool {
	if strings.Contains(host, ":") {
		addr, _, _ := strings.Cut(host, "%")
		return strings.Trim(addr, "0123456789abcdefABCDEF:.") == ""
	}
	parts := strings.Split(host, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// canonicalHost is the host of the page's canonical URL (without "www."),
// or host when it names none.
func canonicalHost(canonical, host string) string {
	u, err := url.Parse(strings.TrimSpace(canonical))
	if err != nil || u.Hostname() == "" || localHost(strings.ToLower(u.Hostname())) {
		return host
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// countClass counts a price or a post block by its class tokens.
func (s *pageSignals) countClass(n *html.Node, class string) {
	for _, name := range strings.Fields(strings.ToLower(class)) {
		switch {
		case name == "price" || strings.HasSuffix(name, "-price") || strings.HasSuffix(name, "_price") || strings.HasPrefix(name, "price-item") || name == "product-price":
			s.prices++
			return
		case n.DataAtom == atom.Div || n.DataAtom == atom.Article || n.DataAtom == atom.Li:
			if postName[name] {
				s.posts++
				return
			}
		}
	}
}

// postName are the class names of one post of a thread.
var postName = map[string]bool{
	"post": true, "forum-post": true, "postbit": true, "message": true, "messagelist-item": true,
	"answer": true, "topic-post": true, "reply": true, "post-message": true, "js-post": true,
	"bbpost": true, "postcontainer": true, "comment-body": true, "message-body": true, "cpost": true,
}

// cartWords says a button or link reads "add to cart" (or bag, basket).
func cartWords(n *html.Node) bool {
	t := strings.ToLower(textOf(n))
	if v, ok := attr(n, "value"); ok {
		t += " " + strings.ToLower(v)
	}
	if len(t) > 60 {
		return false
	}
	return strings.Contains(t, "add to cart") || strings.Contains(t, "add to bag") || strings.Contains(t, "add to basket") || strings.Contains(t, "buy now")
}

// ldTypes adds the @type values of a JSON-LD block, at any depth, to into,
// and those of the block's own items (the block, the items of its array or
// its @graph) to top as well.
func ldTypes(raw string, into, top map[string]bool) {
	var v any
	if json.Unmarshal([]byte(strings.TrimSpace(raw)), &v) != nil {
		return
	}
	var visit func(v any, depth int, own bool)
	visit = func(v any, depth int, own bool) {
		if depth > 6 {
			return
		}
		add := func(ty string) {
			into[strings.ToLower(ty)] = true
			if own {
				top[strings.ToLower(ty)] = true
			}
		}
		switch t := v.(type) {
		case map[string]any:
			switch ty := t["@type"].(type) {
			case string:
				add(ty)
			case []any:
				for _, x := range ty {
					if s, ok := x.(string); ok {
						add(s)
					}
				}
			}
			for k, c := range t {
				if k != "@type" && k != "articleBody" && k != "text" && k != "description" {
					visit(c, depth+1, own && k == "@graph")
				}
			}
		case []any:
			for _, c := range t {
				visit(c, depth+1, own)
			}
		}
	}
	visit(v, 0, true)
}

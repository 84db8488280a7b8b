package extract

import (
	"bytes"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Options choose what Extract keeps. The zero value keeps the main
// content only.
type Options struct {
	// Select, when set, is a CSS selector: the result holds every matching
	// node instead of the readability main content.
	Select string
	// Links collects the page's absolute http(s) links (only those inside
	// the selected nodes when Select is set).
	Links bool

	// pageType, when set, replaces classifyPage's verdict (tuning tests).
	pageType PageType
	// reading, when set, forces the article or the broad reading and
	// keeps the chooser's features in the result (the chooser's trainer).
	reading readingChoice
}

// Extract finds the main content of an HTML page that is already UTF-8 (the
// browser's rendered DOM, or a body Fetch decoded). pageURL resolves
// relative links. Invalid UTF-8 is replaced, never rejected.
func Extract(page []byte, pageURL string, opts *Options) (*Result, error) {
	r := &Result{URL: pageURL, FinalURL: pageURL, Kind: KindHTML, Charset: "utf-8", RawBytes: len(page), TotalBytes: -1}
	if !utf8.Valid(page) {
		n := countInvalid(page)
		page = bytes.ToValidUTF8(page, []byte("\uFFFD"))
		r.warn(plural(n, "byte") + " of invalid UTF-8 replaced with U+FFFD")
	}
	if err := r.extractHTML(page, pageURL, opts); err != nil {
		return r, err
	}
	return r, nil
}

func (r *Result) extractHTML(page []byte, pageURL string, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return newError(errParse, pageURL, err, "cannot parse the HTML of %s: %v", pageURL, err)
	}
	base := baseURL(doc, pageURL)
	r.JSShell, r.Hint = detectJSShell(doc)
	r.Lang = htmlLang(doc)
	if opts.Select != "" {
		return r.selectNodes(doc, base, opts)
	}
	if opts.Links {
		r.Links = collectLinks(goquery.NewDocumentFromNode(doc).Selection, base)
	}
	pageTitle := documentTitle(doc)
	scripts := prepareScripts(doc)
	kind, declared := classifyPage(doc, pageURL, scripts)
	if opts.pageType != "" {
		kind, declared = opts.pageType, opts.pageType != PageArticle
	}
	r.PageType = kind
	if declared && kind != PageForum && opts.pageType == "" && namesArticleBody(doc) {
		declared = false // an article about a product, beside its offer
	}
	// Every page is read broadly too, from a copy made before readability
	// changes the tree, but for a big page of text that does not declare
	// its kind (broadCopyMax); the chooser (extract_choose.go) says which
	// reading is printed. Readability still gives the metadata.
	maxLetters := 0
	if !declared && len(page) > broadCopyMax {
		maxLetters = broadLettersMax
	}
	broad := broadContent(doc, maxLetters, kind == PageForum)
	if broad != nil {
		pruneShopReading(broad, kind)
	}
	// The second opinion is copied before readability changes the tree.
	container := findContainer(doc)
	second := newSecondOpinion(container)
	parser := readability.NewParser()
	parser.KeepClasses = true  // pruneArticle judges blocks by their class; stripped after
	parser.Logger = discardLog // its default formats every message for io.Discard
	art, err := parser.ParseAndMutate(doc, base)
	if err != nil || art.Node == nil {
		// Readability found nothing it calls an article: keep the page's
		// own article body, or the body minus what is never content.
		r.Title = pageTitle
		if broad != nil && (declared || r.PageType != PageArticle || second != nil && broadOutweighs(broad, second.cleaned())) {
			r.nodes = []*html.Node{broad}
		} else if second != nil {
			r.nodes = []*html.Node{second.cleaned()}
		} else {
			r.nodes = fallbackBody(doc)
		}
		for _, n := range r.nodes {
			dropRuby(n)
		}
		if !r.PageType.itemized() {
			r.addScriptArticle(scripts)
		}
		return nil
	}
	picked := plainTextLen(art.Node) // before pruning
	pruneArticle(art.Node)
	pruneShopReading(art.Node, kind)
	stripClasses(art.Node)
	idx := indexPage(doc)
	chosen := chooseArticle(art.Node, second, container, idx)
	addLead(chosen, idx)
	addParts(chosen, idx)
	dropRuby(chosen)
	r.nodes = []*html.Node{chosen}
	useBroad := false
	if broad != nil {
		x := choiceFeatures(chosen, broad, picked, kind, declared)
		useBroad = broadScore(x) > 0
		if opts.reading != readModel {
			useBroad = opts.reading == readBroad
			r.choiceX = x
		}
		if useBroad {
			dropRuby(broad)
			r.nodes = []*html.Node{broad}
		}
	}
	if r.PageType == PageProduct {
		r.addProductFacts(scripts)
	}
	if !r.PageType.itemized() {
		r.addScriptArticle(scripts)
	}
	r.Title = firstNonEmpty(art.Title(), pageTitle)
	r.Byline = strings.TrimSpace(art.Byline())
	if useBroad && r.PageType == PageArticle {
		// A thread's first heading and author line are its first post's.
		dropHeadline(broad, r.Title, r.Byline)
	}
	r.Lang = firstNonEmpty(art.Language(), r.Lang)
	r.SiteName = art.SiteName()
	r.Excerpt = firstParagraph(art.Excerpt(), r.Byline, art.Node)
	if t, err := art.PublishedTime(); err == nil {
		r.Published = t.UTC().Truncate(time.Second)
	}
	return nil
}

var discardLog = slog.New(slog.DiscardHandler)

// broadOutweighs says, of a page readability found no article in, that
// its main region holds far more text than its article container: the
// container is a box beside the page's text (a summary, a sign-up form),
// not the article. Four times the letters outside links and boilerplate.
func broadOutweighs(broad, container *html.Node) bool {
	return plainTextLen(container)*4 < strictTextLen(broad)
}

// selectNodes keeps the nodes matching opts.Select, with their links made
// absolute.
func (r *Result) selectNodes(doc *html.Node, base *url.URL, opts *Options) error {
	if _, err := cascadia.Compile(opts.Select); err != nil {
		return newError(ErrBadSelector, r.URL, err, "invalid CSS selector %q: %v", opts.Select, err)
	}
	r.Title = documentTitle(doc)
	r.selected = true
	r.selectedMetadata(doc, base)
	sel := goquery.NewDocumentFromNode(doc).Find(opts.Select)
	absolutize(sel, base)
	r.nodes = sel.Nodes
	if opts.Links {
		r.Links = collectLinks(sel, base)
	}
	if len(r.nodes) == 0 {
		return newError(ErrNoMatch, r.URL, nil, "no element on %s matches the selector %q", r.FinalURL, opts.Select)
	}
	return nil
}

// baseURL is pageURL, or the document's <base href> resolved against it.
func baseURL(doc *html.Node, pageURL string) *url.URL {
	u, err := url.Parse(pageURL)
	if err != nil {
		u = &url.URL{}
	}
	if b := findFirst(doc, atom.Base); b != nil {
		if href, ok := attr(b, "href"); ok {
			if bu, err := u.Parse(strings.TrimSpace(href)); err == nil {
				return bu
			}
		}
	}
	return u
}

// collectLinks returns the absolute http(s) links under sel, each URL once,
// in document order.
func collectLinks(sel *goquery.Selection, base *url.URL) []Link {
	var links []Link
	seen := map[string]bool{}
	add := func(_ int, a *goquery.Selection) {
		href, _ := a.Attr("href")
		abs := resolve(base, href)
		if abs == "" || seen[abs] {
			return
		}
		seen[abs] = true
		text := strings.Join(strings.Fields(a.Text()), " ")
		if text == "" {
			text = firstNonEmpty(a.AttrOr("aria-label", ""), a.AttrOr("title", ""))
		}
		links = append(links, Link{URL: abs, Text: text})
	}
	sel.Filter("a[href]").Each(add)
	sel.Find("a[href]").Each(add)
	return links
}

// resolve makes href absolute against base; "" for anything that is not an
// http(s) link to another place (javascript:, mailto:, "#top").
func resolve(base *url.URL, href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	u.Fragment = ""
	return u.String()
}

// absolutize rewrites href and src attributes under sel to absolute URLs.
func absolutize(sel *goquery.Selection, base *url.URL) {
	fix := func(name string) func(int, *goquery.Selection) {
		return func(_ int, s *goquery.Selection) {
			v, _ := s.Attr(name)
			if u, err := base.Parse(strings.TrimSpace(v)); err == nil && !strings.HasPrefix(v, "#") {
				s.SetAttr(name, u.String())
			}
		}
	}
	for _, s := range []*goquery.Selection{sel.Filter("[href]"), sel.Find("[href]")} {
		s.Each(fix("href"))
	}
	for _, s := range []*goquery.Selection{sel.Filter("[src]"), sel.Find("[src]")} {
		s.Each(fix("src"))
	}
}

// stripClasses removes the class attributes readability was told to keep
// for pruneArticle, as readability itself would (but its own "page").
func stripClasses(root *html.Node) {
	walk(root, func(n *html.Node) bool {
		for i := 0; i < len(n.Attr); i++ {
			if a := n.Attr[i]; a.Key == "class" && a.Namespace == "" {
				if a.Val == "page" {
					continue
				}
				n.Attr = append(n.Attr[:i], n.Attr[i+1:]...)
				i--
			}
		}
		return true
	})
}

// dropRuby removes ruby annotations (<rt>, <rp>: the reading printed
// above East Asian characters) from the content: in text they would be run
// into the words they annotate ("子こども").
func dropRuby(root *html.Node) {
	var drop []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Rt || n.DataAtom == atom.Rp) {
			drop = append(drop, n)
			return false
		}
		return true
	})
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// fallbackBody is the <body> without scripts, styles and other non-content.
func fallbackBody(doc *html.Node) []*html.Node {
	body := findFirst(doc, atom.Body)
	if body == nil {
		return nil
	}
	var drop []*html.Node
	walk(body, func(n *html.Node) bool {
		if n.Type == html.ElementNode && nonContent[n.DataAtom] {
			drop = append(drop, n)
			return false
		}
		if n.Type == html.CommentNode {
			drop = append(drop, n)
		}
		return true
	})
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
	return []*html.Node{body}
}

var nonContent = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Head: true, atom.Link: true, atom.Meta: true,
}

func documentTitle(doc *html.Node) string {
	if t := findFirst(doc, atom.Title); t != nil {
		return strings.Join(strings.Fields(textOf(t)), " ")
	}
	if h := findFirst(doc, atom.H1); h != nil {
		return strings.Join(strings.Fields(textOf(h)), " ")
	}
	return ""
}

func htmlLang(doc *html.Node) string {
	if h := findFirst(doc, atom.Html); h != nil {
		v, _ := attr(h, "lang")
		return strings.TrimSpace(v)
	}
	return ""
}

// walk visits n and its descendants depth-first; fn returns false to skip
// a node's children. It uses an explicit stack: fuzzed documents nest deep.
func walk(n *html.Node, fn func(*html.Node) bool) {
	stack := []*html.Node{n}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !fn(cur) {
			continue
		}
		for c := cur.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
}

func findFirst(n *html.Node, a atom.Atom) *html.Node {
	var found *html.Node
	walk(n, func(c *html.Node) bool {
		if found != nil {
			return false
		}
		if c.Type == html.ElementNode && c.DataAtom == a {
			found = c
			return false
		}
		return true
	})
	return found
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return b.String()
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

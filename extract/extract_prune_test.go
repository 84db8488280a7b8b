package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// articlePage is a news page whose article holds extra, between its second
// and third paragraphs.
func articlePage(extra string) string {
	para := func(i int) string {
		return fmt.Sprintf("<p>Paragraph %d of the story tells, in plain and long sentences, what happened in the valley "+
			"after the river rose, who was there, and what the people who live by it said about the water, the roads and the harvest.</p>\n", i)
	}
	return `<html><head><title>The river</title></head><body>
<nav><a href="/">Home</a> <a href="/world">World</a></nav>
<div class="story"><h1>The river</h1>` + para(1) + para(2) + extra + para(3) + para(4) + para(5) + `</div>
<footer>Contact us</footer></body></html>`
}

// TestPruneArticle checks each boilerplate rule on the block it is for, and
// that the article around it stays.
func TestPruneArticle(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		probe string // text of the extra block
		keep  bool   // whether the probe must stay
	}{
		{"share bar by class", `<div class="share-buttons"><span>Share on Facebook</span> <span>Share on X</span></div>`, "Share on Facebook", false},
		{"related list by class", `<div id="related-articles"><h3>More</h3><p>Another river story with its own words.</p></div>`, "Another river story", false},
		{"author box by class", `<div class="author-box">Jane Doe writes about rivers and weather.</div>`, "Jane Doe writes", false},
		{"read more link", `<p>Read more: <a href="/other">Floods across the region last year</a></p>`, "Floods across the region", false},
		{"lesen sie auch", `<p>Lesen Sie auch: <a href="/x">Hochwasser im Tal</a></p>`, "Hochwasser im Tal", false},
		{"list of links", `<ul><li><a href="/a">First other story</a></li><li><a href="/b">Second other story</a></li><li><a href="/c">Third one</a></li></ul>`, "Second other story", false},
		{"list of sentences citing their links stays", `<ul><li>Neil has patches up to <a href="/b/1">improve the behaviour of the tab unloader in the nightly builds</a>, and <a href="/b/2">show UI when subframes crash in a tab</a></li><li>Mike has patches up to <a href="/b/3">speed up the background updater on every platform</a>, and <a href="/b/4">show its progress in the menu</a></li></ul>`, "show UI when subframes crash", true},
		{"list of links with bylines goes", `<ul><li><a href="/a">The first other story of the day, on the dams upriver</a> by Jane Doe, 3 May</li><li><a href="/b">The second other story of the day, on the new bridge</a> by Jane Doe, 4 May</li></ul>`, "second other story", false},
		{"list of script buttons goes", `<ul class="user-interaction"><li><a href="#">Print</a></li><li><a href="#">Email</a></li><li><a href="#">Recommend</a></li><li><a href="#">Tweet</a></li></ul>`, "Recommend", false},
		{"short link line", `<p><a href="/live">Live: the river hour by hour</a></p>`, "the river hour by hour", false},
		{"caption", `<figure><img src="r.jpg" alt=""><figcaption>Photo: Agency</figcaption></figure>`, "Photo: Agency", false},
		{"newsletter prompt", `<p>Sign up for our newsletter to get the news every morning.</p>`, "Sign up for our newsletter", false},
		{"german share prompt", `<p>Diesen Artikel teilen</p>`, "Diesen Artikel teilen", false},
		{"date line", `<p>Published 3 May 2021</p>`, "3 May 2021", false},
		{"german date line", `<div><span>Aktualisiert am 23.10.2018, 14:05 Uhr</span></div>`, "23.10.2018", false},
		{"reading time", `<p>4 min read</p>`, "4 min read", false},
		{"sentence with a date stays", `<p>On 3 May 2021 the water came over the wall.</p>`, "the water came over the wall", true},
		{"photo credit", `<p>Foto: dpa</p>`, "Foto: dpa", false},
		{"agency credit", `<div>AFP / JANE DOE</div>`, "JANE DOE", false},
		{"related heading before its links", `<h3>Related stories</h3><div><a href="/a">Old flood of 1990 in the east of the country</a> <a href="/b">Dams</a></div>`, "Related stories", false},
		{"linked heading of a list article's item stays", `<h3><a href="https://games.test/thumper">“Thumper” ($20)</a></h3><p>` + strings.Repeat("What would happen if a board game, a beetle and a noise band met in a rhythm game? Chaos, and also this one. ", 4) + `</p>`, "“Thumper” ($20)", true},
		{"linked headings of teasers go", `<h3><a href="/other">Another flood, last year</a></h3><p>The river rose before, too.</p><h3><a href="/dams">The dams</a></h3><p>Who built them.</p>`, "Another flood, last year", false},
		{"heading with an anchor link stays", `<h2><a href="#after">What came after the flood</a></h2>`, "What came after the flood", true},
		{"plain sentence with a link stays", `<p>The mayor's full statement, published on <a href="/s">the town's site</a>, asks everyone living near the banks to keep away from the water until Friday.</p>`, "asks everyone living near the banks", true},
		{"caption by class alone", `<p class="wp-caption-text">The old bridge before the flood, seen from the east bank of the river.</p>`, "The old bridge before the flood", false},
		{"a state class is not a kind", `<div class="story-item no_caption"><p>The old bridge before the flood was built of stone, and it stood for two hundred years.</p></div>`, "The old bridge before the flood", true},
		{"a script hook is not a kind", `<p class="js_readmore">The old bridge before the flood was built of stone, and it stood for two hundred years.</p>`, "The old bridge before the flood", true},
		{"section named by its heading's slug stays", `<div class="section" id="sharing-with-a-single-developer"><h2>Sharing with a single developer</h2><p>The old bridge before the flood was built of stone, and it stood for two hundred years.</p></div>`, "The old bridge before the flood", true},
		{"share block named by id goes", `<div id="share-this-story-now"><h2>Share this story</h2><p>Share on Facebook, share on X, or send it by mail to a friend.</p></div>`, "Share on Facebook", false},
		{"paragraph behind the paywall stays", `<p class="paywall">The old bridge before the flood was built of stone, and it stood for two hundred years.</p>`, "The old bridge before the flood", true},
		{"paywall notice goes", `<div class="paywall"><p>Subscribe to read the rest of this story.</p></div>`, "read the rest of this story", false},
		{"quote stays", `<blockquote><p>We have never seen the water this high, not in fifty years.</p></blockquote>`, "never seen the water this high", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(articlePage(tc.extra)), "https://news.test/river", nil)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Text()
			type seen struct{ Probe, First, Last bool }
			want := seen{Probe: tc.keep, First: true, Last: true}
			got := seen{strings.Contains(text, tc.probe), strings.Contains(text, "Paragraph 1 "), strings.Contains(text, "Paragraph 5 ")}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\ntext:\n%s", diff, text)
			}
		})
	}
}

// A "related / more" heading in the article's last third ends it; one
// earlier is a subheading.
func TestCutTail(t *testing.T) {
	tail := `<h3>Related stories</h3><div><p>Another flood, in another valley, with other people and other words in it.</p></div>`
	tests := []struct {
		name, page string
		want       bool // whether the related story is in the text
	}{
		{"at the end", strings.Replace(articlePage(""), "</div>\n<footer>", tail+"</div>\n<footer>", 1), false},
		{"in the middle", articlePage(tail), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(tc.page), "https://news.test/river", nil)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Text()
			type seen struct{ Related, Last bool }
			want := seen{Related: tc.want, Last: true}
			got := seen{strings.Contains(text, "Another flood"), strings.Contains(text, "Paragraph 5 ")}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\ntext:\n%s", diff, text)
			}
		})
	}
}

// A block named like boilerplate that holds most of the text is the
// article's wrapper (a blog theme's "comments-open" body class, say): kept.
func TestPruneArticleKeepsLargeBlocks(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<div><div class="post has-comments sidebar-right"><p>` +
		strings.Repeat("A sentence of the article itself. ", 30) + `</p></div><p>Short tail.</p></div>`))
	if err != nil {
		t.Fatal(err)
	}
	root := findFirst(doc, atom.Div)
	dropped := pruneArticle(root)
	if len(dropped) != 0 {
		t.Errorf("pruneArticle dropped %d blocks, want none; first: %q", len(dropped), textOf(dropped[0]))
	}
}

// When readability takes one block of an article split into many, the
// page's own article body (here itemprop=articleBody) is the answer.
// A slideshow inside the article's body that holds most of its text (a
// gallery of other stories) does not make the body win over readability's
// pick by its length: its captions stay out of the article reading. (Which
// of the article and the broad reading is printed is the chooser's call.)
func TestSecondOpinionGallery(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Hotels</title></head><body><article><div itemprop="articleBody">`)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d of the story tells, in plain and long sentences, what the hotel bosses said about towels, "+
			"sheets and the blankets on the bed, and why a guest should look twice before lying down on them.</p>\n", i)
	}
	b.WriteString(`<div class="dnd-widget-wrapper type-gallery"><div class="full-gallery"><ul class="legends">`)
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, `<li><h2>Slide %d</h2><p>The caption of slide %d tells another business story of the week, in two sentences. It is not this article.</p></li>`, i, i)
	}
	b.WriteString(`</ul></div></div></div></article></body></html>`)
	res, err := Extract([]byte(b.String()), "https://hotels.test/", &Options{reading: readArticle})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	type seen struct{ First, Last, Slide bool }
	want := seen{First: true, Last: true}
	got := seen{strings.Contains(text, "Paragraph 1 "), strings.Contains(text, "Paragraph 6 "), strings.Contains(text, "caption of slide 30")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s\ntext:\n%s", diff, text)
	}
}

func TestSecondOpinion(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Split</title></head><body>`)
	b.WriteString(`<div class="top"><div><div><p>A box of the kind readability loves, long, comma-rich, with words, and more words.</p></div></div></div>`)
	b.WriteString(`<div class="main"><div itemprop="articleBody">`)
	for i := 1; i <= 20; i++ {
		// Each block is shorter than readability's 25-character minimum.
		fmt.Fprintf(&b, `<div class="row"><p>Section %d: up %d cm.</p></div>`, i, i*10)
	}
	b.WriteString(`<div class="social-share">Share this page</div><div style="display:none">hidden text</div></div></div></body></html>`)
	res, err := Extract([]byte(b.String()), "https://split.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	type seen struct{ Section1, Section20, Share, Hidden bool }
	want := seen{Section1: true, Section20: true}
	got := seen{strings.Contains(text, "Section 1:"), strings.Contains(text, "Section 20:"),
		strings.Contains(text, "Share this page"), strings.Contains(text, "hidden text")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s\ntext:\n%s", diff, text)
	}
}

// When readability's pick lies in a block that is never the article (an
// author box, a cookie notice, the comments) the page's own article body
// is the answer, even when it holds less than twice the text; a live
// ticker's "comments" and a plain block are not such blocks.
func TestWrongPick(t *testing.T) {
	tests := []struct {
		box  string // class of the block readability picked
		want string // "second" or "first"
	}{
		{"author-box", "second"},
		{"widget_eu_cookie_law_widget", "second"},
		{"comments-area", "second"},
		{"live-match-comments", "first"},
		{"story-extra", "first"},
		// The page's flags on <html> and <body> are not the block's kind.
		{"story-extra@flag-newsletterInlineModule-on flag-subscribe-on", "first"},
		{"story-extra@has-sidebar author-archive", "first"},
	}
	for _, tc := range tests {
		t.Run(tc.box, func(t *testing.T) {
			var b strings.Builder
			box, flags, _ := strings.Cut(tc.box, "@")
			b.WriteString(`<html class="` + flags + `"><head><title>Short lines</title></head><body class="` + flags + `"><div class="entry-content">`)
			for i := 1; i <= 16; i++ {
				fmt.Fprintf(&b, `<p>Line %d of a poem, long.</p>`, i)
			}
			b.WriteString(`</div><div class="` + box + `"><div id="picked"><p>` + strings.Repeat(`Words from the box, long, comma-rich, with words, and more words, `+
				`and more, written to look, to readability, like the article, which it is not, at all. `, 2) + `</p></div></div></body></html>`)
			doc, err := html.Parse(strings.NewReader(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			container := findContainer(doc)
			if container == nil {
				t.Fatal("no container found")
			}
			second := newSecondOpinion(container)
			var picked *html.Node
			walk(doc, func(n *html.Node) bool {
				if attrOr(n, "id") == "picked" {
					picked = cloneTree(n)
				}
				return picked == nil
			})
			got := "first"
			if chooseArticle(picked, second, container, indexPage(doc)) == second.raw {
				got = "second"
			}
			if got != tc.want {
				t.Errorf("chooseArticle took the %s, want the %s", got, tc.want)
			}
		})
	}
}

// Ruby annotations are not run into the words they annotate.
func TestDropRuby(t *testing.T) {
	page := `<html><body><article><p>` + strings.Repeat(`<ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの法律ができて、親が教育するために。`, 12) + `</p></article></body></html>`
	res, err := Extract([]byte(page), "https://ruby.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Text(); !strings.Contains(text, "子どもへの法律") || strings.Contains(text, "こ") {
		t.Errorf("text = %q, want the words without their readings", text)
	}
}

// Class names are read as kinds of block, not states or script hooks.
func TestHasBoilerplateName(t *testing.T) {
	tests := map[string]bool{
		"wp-caption-text":                  true,
		"comments-area":                    true,
		"related-teaser":                   true,
		"buzz_item image_hit no_caption":   false,
		"presentation-box-txt js_readmore": false,
		"live-match-comment slider-ele":    false,
		"article-teaser":                   false,
		"entry-content has-sidebar":        false,
	}
	for class, want := range tests {
		n := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div, Attr: []html.Attribute{{Key: "class", Val: class}}}
		if got := hasBoilerplateName(n); got != want {
			t.Errorf("hasBoilerplateName(class=%q) = %v, want %v", class, got, want)
		}
	}
}

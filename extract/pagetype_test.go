package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const siteChrome = `<header class="site-header"><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/about">About</a></header>
<nav class="main-nav"><ul><li><a href="/a">Section A</a></li><li><a href="/b">Section B</a></li></ul></nav>`

const siteFooter = `<footer class="site-footer"><p>Copyright 2026 Example Ltd. All rights reserved. Terms and privacy.</p></footer>`

func TestPageTypes(t *testing.T) {
	tests := []struct {
		name, url, page string
		want            PageType
		text            string // the whole of -f text
	}{
		{"forum thread: every post with its author line", "https://forum.example/t/which-plane/123",
			`<html><head><title>Which plane first?</title></head><body>` + siteChrome + `<main><h1>Which plane first?</h1>
<div class="post"><div class="author">mark_w · 3 May</div><p>I am new to woodworking and want to buy my first hand plane. A jack plane or a block plane, which should it be for a small flat?</p></div>
<div class="post"><div class="author">ada · 3 May</div><p>Get a jack plane.</p></div>
<div class="post"><div class="author">tom · 4 May</div><p>Block plane, then a jack later on.</p></div>
<div class="post"><div class="author">mark_w · 5 May</div><p>Thanks, both.</p></div>
</main>` + siteFooter + `</body></html>`,
			PageForum,
			"Which plane first?\nmark_w · 3 May\n\nI am new to woodworking and want to buy my first hand plane. A jack plane or a block plane, which should it be for a small flat?\n" +
				"ada · 3 May\n\nGet a jack plane.\ntom · 4 May\n\nBlock plane, then a jack later on.\nmark_w · 5 May\n\nThanks, both.\n"},
		{"product: name, price and description from JSON-LD", "https://shop.example/products/wool-runner",
			`<html><head><title>Wool Runner – Shop</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Wool Runner","description":"A soft merino wool sneaker for every day.","offers":{"@type":"Offer","price":"98.00","priceCurrency":"USD"}}</script></head><body>` + siteChrome + `
<div class="product"><div class="specs"><h2>Specifications</h2><ul><li>Upper: merino wool</li><li>Sole: sugarcane foam</li></ul></div>
<div class="tab" hidden><p>A soft merino wool sneaker for every day.</p></div></div>` + siteFooter + `</body></html>`,
			PageProduct,
			"Wool Runner\n\nPrice: 98.00 USD\n\nA soft merino wool sneaker for every day.\n\nSpecifications\n\nUpper: merino wool\nSole: sugarcane foam\n"},
		{"listing: the repeated items, without sort bar and pagination", "https://news.example/archive",
			`<html><head><title>Archive</title><script type="application/ld+json">{"@type":"CollectionPage","name":"Archive"}</script></head><body>` + siteChrome + `<main>
<div class="sort-bar"><a href="?s=new">Newest</a> <a href="?s=old">Oldest</a></div>
<article><h2><a href="/1">Harbour reopens after storm</a></h2><p>The harbour opened again on Monday after a week of repairs.</p></article>
<article><h2><a href="/2">New bridge for the old town</a></h2><p>Work starts in spring on a footbridge over the river.</p></article>
<article><h2><a href="/3">Market moves to the square</a></h2><p>From June the weekly market is held on the main square.</p></article>
<div class="pagination"><a href="?p=2">2</a> <a href="?p=3">3</a> <a href="?p=2">Next</a></div>
</main>` + siteFooter + `</body></html>`,
			PageListing,
			"Harbour reopens after storm\n\nThe harbour opened again on Monday after a week of repairs.\n\nNew bridge for the old town\n\nWork starts in spring on a footbridge over the river.\n\nMarket moves to the square\n\nFrom June the weekly market is held on the main square.\n"},
		{"landing page: every section, without nav and footer", "https://acme.example/",
			`<html><head><title>Acme Rockets</title></head><body>` + siteChrome + `
<section class="hero"><h1>Rockets for everyone</h1><p>Acme builds small rockets that schools, clubs and families can launch safely on a weekend afternoon.</p></section>
<section class="features"><h2>Features</h2><p>Every kit comes with a reusable motor mount, a parachute that opens by itself and a launch pad that folds into a backpack.</p></section>
<section class="pricing"><h2>Pricing</h2><p>The starter kit costs 49 dollars, the club kit with ten rockets 390 dollars, and spare motors are sold in packs of six.</p></section>
<section class="faq"><h2>Questions</h2><p>Do I need a licence? No: our motors are small enough to fly without one in most countries, but check your local park rules.</p></section>
` + siteFooter + `</body></html>`,
			PageArticle,
			"Rockets for everyone\n\nAcme builds small rockets that schools, clubs and families can launch safely on a weekend afternoon.\n\n" +
				"Features\n\nEvery kit comes with a reusable motor mount, a parachute that opens by itself and a launch pad that folds into a backpack.\n\n" +
				"Pricing\n\nThe starter kit costs 49 dollars, the club kit with ten rockets 390 dollars, and spare motors are sold in packs of six.\n\n" +
				"Questions\n\nDo I need a licence? No: our motors are small enough to fly without one in most countries, but check your local park rules.\n"},
		{"an article stays an article", "https://news.example/2026/05/harbour",
			`<html><head><title>Harbour</title><meta property="og:type" content="article"></head><body>` + siteChrome + `<article><h1>Harbour reopens</h1>
<p>The harbour opened again on Monday after a week of repairs to the quay and the old lighthouse, which the storm had damaged badly.</p>
<p>Fishing boats were the first to leave, followed by the ferry to the islands, which had not sailed since the storm began on the Sunday before.</p>
<div class="share">Share on Facebook</div></article>` + siteFooter + `</body></html>`,
			PageArticle,
			"Harbour reopens\n\nThe harbour opened again on Monday after a week of repairs to the quay and the old lighthouse, which the storm had damaged badly.\n\nFishing boats were the first to leave, followed by the ferry to the islands, which had not sailed since the storm began on the Sunday before.\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(tc.page), tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := struct {
				Type PageType
				Text string
			}{res.PageType, printedText(res)}
			if diff := cmp.Diff(struct {
				Type PageType
				Text string
			}{tc.want, tc.text}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			line, _ := res.JSON(FormatText)
			if !strings.Contains(string(line), `"page_type":"`+string(tc.want)+`"`) {
				t.Errorf("-f json has no page_type %q: %s", tc.want, line)
			}
		})
	}
}

// A page with no structured data and a path that says nothing is a listing
// when it is an index of teasers: a dozen headings or more, most of them
// links to their stories, and no paragraph of an article's length. An
// article with a box of a dozen linked headlines under it stays an article.
func TestPageTypeTeaserIndex(t *testing.T) {
	card := func(i int) string {
		return fmt.Sprintf(`<div class="card"><h3><a href="/story/%d">Story %d of the day</a></h3><p>What happened in part %d of town, in one line.</p><span class="date">%d May</span></div>`+"\n", i, i, i, i)
	}
	cards := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(card(i))
		}
		return b.String()
	}
	long := "<p>" + strings.Repeat("The harbour opened again on Monday after a week of repairs to the quay and the old lighthouse. ", 6) + "</p>"
	page := func(main string) string {
		return `<html><head><title>The Town Paper</title></head><body>` + siteChrome + `<main>` + main + `</main>` + siteFooter + `</body></html>`
	}
	tests := []struct {
		name, page string
		want       PageType
	}{
		{"front page of a dozen teasers", page(cards(12)), PageListing},
		{"teasers whose whole card is the link", page(strings.ReplaceAll(strings.ReplaceAll(cards(14), `<div class="card"><h3><a href="/story/`, `<a class="card" href="/story/`), `</a></h3>`, `<h3>`)), PageListing},
		{"an article with a dozen headlines under it", page(`<h1>Harbour reopens</h1>` + long + long + `<h2>More stories</h2>` + cards(12)), PageArticle},
		{"a few teasers", page(cards(5)), PageArticle},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(tc.page), "https://paper.example/", nil)
			if err != nil {
				t.Fatal(err)
			}
			line, _ := res.JSON(FormatText)
			if res.PageType != tc.want || !strings.Contains(string(line), `"page_type":"`+string(tc.want)+`"`) {
				t.Errorf("page_type %q, want %q; -f json: %.300s", res.PageType, tc.want, line)
			}
		})
	}
}

// A page served from a local address (a mirror, a test server, a saved
// copy) has lost the host name that says what kind of site it is
// (docs.…, forum.…): its canonical URL or og:url says it instead. A page
// at a site's own address keeps that site's kind.
func TestPageTypeLocalHost(t *testing.T) {
	manual := `<p>Run the installer, then add the program's folder to your PATH so that the shell finds it. On Windows the installer offers to do this for you.</p>
<p>Check the install with the version command; it prints the version and the folder it runs from.</p>`
	thread := `<h1>Which plane first?</h1><div class="post"><p>A jack plane or a block plane for a first plane, for a small flat?</p></div>
<div class="post"><p>Get a jack plane, then a block plane later on.</p></div>`
	page := func(head, main string) string {
		return `<html><head><title>Page</title>` + head + `</head><body>` + siteChrome + `<main>` + main + `</main>` + siteFooter + `</body></html>`
	}
	tests := []struct {
		name, url, page string
		want            PageType
	}{
		{"manual at 127.0.0.1, canonical on docs.", "http://127.0.0.1:8080/en/latest/install.html",
			page(`<link rel="canonical" href="https://docs.example.org/en/latest/install.html">`, manual), PageDocumentation},
		{"thread on localhost, og:url on forum.", "http://localhost:3000/index.php?topic=5",
			page(`<meta property="og:url" content="https://forum.example.net/index.php?topic=5">`, thread), PageForum},
		{"saved page with no URL, canonical on a forum", "",
			page(`<link rel="canonical" href="https://community.example.com/x/5">`, thread), PageForum},
		{"manual at 127.0.0.1 that names no canonical", "http://127.0.0.1:8080/en/latest/install.html", page("", manual), PageArticle},
		{"a site's own page keeps its host, whatever its canonical", "https://blog.example.com/install",
			page(`<link rel="canonical" href="https://docs.example.org/install">`, manual), PageArticle},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(tc.page), tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.PageType != tc.want {
				t.Errorf("page_type %q, want %q", res.PageType, tc.want)
			}
		})
	}
}

// TestLocalHost: the hosts that name no site, without net/netip.
func TestLocalHost(t *testing.T) {
	for host, want := range map[string]bool{
		"": true, "localhost": true, "app.localhost": true, "127.0.0.1": true, "10.0.0.7": true, "::1": true,
		"fe80::1%eth0": true, "2001:db8::8a2e:370:7334": true, "::ffff:192.0.2.1": true,
		"example.com": false, "docs.python.org": false, "1.2.3": false, "1.2.3.4.5": false, "cafe.com": false,
		"forum.example": false, "10.0.0.x": false,
	} {
		if got := localHost(host); got != want {
			t.Errorf("localHost(%q) = %v, want %v", host, got, want)
		}
	}
}

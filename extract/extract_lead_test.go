package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// leadPage is a news page: before (the site's header, say), then an
// <article> whose header holds the headline and head, then the body.
func leadPage(before, head string) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>The river</title></head><body>` + before)
	b.WriteString(`<article><header><h1>The river</h1>` + head + `</header><div class="story-body">`)
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d of the story tells, in plain and long sentences, what happened in the valley "+
			"after the river rose, who was there, and what the people who live by it said about the water.</p>\n", i)
	}
	b.WriteString(`</div></article><footer>Contact us</footer></body></html>`)
	return b.String()
}

// The lead readability leaves in the article's header comes back in front
// of the body; the site's slogan, a caption and a lead far from the body
// do not.
func TestAddLead(t *testing.T) {
	const lead = "The water rose two metres in one night and the valley's only bridge is gone."
	far := strings.Repeat("<p>A long note about something else on the page, which is not the story at all.</p>", 8)
	box := `<div class="most-read"><h2>Most read</h2><ul>` +
		strings.Repeat(`<li><h3><a href="/other">A headline of another story, one of the most read today</a></h3></li>`, 10) + `</ul></div>`
	tests := []struct {
		name, before, head string
		want               bool // whether the lead is in the text
	}{
		{"lead by class", "", `<p class="article-lead">` + lead + `</p>`, true},
		{"teaser by class, not a paragraph", "", `<div class="ArticleHero__teaser--light">` + lead + `</div>`, true},
		{"paragraph in the article's header", "", `<p>` + lead + `</p>`, true},
		{"lead, then byline and date", "", `<h2 class="subtitle">` + lead + `</h2><p class="byline">By Jane Doe</p><time>3 May 2021</time>`, true},
		{"site slogan", `<header class="site-header"><p class="site-description">` + lead + `</p></header>`, "", false},
		{"caption of the lead picture", "", `<figure class="lead-asset"><img src="r.jpg"><figcaption class="lead-caption">` + lead + `</figcaption></figure>`, false},
		{"lead, then a box of headlines", "", `<p class="intro">` + lead + `</p>` + box, true},
		{"lead far before the body", `<div><p class="intro">` + lead + `</p>` + far + `</div>`, "", false},
		{"newsletter prompt called teaser", "", `<p class="teaser">Sign up for our newsletter to get the news every morning.</p>`, false},
		{"market summary called summary", "", `<div class="market-summary"><ul><li>S&amp;P 500 2,111.72 -14.43 (-0.68%)</li><li>Dow 30 18,037.10 -105.32 (-0.58%)</li><li>Nasdaq 5,153.58 -35.56 (-0.69%)</li></ul></div>`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The lead is the article reading's rule: which reading is
			// printed is the chooser's (a page of notes around a short
			// story is a close call for it, and a refit can flip it).
			res, err := Extract([]byte(leadPage(tc.before, tc.head)), "https://news.test/river", &Options{reading: readArticle})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Text()
			probe := lead
			if strings.Contains(tc.head, "newsletter") {
				probe = "Sign up for our newsletter"
			}
			if strings.Contains(tc.head, "market-summary") {
				probe = "2,111.72"
			}
			type seen struct{ Lead, First, Last, LeadFirst bool }
			want := seen{Lead: tc.want, First: true, Last: true, LeadFirst: tc.want}
			got := seen{strings.Contains(text, probe), strings.Contains(text, "Paragraph 1 "), strings.Contains(text, "Paragraph 5 "),
				strings.Index(text, probe) >= 0 && strings.Index(text, probe) < strings.Index(text, "Paragraph 1 ")}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\ntext:\n%s", diff, text)
			}
		})
	}
}

package extract

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestBroadDropsPostFurniture: a thread's broad reading keeps its posts and
// their author lines, and drops what a board prints around them.
func TestBroadDropsPostFurniture(t *testing.T) {
	cases := []struct {
		name, body string
		want, not  []string
	}{
		{
			name: "forum signature",
			body: `<div class="message"><div class="message-userTitle">Well-known member</div>
				<div class="message-userExtras">Joined 2011 Messages 4,211</div>
				<div class="message-content">The pump needs a new seal before winter.</div>
				<div class="message-signature">My rig: two bikes and a van</div></div>
				<div class="message"><div class="message-content">Thanks, I ordered the seal today.</div></div>`,
			want: []string{"new seal before winter", "ordered the seal today"},
			not:  []string{"My rig"},
		},
		{
			name: "Q&A comments on answers, author line kept",
			body: `<div itemscope itemtype="https://schema.org/QAPage"><div itemprop="mainEntity" itemscope itemtype="https://schema.org/Question">
				<main><p>How do I focus the file pane with the keyboard?</p>
				<div class="post-signature">asked <span class="relativetime">Jun 29, 2012</span> by Pup</div>
				<ul><li itemprop="comment" itemscope itemtype="https://schema.org/Comment">Now tell me how you really feel</li></ul>
				<div itemprop="suggestedAnswer" itemscope itemtype="https://schema.org/Answer"><p>Press Ctrl+Tab to move through the panes.</p>
				<ul><li itemprop="comment" itemscope itemtype="https://schema.org/Comment">Does not work in Windows 10</li></ul></div>
				</main></div></div>`,
			want: []string{"focus the file pane", "asked Jun 29, 2012 by Pup", "Ctrl+Tab"},
			not:  []string{"really feel", "Windows 10"},
		},
		{
			name: "a forum's replies marked as comments stay",
			body: `<main><div itemscope itemtype="https://schema.org/DiscussionForumPosting"><p>Which seal fits the 2019 pump?</p>
				<div itemprop="comment" itemscope itemtype="https://schema.org/Comment"><p>The 40 mm one fits it.</p></div></div></main>`,
			want: []string{"2019 pump", "40 mm one fits"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader("<html><body>" + c.body + "</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(strings.Fields(textOf(broadContent(doc, 0, true))), " ")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("broad reading lost %q:\n%s", w, got)
				}
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("broad reading kept %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestNoArticleFound: on a page readability finds no article in, what is
// printed is its article container, or its main region when that holds
// far more text (a page a React server streams in, hidden until its script
// shows it, beside a summary box named as the article's text).
func TestNoArticleFound(t *testing.T) {
	para := func(i int) string {
		return fmt.Sprintf("<p>Tutorial %d shows, step by step and in long plain sentences, how a site is found by the people who look for it, what to measure and what to change first.</p>", i)
	}
	summary := `<div class="RichTextHighlight_highlight__qC6TX"><p>Quick summary: dig into the best tutorials from the leaders of the trade. This collection, for beginners and for experts alike, gives strategies that work for better rankings, and insights from sources you can trust to grow what you know about search, links and the words people type.</p></div>`
	cases := []struct {
		name, body string
		want, not  []string
	}{
		{
			name: "streamed article beside a summary box",
			body: `<div hidden id="S:0"><main>` + summary + `<div class="prose">` + para(1) + para(2) + para(3) + para(4) + para(5) + para(6) + `</div></main><footer>All rights reserved</footer></div>`,
			want: []string{"Quick summary", "Tutorial 1 shows", "Tutorial 6 shows"},
			not:  []string{"rights reserved"},
		},
		{
			name: "a summary box holding most of the text",
			body: `<div hidden id="S:0"><main>` + summary + `<div class="prose"><p>Loading the tutorials.</p></div></main><footer>All rights reserved</footer></div>`,
			want: []string{"Quick summary"},
			not:  []string{"rights reserved"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Extract([]byte("<html><head><title>SEO tutorials</title></head><body>"+c.body+"</body></html>"), "https://blog.test/seo", nil)
			if err != nil {
				t.Fatal(err)
			}
			got := printedText(res)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("lost %q:\n%s", w, got)
				}
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("kept %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestBroadOpensDisclosures: the broad reading reads an accordion's or a
// tab list's hidden panels open, as a reader who clicks them does, with an
// accordion's header (a FAQ's question); a menu its button opens stays out.
func TestBroadOpensDisclosures(t *testing.T) {
	cases := []struct {
		name, body string
		want, not  []string
	}{
		{
			name: "FAQ accordion",
			body: `<main><h2>Common questions</h2><ul><li><h3><button aria-expanded="true" aria-controls="a1">How does it work?</button></h3>
				<div id="a1" role="region"><p>It pays part of the vet's bill.</p></div></li>
				<li><h3><button aria-expanded="false" aria-controls="a2">Can I use my own vet?</button></h3>
				<div id="a2" role="region" aria-hidden="true"><p>Yes, any licensed vet in the country.</p></div></li></ul></main>`,
			want: []string{"pays part of the vet", "Can I use my own vet?", "any licensed vet"},
		},
		{
			name: "hidden tab panel",
			body: `<main><div role="tablist"><span role="tab" aria-selected="true" aria-controls="t1">Overview</span><span role="tab" aria-selected="false" aria-controls="t2">Details</span></div>
				<div id="t1" role="tabpanel"><p>A light tent for two.</p></div><div id="t2" role="tabpanel" hidden><p>It weighs 2 kg packed.</p></div></main>`,
			want: []string{"light tent for two", "weighs 2 kg packed"},
		},
		{
			name: "a menu's button does not open the menu",
			body: `<header><button aria-expanded="false" aria-controls="m1">Menu</button></header><main><p>A light tent for two, for every season.</p>
				<div id="m1" class="site-menu" hidden><a href="/pricing">Pricing</a> <a href="/about">About</a></div></main>`,
			want: []string{"light tent for two"},
			not:  []string{"Pricing"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader("<html><body>" + c.body + "</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(strings.Fields(textOf(broadContent(doc, 0, false))), " ")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("broad reading lost %q:\n%s", w, got)
				}
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("broad reading kept %q:\n%s", w, got)
				}
			}
		})
	}
}

package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// storyParas are an article's paragraphs, as a script or a <noscript>
// would carry them.
var storyParas = []string{
	"The council voted on Tuesday night to close the old bridge over the river for good, after engineers found cracks in two of its pillars.",
	"Drivers will have to take the ring road, which adds some twenty minutes to the trip into town, until the new bridge opens in the spring.",
	"The mayor said the decision was hard but that nobody could be asked to cross a bridge the engineers would not stand under themselves.",
}

func scriptPage(head, body string) string {
	return `<html><head><title>The bridge</title>` + head + `</head><body><header class="site-header"><a href="/">The Town Paper</a></header>` +
		`<main><h1>The bridge</h1>` + body + `</main><footer>Contact us</footer></body></html>`
}

func jsonString(s string) string {
	return `"` + strings.NewReplacer(`"`, `\"`, "\n", `\n`, "<", `\u003c`, ">", `\u003e`).Replace(s) + `"`
}

// Text a page carries only in a <noscript> or in a script (JSON-LD's
// articleBody, a framework's state) is read when the page's own text is
// short; "enable JavaScript" notes, keyword lists and the scripts of a
// page whose text is found stay out.
func TestTextFromScripts(t *testing.T) {
	// An article's worth of paragraphs (scriptProse letters and more).
	var paras []string
	for i := 0; i < 15; i++ {
		paras = append(paras, fmt.Sprintf("In part %d of the report: %s", i+1, storyParas[i%len(storyParas)]))
	}
	first, last := paras[0], paras[len(paras)-1]
	story := strings.Join(paras, "\n\n")
	storyHTML := "<p>" + strings.Join(paras, "</p><p>") + "</p>"
	short := storyParas[0] + " " + storyParas[1]
	var ownArticle string // an article's start, 800 to 1500 letters
	for i := 1; i <= 10; i++ {
		ownArticle += fmt.Sprintf("<p>Ferry %d across the lake stops for the winter next week; the council has not said when it sails again.</p>", i)
	}
	long := strings.Repeat("<p>The page's own article is long enough, and it tells the whole story of the bridge and the river in its own words.</p>", 20)
	tests := []struct {
		name, head, body string
		want             bool // whether the story's paragraphs are in the text
		absent           string
	}{
		{"noscript holding the article", "", `<div class="post-body"><noscript>` + storyHTML + `</noscript></div>`, true, ""},
		{"noscript asking for JavaScript", "", `<p>Short text.</p><noscript><p>Please enable JavaScript to read this page.</p></noscript>`, false, "enable JavaScript"},
		{"JSON-LD articleBody", `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"The bridge","articleBody":` + jsonString(story) + `}</script>`,
			`<div id="app">Loading…</div>`, true, ""},
		{"JSON-LD in a @graph", `<script type="application/ld+json">{"@graph":[{"@type":"WebPage","name":"The bridge"},{"@type":"Article","articleBody":` + jsonString(story) + `}]}</script>`,
			`<div id="app">Loading…</div>`, true, ""},
		{"hydration state with HTML", "", `<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{"props":{"page":{"title":"The bridge","body":` + jsonString(storyHTML) + `,"tags":"Town,Bridge,River,Council,Traffic,Engineering,Mayor,Ring road,Spring,Cracks,Pillars,Drivers"}}}</script>`,
			true, "Town,Bridge"},
		{"state in an HTML-escaped attribute of a script", "", `<script>window.__STATE__ = {&quot;story&quot;:` + strings.ReplaceAll(jsonString(storyHTML), `"`, "&quot;") + `}</script>`, true, ""},
		{"script holding less than an article", `<script type="application/ld+json">{"@type":"Review","reviewBody":` + jsonString(short) + `}</script>`,
			`<div id="app">Loading…</div>`, false, "after engineers found cracks"},
		{"page with a short article of its own and a playlist's captions in a script", `<script>var playlist = {"items":[` + jsonString(story) + `]};</script>`,
			ownArticle, false, "In part 1"},
		{"product whose shop keeps its terms in the state", `<script type="application/ld+json">{"@type":"Product","name":"Food colors","offers":{"price":"9.99"}}</script>`,
			`<div id="app"><p>Food colors, four packets.</p></div><script>window.__STATE__ = {"terms":` + jsonString(storyHTML) + `}</script>`, false, "In part 1"},
		{"listing with its items' texts in the state", `<script type="application/ld+json">{"@type":"ItemList","itemListElement":[]}</script>`,
			`<ul><li><a href="/a">The first course</a></li></ul><script>window.__STATE__ = {"items":` + jsonString(storyHTML) + `}</script>`, false, "In part 1"},
		{"page whose text is found", `<script type="application/ld+json">{"@type":"Article","articleBody":` + jsonString("An older version of the story. "+story) + `}</script>`,
			long, false, "An older version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(scriptPage(tc.head, tc.body)), "https://paper.test/bridge", nil)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Text()
			type seen struct{ First, Last, Absent bool }
			want := seen{tc.want, tc.want, false}
			got := seen{strings.Contains(text, first), strings.Contains(text, last),
				tc.absent != "" && strings.Contains(text, tc.absent)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\ntext:\n%s", diff, text)
			}
			if strings.Contains(text, "{") || strings.Contains(text, `\u003c`) {
				t.Errorf("script syntax in the text:\n%s", text)
			}
		})
	}
}

// A hydrated page renders the start of the article its state holds in
// full: the state is read even when the start alone is long.
func TestTextFromScriptsHydrated(t *testing.T) {
	var paras []string
	for i := 0; i < 30; i++ {
		paras = append(paras, fmt.Sprintf("In part %d of the report: %s", i+1, storyParas[i%len(storyParas)]))
	}
	rendered := "<p>" + strings.Join(paras[:8], "</p><p>") + "</p>"
	state := `<script id="__NEXT_DATA__" type="application/json">{"props":{"body":` + jsonString("<p>"+strings.Join(paras, "</p><p>")+"</p>") + `}}</script>`
	res, err := Extract([]byte(scriptPage("", rendered+state)), "https://paper.test/bridge", nil)
	if err != nil {
		t.Fatal(err)
	}
	if found := countLetters(strings.Join(paras[:8], " ")); found < scriptOwnText {
		t.Fatalf("the rendered start has %d letters, want %d or more for this test", found, scriptOwnText)
	}
	if text := res.Text(); !strings.Contains(text, paras[len(paras)-1]) {
		t.Errorf("the state's last paragraph is missing:\n%s", text)
	}
}

func TestIsProse(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{storyParas[0], true},
		{"Town,Bridge,River,Council,Traffic,Engineering,Mayor,Ring road,Spring,Cracks,Pillars,Drivers,Town,Bridge,River", false},
		{"function(a){return a.map(function(b){return b*2})} var x = document.getElementById('app'); x.innerHTML = y;", false},
		{"Too short to be an article.", false},
		{"https://paper.test/a/very/long/path/to/an/image/of/the/bridge-over-the-river-at-night-1200x800.jpg and more.", false},
	}
	for _, tc := range tests {
		if got := isProse(tc.s); got != tc.want {
			t.Errorf("isProse(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// When readability takes a long table or list inside the article body
// (a register of names beside a short story), the body is the article;
// a table that is the article stays readability's pick, and a sidebar
// outside the body does not come in.
func TestListPick(t *testing.T) {
	var rows strings.Builder
	for i := 0; i < 200; i++ {
		rows.WriteString("<tr><td>The constituency of " + strings.Repeat("Northfield ", 1+i%3) + "and district</td><td>A member of parliament, with a long name</td><td>member.mail@parliament.example</td></tr>")
	}
	table := "<table><tr><th>Constituency</th><th>Member</th><th>Email</th></tr>" + rows.String() + "</table>"
	story := "<p>" + strings.Join(storyParas, "</p><p>") + "</p><p>" + strings.Join(storyParas, " ") + "</p>"
	sidebar := `<aside class="sidebar"><h3>Most read</h3><p>A sidebar paragraph about something else entirely, which is not the story.</p></aside>`
	tests := []struct {
		name, body string
		story      bool // the story's paragraphs are in the text
		table      bool // the table is
	}{
		{"table inside the article body", `<div class="article-text"><div><div>` + story + `</div></div><div class="table-wrap"><div>` + table + `</div></div></div>` + sidebar, true, true},
		{"table alone in the body", `<div class="article-text"><p>The list:</p>` + table + `</div>` + sidebar, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(scriptPage("", tc.body)), "https://paper.test/mps", nil)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Text()
			type seen struct{ Story, Table, Sidebar bool }
			want := seen{tc.story, tc.table, false}
			got := seen{strings.Contains(text, storyParas[1]), strings.Contains(text, "member.mail@parliament.example"), strings.Contains(text, "A sidebar paragraph")}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\ntext:\n%s", diff, text)
			}
		})
	}
}

// A recipe set out in sibling boxes of one kind (header, ingredients,
// steps) comes out whole; a box of the same kind named as comments, and
// a list of many teaser cards, stay out.
func TestAddParts(t *testing.T) {
	box := func(extra, body string) string {
		return `<article class="box grid-col ` + extra + `">` + body + `</article>`
	}
	header := box("recipe-header", `<h1>Mandarin cake</h1><p>The creamiest cake you will ever bake, with mandarins, pudding and a crisp shortcrust base.</p>`)
	ingredients := box("recipe-ingredients", `<h2>Ingredients</h2><table><tr><td>250 g</td><td>flour for the shortcrust base</td></tr><tr><td>125 g</td><td>butter or margarine, cold</td></tr><tr><td>2 tins</td><td>mandarins, drained, the juice kept</td></tr></table>`)
	steps := box("recipe-steps", `<h2>Method</h2>`+"<p>"+strings.Join(storyParas, "</p><p>")+"</p>"+"<p>"+strings.Join(storyParas, " ")+"</p>")
	comments := box("recipe-comments", `<h2>Comments</h2><p>I baked it on Sunday and the whole family loved it, thank you for the recipe and the pictures!</p>`)
	tests := []struct {
		name, body string
		want       []bool // header, ingredients, comments, teaser in the text
	}{
		{"recipe in boxes", `<main>` + header + ingredients + steps + comments + `</main>`, []bool{true, true, false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(scriptPage("", tc.body)), "https://recipes.test/cake", nil)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Text()
			got := []bool{strings.Contains(text, "The creamiest cake"), strings.Contains(text, "flour for the shortcrust"),
				strings.Contains(text, "the whole family loved it"), strings.Contains(text, "Another recipe card")}
			if diff := cmp.Diff(tc.want, got); diff != "" || !strings.Contains(text, storyParas[1]) {
				t.Errorf("(-want +got):\n%s\ntext:\n%s", diff, text)
			}
		})
	}
}

// Among many blocks of one kind (a list of cards), the chosen one gets
// none of its siblings.
func TestAddPartsMany(t *testing.T) {
	card := `<article class="box grid-col card"><p>A recipe card with a long enough description to count as text on the page, with a picture and a rating.</p></article>`
	for _, n := range []int{3, maxParts + 1} {
		page := `<html><body><main><div class="list">` + `<article class="box grid-col card" id="pick"><p>` + storyParas[0] + `</p></article>` +
			strings.Repeat(card, n-1) + `</div></main></body></html>`
		doc, err := html.Parse(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		idx := indexPage(doc)
		var pick *html.Node
		walk(doc, func(c *html.Node) bool {
			if c.Type == html.ElementNode && attrOr(c, "id") == "pick" {
				pick = c
			}
			return pick == nil
		})
		article := &html.Node{Type: html.ElementNode, DataAtom: atom.Div, Data: "div"}
		article.AppendChild(cloneTree(pick))
		addParts(article, idx)
		got := strings.Count(textOf(article), "A recipe card")
		want := n - 1
		if n > maxParts {
			want = 0
		}
		if got != want {
			t.Errorf("%d cards: %d siblings added, want %d", n, got, want)
		}
	}
}

// The text a script holds is printed only where the page does not print
// it already: a front page whose state holds the teasers it lists prints
// each teaser once (and not the state's picture captions after the
// footer), and a hydrated article prints the start it renders once, then
// the rest from its state.
func TestScriptTextOnce(t *testing.T) {
	places := []string{"harbour", "old bridge", "market square", "town hall", "river path", "north road", "railway station", "school yard", "city park", "fire station", "public library", "swimming pool"}
	var cards, items []string
	var teasers []string
	for i, p := range places {
		teaser := fmt.Sprintf("Work on the %s begins next month and should be finished before the summer holidays, the council said on Monday evening after its meeting.", p)
		teasers = append(teasers, teaser)
		cards = append(cards, fmt.Sprintf(`<div class="card"><a href="/story/%d"><h3>News about the %s</h3><p>%s</p></a></div>`, i, p, teaser))
		items = append(items, fmt.Sprintf(`{"headline":"News about the %s","summary":%s,"alt":%s}`, p, jsonString(teaser),
			jsonString(fmt.Sprintf("A photograph of the workers at the %s in the early morning light, taken by our reporter on Friday.", p))))
	}
	front := `<html><head><title>The Town Paper</title></head><body><header class="site-header"><a href="/">The Town Paper</a></header><main>` +
		strings.Join(cards, "\n") + `</main><footer>Contact us</footer>` +
		`<script id="__NEXT_DATA__" type="application/json">{"props":{"items":[` + strings.Join(items, ",") + `]}}</script></body></html>`

	// An article of 30 paragraphs, each its own words.
	crews := strings.Fields("road rail water power bridge harbour park school library museum market garden canal tunnel station")
	deeds := strings.Fields("mended painted cleared measured rebuilt inspected widened drained lit fenced paved moved opened closed checked")
	var paras []string
	for i := 0; i < 30; i++ {
		paras = append(paras, fmt.Sprintf("On day %d of the works the %s crew %s the %s near %s, and %s.", i+1, crews[i%15], deeds[(i*7)%15],
			crews[(i*4+3)%15], places[(i*5)%12], strings.TrimSuffix(storyParas[i%3][:60], " ")))
	}
	hydrated := scriptPage("", "<p>"+strings.Join(paras[:8], "</p><p>")+"</p>"+
		`<script id="__NEXT_DATA__" type="application/json">{"props":{"body":`+jsonString("<p>"+strings.Join(paras, "</p><p>")+"</p>")+`}}</script>`)

	tests := []struct {
		name, page string
		once       []string // printed exactly once each
		absent     string
	}{
		{"front page whose state holds its teasers", front, teasers, "A photograph of workers"},
		{"hydrated article", hydrated, paras, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(tc.page), "https://paper.test/", nil)
			if err != nil {
				t.Fatal(err)
			}
			text := printedText(res)
			var wrong []string
			for _, s := range tc.once {
				if n := strings.Count(text, s); n != 1 {
					wrong = append(wrong, fmt.Sprintf("%dx %.40s", n, s))
				}
			}
			if tc.absent != "" && strings.Contains(text, tc.absent) {
				wrong = append(wrong, "printed: "+tc.absent)
			}
			if len(wrong) > 0 {
				t.Errorf("%s\ntext:\n%s", strings.Join(wrong, "\n"), text)
			}
		})
	}
}

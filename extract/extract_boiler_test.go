package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPruneBoilerExtra checks each of the extra boilerplate rules on the
// block it is for, and that article text that looks like it stays.
func TestPruneBoilerExtra(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		probe string // text of the extra block
		keep  bool   // whether the probe must stay
	}{
		// names
		{"german comments by class", `<div class="kommentarModul"><p>Sie müssen angemeldet sein, um hier zu schreiben.</p></div>`, "angemeldet sein", false},
		{"cookie inside a compound class", `<div class="BorlabsCookie"><p>Klicken Sie, um den Inhalt der Karte zu sehen.</p></div>`, "Inhalt der Karte", false},
		{"widget inside a compound class", `<p class="textwidget">Viel Spaß beim Stöbern in unserem kleinen Laden.</p>`, "Viel Spaß beim Stöbern", false},
		{"wordpress entry utility", `<div class="entry-utility"><p>This story was filed in the Rivers section of the site.</p></div>`, "Rivers section", false},
		{"affiliate disclosure by class", `<section class="editorial-disclosure"><p>We may be paid when you buy through links on this page of the site.</p></section>`, "We may be paid", false},
		{"reading time by class", `<p><span class="readingTime">Ten tekst przeczytasz w mniej niż minutę</span></p>`, "Ten tekst przeczytasz", false},
		{"caption by compound class", `<div class="image-subtitle">The old mill by the water</div>`, "The old mill", false},
		{"caption in an inline element", `<p><strong class="caption">The old mill by the water, seen from the bridge</strong></p>`, "The old mill", false},
		{"embedded facebook post", `<div class="fb-post"><blockquote><p>What a day at the river, thank you all for coming along.</p></blockquote></div>`, "What a day at the river", false},
		{"screen-reader-only text", `<p><span class="sr-only">Weitere Informationen</span></p>`, "Weitere Informationen", false},
		{"a tailwind block hidden on phones stays", `<div class="hidden lg:block"><p>The water reached the square by noon, and the market was moved uphill.</p></div>`, "the market was moved uphill", true},
		{"embedded tweet stays", `<blockquote class="twitter-tweet"><p>The water has reached the second step of the church.</p></blockquote>`, "reached the second step", true},
		{"a slideshow that is loading stays", `<div class="flexslider flexslider-loading"><ul><li><span>The mayor and the engineer beside the broken dam in the morning light.</span></li></ul></div>`, "beside the broken dam", true},
		{"a page builder's text widget stays", `<div class="elementor-element elementor-widget elementor-widget-text-editor"><div class="elementor-widget-container"><p>The dam held for three more hours while the engineers opened the sluices.</p></div></div>`, "The dam held", true},
		{"a page builder's posts widget goes", `<div class="elementor-widget elementor-widget-posts"><div class="elementor-widget-container"><p>Another story about the old mill and the bakery beside it.</p></div></div>`, "the old mill", false},
		{"a sidebar's text widget goes", `<div class="widget widget_text"><div class="textwidget"><p>Our shop by the harbour is open on Sundays from ten.</p></div></div>`, "open on Sundays", false},
		{"a table of contents stays", `<div id="toc_container"><ul><li><a href="#a">What the river did</a></li></ul></div>`, "What the river did", true},

		// texts
		{"copyright credit", `<p>The mayor at the bank. © Town Hall | Jane Doe</p>`, "Town Hall", false},
		{"figure caption in the text", `<p><em>Abbildung 4: Der Pegel am Morgen des zweiten Tages.</em></p>`, "Der Pegel am Morgen", false},
		{"release date line", `<p>Release Date: 21 April</p>`, "Release Date", false},
		{"byline label", `<div><span><b>Von:</b> Jane Doe</span></div>`, "Jane Doe", false},
		{"posted in", `<p>This entry was posted in News. Bookmark the permalink.</p>`, "Bookmark the permalink", false},
		{"polish copyright", `<p>Materiał chroniony prawem autorskim - wszelkie prawa zastrzeżone.</p>`, "chroniony prawem", false},
		{"follow prompt", `<p><strong>Follow Daily River on Instagram and send us your pictures of the water.</strong></p>`, "Follow Daily River", false},
		{"placeholder of an embed", `<p>Externer Inhalt</p>`, "Externer Inhalt", false},
		{"print button", `<p><a href="#print">Rezept drucken</a></p>`, "Rezept drucken", false},
		{"polish see-also", `<p><em>Czytaj też: <a href="/x">Powódź w dolinie</a></em></p>`, "Powódź w dolinie", false},
		{"siehe auch", `<p>Siehe auch <a href="/x">Hochwasser im Tal</a></p>`, "Hochwasser im Tal", false},
		{"buy box by class", `<div class="buybox__info"><p>Instant access to the full article PDF.</p></div>`, "Instant access", false},
		{"follow prompt up to 250 letters", `<p>Follow The Daily River on Twitter and Instagram @DailyRiver and on Facebook @DailyRiverNews. Send us a message at any hour of the day or the night, or write to the newsroom with your own pictures of the water and the town.</p>`, "Send us a message", false},
		{"date and category on one line", `<div>24.01.2022 11:38<br>Kategorie: <a href="/news">News</a></div>`, "Kategorie", false},
		{"a row of label fields", `<p>Aufrufe: 1120 | Hinzugefügt von: Posh | Tags: Fluss, Tal | Rating: 0.0/0</p>`, "Hinzugefügt von", false},
		{"a button label", `<p>Quellen ausblenden</p>`, "Quellen ausblenden", false},
		{"a table of contents' title", `<p class="toc-title">Inhaltsverzeichnis</p>`, "Inhaltsverzeichnis", false},
		{"a byline label beside block siblings", `<div><span><b>Von:</b> Jane Doe</span><p>The water is still high in the lower town.</p></div>`, "Jane Doe", false},
		{"a long see-also run of links", `<p>Siehe auch <a href="/1">Die dümmste aller Theorien über den Fluss und das Wetter im Tal</a> <a href="/2">Noch mehr Theorien über Dämme, Brücken und Wehre am Oberlauf</a> <a href="/3">Hellseher, Wahrsager und Astrologen sagen das nächste Hochwasser voraus</a> <a href="/4">Sinnlose Vorhersagen über Pegel, Regen und Schneeschmelze im Frühjahr</a></p>`, "Hellseher", false},
		{"a notice box stays", `<div class="notice"><h4>Important: keep away from the banks</h4><p>The water may rise again tonight, the town says.</p></div>`, "keep away from the banks", true},
		{"a donation in the news stays", `<p>The town will donate the old boats to the museum.</p>`, "donate the old boats", true},
		{"a time inside a sentence stays", `<p>The siren sounded at <strong>3:59 PM</strong>, and the people left.</p>`, "3:59 PM", true},
		{"numbers in a table stay", `<table><tr><td>Speed</td><td>0.091 GB/s</td></tr><tr><td>Size</td><td>12 MB</td></tr></table>`, "0.091 GB/s", true},
		{"a long sentence with a © stays", `<p>The museum, which holds the © of the old maps of the town, showed them for the first time to all the people of the valley after the great flood.</p>`, "showed them for the first time", true},
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

// The extra "more on this" headings end the article in its last third.
func TestMoreHeadingExtra(t *testing.T) {
	tests := []struct {
		heading string
		want    bool
	}{
		{"Das Thema könnte dich auch interessieren:", true},
		{"Diese Artikel könnten euch auch interessieren", true},
		{"Weitere Tourentipps", true},
		{"Auch auf example.de", true},
		{"Weiterführender Link", true},
		{"Top-15 meist-diskutiert", false},
		{"meist-diskutiert", true},
		{"Most read", true},
		{"Articles liés", true},
		{"Articles et vidéos sur le sujet", true},
		{"Suggested citation", true},
		{"New and exciting similar recipes", true},
		{"Noch mehr Infos für dich", true},
		{"Mehr Informationen:", true},
		{"Mehr Informationen zum Hochwasser finden Sie beim Landesamt", false},
		{"Audios et vidéos sur le sujet", true},
		{"Kontakt", true},
		{"Über diese Reihe", true},
		{"About the author", true},
		{"Über den Fluss", false},
		{"Ansprechpartnerin zum Thema:", true},
		{"Was der Fluss mit dem Tal machte", false},
		{"Weitere Schäden am Damm", false},
		{"Auch auf dem Land", false},
	}
	for _, tt := range tests {
		if got := isMoreHeading(tt.heading); got != tt.want {
			t.Errorf("isMoreHeading(%q) = %v, want %v", tt.heading, got, tt.want)
		}
	}
}

// A list of related posts with their excerpts under a short article goes,
// though it holds more than the 2/5 of the text any other block may.
func TestPruneBigRelatedList(t *testing.T) {
	item := func(i int) string {
		return fmt.Sprintf(`<li><a href="/p%d">Another story number %d</a><small>An excerpt of that other story, long enough to count as text of its own, about the river and the town.</small></li>`, i, i)
	}
	page := `<html><body><div class="entry"><p>The short post says what happened at the river this morning, and what the mayor said about the water and the roads after it.</p>` +
		`<p>It ends with a second paragraph about the harvest, the farmers and the fields that lie under water now.</p>` +
		`<ul class="related_post">` + item(1) + item(2) + item(3) + `</ul></div></body></html>`
	res, err := Extract([]byte(page), "https://news.test/post", nil)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	if strings.Contains(text, "Another story number") || !strings.Contains(text, "the harvest") {
		t.Errorf("want the post without its related list, got:\n%s", text)
	}
}

package fetch

import (
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
		{"wordpress entry utility", `<div class="entry-utility"><p>Filed in <a href="/c">Rivers</a>.</p></div>`, "Filed in", false},
		{"affiliate disclosure by class", `<section class="editorial-disclosure"><p>We may be paid when you buy through links on this page of the site.</p></section>`, "We may be paid", false},
		{"reading time by class", `<p><span class="readingTime">Ten tekst przeczytasz w mniej niż minutę</span></p>`, "Ten tekst przeczytasz", false},
		{"caption by compound class", `<div class="image-subtitle">The old mill by the water</div>`, "The old mill", false},
		{"caption in an inline element", `<p><strong class="caption">The old mill by the water, seen from the bridge</strong></p>`, "The old mill", false},
		{"embedded facebook post", `<div class="fb-post"><blockquote><p>What a day at the river, thank you all for coming along.</p></blockquote></div>`, "What a day at the river", false},
		{"embedded tweet stays", `<blockquote class="twitter-tweet"><p>The water has reached the second step of the church.</p></blockquote>`, "reached the second step", true},
		{"a slideshow that is loading stays", `<div class="flexslider flexslider-loading"><ul><li><span>The mayor and the engineer beside the broken dam in the morning light.</span></li></ul></div>`, "beside the broken dam", true},
		{"a table of contents stays", `<div id="toc_container"><ul><li><a href="#a">What the river did</a></li></ul></div>`, "What the river did", true},

		// texts
		{"copyright credit", `<p>The mayor at the bank. © Town Hall | Jane Doe</p>`, "Town Hall", false},
		{"figure caption in the text", `<p><em>Abbildung 4: Der Pegel am Morgen des zweiten Tages.</em></p>`, "Der Pegel am Morgen", false},
		{"release date line", `<p>Release Date: 21 April</p>`, "Release Date", false},
		{"byline label", `<div><span><b>Von:</b> Jane Doe</span></div>`, "Jane Doe", false},
		{"posted in", `<p>This entry was posted in News. Bookmark the permalink.</p>`, "Bookmark the permalink", false},
		{"polish copyright", `<p>Materiał chroniony prawem autorskim - wszelkie prawa zastrzeżone.</p>`, "chroniony prawem", false},
		{"follow prompt", `<p><strong>Follow The Daily River on Twitter and Instagram and send us your pictures of the water.</strong></p>`, "Follow The Daily River", false},
		{"placeholder of an embed", `<p>Externer Inhalt</p>`, "Externer Inhalt", false},
		{"print button", `<p><a href="#print">Rezept drucken</a></p>`, "Rezept drucken", false},
		{"polish see-also", `<p><em>Czytaj też: <a href="/x">Powódź w dolinie</a></em></p>`, "Powódź w dolinie", false},
		{"siehe auch", `<p>Siehe auch <a href="/x">Hochwasser im Tal</a></p>`, "Hochwasser im Tal", false},
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

package extract

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The phrase patterns must be prefiltered (else the speed-up is gone), and
// the prefilter must never change an answer: every block of the shared
// test pages gets the same answer from the phraseRE and the plain regexp.
func TestPhraseRE(t *testing.T) {
	pats := map[string]*phraseRE{"callToAction": callToAction, "seeAlso": seeAlso,
		"moreHeading": moreHeading, "moreHeadingExtra": moreHeadingExtra, "figureLine": figureLine, "labelLine": labelLine}
	// The name patterns are tried on class and id values and on their words.
	namePats := map[string]*phraseRE{"siteName": siteName, "boilerExtraName": boilerExtraName, "boilerWholeName": boilerWholeName,
		"containerTiers[0]": containerTiers[0], "containerTiers[1]": containerTiers[1],
		"boilerplateName": boilerplateName, "leadName": leadName, "wrongPickName": wrongPickName}
	for name, p := range namePats {
		pats[name] = p
	}
	for name, p := range pats {
		if p.need() == nil {
			t.Errorf("%s has no needed literals: every block runs the whole regexp", name)
		}
	}
	var texts, names []string
	for _, pg := range loadReadabilityPages(t) {
		doc, err := html.Parse(bytes.NewReader(pg.source))
		if err != nil {
			t.Fatal(err)
		}
		walk(doc, func(n *html.Node) bool {
			if n.Type != html.ElementNode {
				return true
			}
			if v := strings.ToLower(attrOr(n, "class") + " " + attrOr(n, "id")); v != " " {
				names = append(names, v)
				names = append(names, strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '-' || r == '_' })...)
			}
			switch n.DataAtom {
			case atom.P, atom.Li, atom.H2, atom.H3, atom.H4, atom.Span, atom.A, atom.Td, atom.Figcaption:
				// The rules test blocks of under 200 letters.
				if s := textOf(n); len(s) < 300 {
					texts = append(texts, s)
				}
				return false
			}
			return true
		})
	}
	slices.Sort(names)
	names = slices.Compact(append(names, "subtitle", "sr-only", "wp-caption-text"))
	texts = append(texts, "Abbildung 3: Der Aufbau", "Fig. 2. The set-up", "Subscribe now", "ZAPISZ SIĘ", "Únete a nuestro canal", "Alle Rechte vorbehalten", "Werbung", "Lesen Sie auch: x", "CZYTAJ TEŻ")
	for name, p := range pats {
		plain := regexp.MustCompile(p.String())
		n := 0
		in := texts
		if namePats[name] != nil {
			in = names
		}
		for _, s := range in {
			if got, want := p.MatchString(s), plain.MatchString(s); got != want {
				t.Errorf("%s on %q: prefiltered %v, regexp %v", name, s, got, want)
			}
			if plain.MatchString(s) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s matched none of %d texts: the comparison proves nothing", name, len(in))
		}
	}
}

// neededLiterals finds the words an alternation needs, and none where a
// branch needs nothing.
func TestNeededLiterals(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{`(?i)\bsubscri(?:be|ption)|\bnewsletter`, []string{"subscri", "newsletter"}},
		{`(?i)^\W*(?:anzeige|werbung)\b`, []string{"anzeige", "werbung"}},
		{`(?i)\bsign(?:ing)? up\b`, []string{"sign"}},
		{`[uú]nete`, []string{"nete"}},
		{`newsletter|\d+ min`, []string{"newsletter", " min"}},
		{`newsletter|\d+`, nil},
		{`a|b`, nil},
	}
	for _, tt := range tests {
		got := newPhraseRE(tt.expr).need()
		if len(got) != len(tt.want) {
			t.Errorf("%s: need %q, want %q", tt.expr, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: need %q, want %q", tt.expr, got, tt.want)
			}
		}
	}
}

// Every lazily compiled regexp of the package compiles (a broken one
// would otherwise panic only on the first page that reaches its rule).
func TestWarmersCompileEveryRule(t *testing.T) {
	if len(warmers) < 20 {
		t.Fatalf("%d warmers: the package's rules are not all registered", len(warmers))
	}
	for i, warm := range warmers {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("warmer %d: %v", i, r)
				}
			}()
			warm()
		}()
	}
	for _, p := range phrases {
		if _, err := regexp.Compile(p.String()); err != nil {
			t.Errorf("phrase pattern: %v", err)
		}
	}
	if len(phrases) < 10 {
		t.Errorf("%d phrase patterns: not all are registered", len(phrases))
	}
}

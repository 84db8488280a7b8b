package fetch

import (
	"bytes"
	"regexp"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The phrase patterns must be prefiltered (else the speed-up is gone), and
// the prefilter must never change an answer: every block of the shared
// test pages gets the same answer from the phraseRE and the plain regexp.
func TestPhraseRE(t *testing.T) {
	pats := map[string]*phraseRE{"callToAction": callToAction, "seeAlso": seeAlso}
	for name, p := range pats {
		if p.need() == nil {
			t.Errorf("%s has no needed literals: every block runs the whole regexp", name)
		}
	}
	var texts []string
	for _, pg := range loadReadabilityPages(t) {
		doc, err := html.Parse(bytes.NewReader(pg.source))
		if err != nil {
			t.Fatal(err)
		}
		walk(doc, func(n *html.Node) bool {
			if n.Type != html.ElementNode {
				return true
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
	texts = append(texts, "Subscribe now", "ZAPISZ SIĘ", "Únete a nuestro canal", "Alle Rechte vorbehalten", "Werbung", "Lesen Sie auch: x", "CZYTAJ TEŻ")
	for name, p := range pats {
		plain := regexp.MustCompile(p.String())
		n := 0
		for _, s := range texts {
			if got, want := p.MatchString(s), plain.MatchString(s); got != want {
				t.Errorf("%s on %q: prefiltered %v, regexp %v", name, s, got, want)
			}
			if plain.MatchString(s) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s matched none of %d texts: the comparison proves nothing", name, len(texts))
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
// would otherwise panic only on the first page that reaches its rule), and
// warmRules reaches them all.
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
}

package wordf1

import "testing"

func TestScore(t *testing.T) {
	cases := []struct {
		name, want, got string
		p, r, f         float64
	}{
		{"same words", "The cat sat.", "the CAT sat", 1, 1, 1},
		{"both empty", "", "", 1, 1, 1},
		{"nothing found", "the cat", "", 0, 0, 0},
		{"half kept, nothing extra", "one two three four", "one two", 1, 0.5, 2.0 / 3},
		{"a repeated word counts as often as wanted", "go go stop", "go go go go", 0.5, 2.0 / 3, 4.0 / 7},
	}
	for _, c := range cases {
		p, r, f := Score(Words(c.want), Words(c.got))
		if !near(p, c.p) || !near(r, c.r) || !near(f, c.f) {
			t.Errorf("%s: P %.3f R %.3f F1 %.3f, want %.3f %.3f %.3f", c.name, p, r, f, c.p, c.r, c.f)
		}
	}
}

func TestWCXBWords(t *testing.T) {
	// evaluate.py's \w+ keeps the underscore; Words splits at it.
	if got := WCXBWords("snake_case Héllo, 42"); len(got) != 3 || got[0] != "snake_case" || got[1] != "héllo" {
		t.Errorf("WCXBWords = %q", got)
	}
	if got := Words("snake_case"); len(got) != 2 {
		t.Errorf("Words = %q", got)
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

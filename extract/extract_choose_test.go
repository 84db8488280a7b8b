package extract

import (
	"math/rand"
	"testing"
)

// sentenceEnds counts what the sentenceEnd regexp finds.
func TestSentenceEnds(t *testing.T) {
	alphabet := []rune("ab1 .!?…。！？)\"”»’\t\n\v\u00a0xé")
	rng := rand.New(rand.NewSource(1))
	cases := []string{"", ".", "a.", "a. b.", "a..", "1! x", "”. ", "a.\u00a0b", "a.\vb", "子。子。"}
	for i := 0; i < 20000; i++ {
		r := make([]rune, rng.Intn(12))
		for j := range r {
			r[j] = alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, string(r))
	}
	for _, s := range cases {
		if got, want := sentenceEnds(s), len(sentenceEnd().FindAllStringIndex(s, -1)); got != want {
			t.Fatalf("sentenceEnds(%q) = %d, the regexp finds %d", s, got, want)
		}
	}
}

// Package wordf1 scores an extractor's text against the text a reader
// wants, as the benchmarks this project is measured on do: word F1 over
// bags of words. extract's quality tests and bench/fetch/trafilatura both
// score with it, so a figure in a test and the same figure in a bench run
// are one computation.
package wordf1

import (
	"regexp"
	"strings"
	"unicode"
)

// Words splits s into lower-case runs of letters and digits.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

var wcxbWord = regexp.MustCompile(`[\p{L}\p{N}_]+`)

// WCXBWords are WCXB's evaluate.py tokens of s: lower-case \w+ runs
// (letters, digits and the underscore).
func WCXBWords(s string) []string { return wcxbWord.FindAllString(strings.ToLower(s), -1) }

// Score is got's precision, recall and F1 against want as bags of words:
// each word of got counts as found as often as want holds it. Two empty
// texts agree (1, 1, 1); one empty text scores 0.
func Score(want, got []string) (precision, recall, f1 float64) {
	if len(want) == 0 && len(got) == 0 {
		return 1, 1, 1
	}
	bag := make(map[string]int, len(want))
	for _, w := range want {
		bag[w]++
	}
	common := 0
	for _, g := range got {
		if bag[g] > 0 {
			bag[g]--
			common++
		}
	}
	if common == 0 {
		return 0, 0, 0
	}
	precision = float64(common) / float64(len(got))
	recall = float64(common) / float64(len(want))
	return precision, recall, 2 * precision * recall / (precision + recall)
}

// WCXB is WCXB's evaluate.py score of got against the page's main_content.
func WCXB(truth, got string) (precision, recall, f1 float64) {
	return Score(WCXBWords(truth), WCXBWords(got))
}

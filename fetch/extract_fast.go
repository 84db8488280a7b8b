package fetch

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// The pruning rules test most blocks of a page against long alternations
// of phrases ("subscribe", "newsletter", "alle Rechte vorbehalten" …).
// Go's regexp runs an unanchored alternation as an NFA over every byte of
// the text, which made those few patterns the larger part of extraction
// time. A phraseRE first looks, with strings.Contains on the lower-cased
// text, for the literal words one of which any match must hold (found in
// the pattern's own syntax tree, so a new alternative never goes unseen),
// and runs the regexp only when one is there.

// phraseRE is a regexp with the literals a match needs.
type phraseRE struct {
	re *regexp.Regexp
	// need holds lower-cased strings one of which every match contains;
	// nil when the pattern has no such set (then the regexp always runs).
	need []string
}

// mustPhraseRE compiles expr as regexp.MustCompile does, with its needed
// literals.
func mustPhraseRE(expr string) *phraseRE {
	p := &phraseRE{re: regexp.MustCompile(expr)}
	if tree, err := syntax.Parse(expr, syntax.Perl); err == nil {
		p.need = neededLiterals(tree.Simplify())
	}
	return p
}

// MatchString reports whether s holds a match of the pattern.
func (p *phraseRE) MatchString(s string) bool {
	if p.need != nil {
		l := strings.ToLower(s)
		found := false
		for _, w := range p.need {
			if strings.Contains(l, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return p.re.MatchString(s)
}

// String is the pattern's source text.
func (p *phraseRE) String() string { return p.re.String() }

// neededLiterals returns lower-cased strings one of which every match of
// re contains, or nil when there is no such set. Literals shorter than 3
// bytes are not worth a scan and count as none.
func neededLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := strings.ToLower(string(re.Rune))
		if len(s) < 3 {
			return nil
		}
		return []string{s}
	case syntax.OpCapture, syntax.OpPlus:
		return neededLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return neededLiterals(re.Sub[0])
		}
		return nil
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			n := neededLiterals(sub)
			if n == nil {
				return nil
			}
			all = append(all, n...)
		}
		return all
	case syntax.OpConcat:
		// Every part must match: the part with the most selective set
		// (its shortest literal longest) stands for the whole.
		var best []string
		bestLen := 0
		for _, sub := range re.Sub {
			n := neededLiterals(sub)
			if n == nil {
				continue
			}
			short := len(n[0])
			for _, w := range n[1:] {
				short = min(short, len(w))
			}
			if short > bestLen {
				best, bestLen = n, short
			}
		}
		return best
	}
	return nil
}

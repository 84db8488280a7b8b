package extract

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// The pruning rules test most blocks of a page against long alternations
// of phrases ("subscribe", "newsletter", "alle Rechte vorbehalten" …).
// Go's regexp runs an unanchored alternation as an NFA over every byte of
// the text, which made those few patterns the larger part of extraction
// time. A phraseRE first looks, with strings.Contains on the lower-cased
// text, for the literal words one of which any match must hold (found in
// the pattern's own syntax tree, so a new alternative never goes unseen),
// and runs the regexp only when one is there.

// The package's regexps are compiled on first use (lazyRegexp,
// mustPhraseRE), so a process that never extracts a page pays nothing for
// them. Compiling them all takes about 4 ms of CPU. Warm (fetch.NewClient
// calls it) starts the ones every page needs on another goroutine, where they
// overlap the request and the parse of the page instead of standing in
// front of the pruning rules; a phrase pattern's regexp waits for a text
// holding one of its words, which many pages never have.

// warmers compile each lazily compiled regexp of the package; phrases are
// the phrase patterns (whose regexps are not warmed: see mustPhraseRE).
var (
	warmers []func()
	phrases []*phraseRE
)

// lazyRegexp is regexp.MustCompile, done on the first call of the function
// it returns (or by warmRules). For package-level declarations only: it
// adds to warmers, which warmRules reads once init is over.
func lazyRegexp(expr string) func() *regexp.Regexp {
	re := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
	warmers = append(warmers, func() { re() })
	return re
}

// Warm starts compiling the regexps every page needs, once per process, on
// a goroutine of its own, so that they overlap a request and the parse of
// its page; a client about to fetch calls it.
func Warm() { warmRules() }

// warmRules runs the warmers, once per process, on a goroutine of its own:
// every lazyRegexp, and each phrase pattern's needed literals.
var warmRules = sync.OnceFunc(func() {
	go func() {
		for _, warm := range warmers {
			warm()
		}
	}()
})

// phraseRE is a regexp with the literals a match needs. Both are made on
// first use: a process that never looks for the phrase (or, for the
// regexp, never meets one of its words) does not pay for compiling it.
type phraseRE struct {
	expr string
	// need holds lower-cased strings one of which every match contains;
	// nil when the pattern has no such set (then the regexp always runs).
	need func() []string
	re   func() *regexp.Regexp

	// memo holds the answers for short texts: class and id tokens and
	// short lines, asked again and again on a page and from page to page.
	memo valueMemo[bool]
}

// memoText is the longest text a phraseRE remembers its answer for.
const memoText = 64

// mustPhraseRE is regexp.MustCompile for a phrase pattern: the pattern
// must compile, and is compiled when it is first needed (or by warmRules).
// For package-level declarations only, as lazyRegexp.
func mustPhraseRE(expr string) *phraseRE {
	p := newPhraseRE(expr)
	// Its regexp is left for the first text holding one of its words:
	// on many pages none does.
	warmers = append(warmers, func() { p.need() })
	phrases = append(phrases, p)
	return p
}

// unicodeClass matches \pL, \p{Lu}, \PN … in a pattern's source.
var unicodeClass = lazyRegexp(`\\[pP](?:\{\w+\}|\w)`)

// newPhraseRE is mustPhraseRE without the warming.
func newPhraseRE(expr string) *phraseRE {
	return &phraseRE{
		expr: expr,
		need: sync.OnceValue(func() []string {
			// The literals are compared lower-cased, so the pattern is
			// read without its (?i), and with each Unicode class as \d:
			// case folding and the classes' tables are the slow part of
			// parsing, and no class is a literal.
			tree, err := syntax.Parse(unicodeClass().ReplaceAllString(strings.TrimPrefix(expr, "(?i)"), `\d`), syntax.Perl)
			if err != nil {
				return nil // the regexp's own compile reports it
			}
			return neededLiterals(tree.Simplify())
		}),
		re:   sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) }),
		memo: valueMemo[bool]{max: memoText},
	}
}

// MatchString reports whether s holds a match of the pattern.
func (p *phraseRE) MatchString(s string) bool { return p.memo.get(s, p.match) }

// match is MatchString without the memo.
func (p *phraseRE) match(s string) bool {
	if need := p.need(); need != nil {
		l := strings.ToLower(s)
		if !slices.ContainsFunc(need, func(w string) bool { return strings.Contains(l, w) }) {
			return false
		}
	}
	return p.re().MatchString(s)
}

// String is the pattern's source text.
func (p *phraseRE) String() string { return p.expr }

// neededLiterals returns lower-cased strings one of which every match of
// re contains, or nil when there is no such set. Literals shorter than 2
// bytes are not worth a scan and count as none.
func neededLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := strings.ToLower(string(re.Rune))
		if len(s) < 2 {
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

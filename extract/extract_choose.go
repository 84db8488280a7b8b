package extract

import (
	"math"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Every HTML page is read two ways: as an article (readability's pick, or
// the page's own article container, pruned) and broadly (the page's main
// region without the site's chrome). Which of the two a reader wants is a
// scored decision: a few hundred shallow trees (gradient boosted, depth 3)
// over features of both readings (their length, link density, share of
// paragraphs, sentences, headings, list items, repeated sibling cards,
// code blocks; readability's pick measured before pruning; the page type
// and whether the page's own data declares it) give the log-odds that the
// broad one is the better. The trees (extract_choose_weights.go) are
// learned from the dev pages by TestChooserWeights, which writes them with
// CHOOSER_WRITE=1 and fails when the shipped trees are not what it learns.

// readingChoice forces one reading (the trainer's view of both).
type readingChoice int

const (
	readModel   readingChoice = iota // the model chooses
	readArticle                      // always the article reading
	readBroad                        // always the broad one
)

// readingStats are what choiceFeatures measures of one reading.
type readingStats struct {
	letters   int // letters and digits, links included
	links     int // of them inside links to other pages
	para      int // of them inside <p>
	sentences int // sentence ends
	headings  int
	items     int // <li>
	pres      int
	cards     int // the most element siblings alike (tag and class) under one parent
}

func measureReading(root *html.Node) readingStats {
	var s readingStats
	type frame struct {
		n          *html.Node
		link, para bool
	}
	stack := []frame{{n: root}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := f.n
		switch n.Type {
		case html.TextNode:
			l := countLetters(n.Data)
			s.letters += l
			if f.link {
				s.links += l
			}
			if f.para {
				s.para += l
			}
			if l > 0 {
				s.sentences += sentenceEnds(n.Data)
			}
			continue
		case html.ElementNode:
			if n.DataAtom == 0 {
				n.DataAtom = atom.Lookup([]byte(n.Data))
			}
			if nonContent[n.DataAtom] {
				continue
			}
			switch n.DataAtom {
			case atom.A:
				f.link = f.link || !isAnchorLink(n)
			case atom.P:
				f.para = true
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				s.headings++
			case atom.Li:
				s.items++
			case atom.Pre:
				s.pres++
			}
			s.cards = max(s.cards, alikeChildren(n))
		case html.DocumentNode:
		default:
			continue
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, frame{c, f.link, f.para})
		}
	}
	return s
}

// sentenceEnds counts sentenceEnd's matches in s without the regexp
// (measureReading runs on every text node of two readings): a letter, a
// digit or a closing bracket or quote, then an end mark, then white space
// or the end. Matches cannot overlap, so every such triple is one.
func sentenceEnds(s string) int {
	n := 0
	var prev, cur rune = -1, -1
	for _, r := range s {
		if isSentenceMark(cur) && isSentenceLast(prev) && isRESpace(r) {
			n++
		}
		prev, cur = cur, r
	}
	if isSentenceMark(cur) && isSentenceLast(prev) {
		n++
	}
	return n
}

func isSentenceLast(r rune) bool {
	return r >= 0 && (unicode.IsLetter(r) || r >= '0' && r <= '9' || strings.ContainsRune(`)"”»’`, r))
}

func isSentenceMark(r rune) bool { return r >= 0 && strings.ContainsRune(".!?…。！？", r) }

// isRESpace is the regexp package's \s: ASCII white space.
func isRESpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r' }

// alikeChildren is the size of the largest group of n's element children
// with the same tag and class: the cards of a grid, the posts of a thread.
func alikeChildren(n *html.Node) int {
	best := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		// Only the first of a group counts it, so a parent costs the
		// square of its children's groups at worst; lists are short.
		k := 0
		cls := attrOr(c, "class")
		first := true
		for d := n.FirstChild; d != nil; d = d.NextSibling {
			if d.Type != html.ElementNode || d.Data != c.Data || attrOr(d, "class") != cls {
				continue
			}
			if d != c && k == 0 {
				first = false
				break
			}
			k++
		}
		if first {
			best = max(best, k)
		}
		if best > 64 {
			break
		}
	}
	return best
}

// nChoiceFeatures is the length of choiceFeatures' vector.
const nChoiceFeatures = 25

// choiceFeatures describes the two readings of a page for the chooser:
// article is the article reading (pruned), preLen the letters of
// readability's pick before pruning, broad the broad reading.
func choiceFeatures(article, broad *html.Node, preLen int, kind PageType, declared bool) []float64 {
	a, b := measureReading(article), measureReading(broad)
	strict := strictTextLen(broad)
	plainA := plainTextLen(article)
	ratio := func(x, y int) float64 {
		if y == 0 {
			return 0
		}
		return float64(x) / float64(y)
	}
	l := func(x int) float64 { return math.Log1p(float64(x)) }
	flag := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	return []float64{
		l(a.letters), l(preLen), l(b.letters), l(strict),
		math.Log(float64(1+strict) / float64(1+plainA)),
		ratio(a.links, a.letters), ratio(b.links, b.letters),
		ratio(a.para, a.letters), ratio(b.para, b.letters),
		l(a.headings), l(b.headings), l(a.items), l(b.items),
		l(a.cards), l(b.cards), l(b.pres),
		1000 * ratio(a.sentences, a.letters), 1000 * ratio(b.sentences, b.letters),
		flag(declared),
		flag(kind == PageForum), flag(kind == PageProduct), flag(kind == PageCollection),
		flag(kind == PageListing), flag(kind == PageDocumentation), flag(kind == PageService),
	}
}

// chooserNode is one node of the chooser's trees: a split (feat, thr;
// left when the feature is at most thr) or a leaf (left < 0) adding value.
type chooserNode struct {
	feat        int
	thr, value  float64
	left, right int
}

// broadScore is the model's log-odds that the broad reading is the better:
// the bias plus a value from each tree.
func broadScore(x []float64) float64 {
	return treesScore(chooserBias, chooserNodes, chooserRoots, x)
}

func treesScore(bias float64, nodes []chooserNode, roots []int, x []float64) float64 {
	z := bias
	for _, i := range roots {
		for nodes[i].left >= 0 {
			if x[nodes[i].feat] <= nodes[i].thr {
				i = nodes[i].left
			} else {
				i = nodes[i].right
			}
		}
		z += nodes[i].value
	}
	return z
}

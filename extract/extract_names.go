package extract

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/net/html"
)

// The rules judge blocks by their class and id names many times over:
// pruning, the lead, the chooser's features and the broad reading each ask
// of every block whether it is named as boilerplate. A page repeats its
// class values (every card, every post), and the pages of a site repeat
// them too, so what a value says is worked out once and remembered
// (valueMemo): splitting it into tokens and matching each token against
// long alternations was a tenth of extraction time.

// valueMemo remembers f(v) for the values v no longer than max bytes:
// the last memoEntries to 2*memoEntries of them (when the newer map is
// full it becomes the older one, and the older is let go, so a long batch
// keeps what its latest pages asked). It is safe for concurrent use, as
// pages are read on several goroutines. f must depend on v alone.
type valueMemo[T any] struct {
	max        int
	mu         sync.Mutex
	new, older map[string]T
}

// memoEntries bounds each of a valueMemo's two maps.
const memoEntries = 4096

func (c *valueMemo[T]) get(v string, f func(string) T) T {
	if len(v) > c.max {
		return f(v)
	}
	c.mu.Lock()
	r, ok := c.new[v]
	if !ok {
		r, ok = c.older[v]
	}
	c.mu.Unlock()
	if ok {
		return r
	}
	r = f(v)
	c.mu.Lock()
	if len(c.new) >= memoEntries || c.new == nil {
		c.older, c.new = c.new, map[string]T{}
	}
	c.new[strings.Clone(v)] = r
	c.mu.Unlock()
	return r
}

// memoValue is the longest class or id value whose verdicts are
// remembered.
const memoValue = 256

// classNames are a class or id value's names (split at white space, lower
// case), each with its tokens (split at anything that is not a letter or
// digit): "Post-Body is-open" is [post-body is-open] with [[post body] [is
// open]].
type classNames struct {
	names []string
	toks  [][]string
}

var namesMemo = valueMemo[classNames]{max: memoValue}

// splitNames is v's classNames.
func splitNames(v string) classNames {
	return namesMemo.get(v, func(v string) classNames {
		var c classNames
		for _, name := range strings.Fields(strings.ToLower(v)) {
			c.names = append(c.names, name)
			c.toks = append(c.toks, strings.FieldsFunc(name, notAlnum))
		}
		return c
	})
}

func notAlnum(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// classOrIDSays says test holds for n's class or its id value, as memo
// remembers it.
func classOrIDSays(n *html.Node, memo *valueMemo[bool], test func(string) bool) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && (a.Key == "class" || a.Key == "id") && memo.get(a.Val, test) {
			return true
		}
	}
	return false
}

// Package textutil holds the small string helpers every package wants one
// copy of: a message cut to one line, untrusted text made safe to show at a
// terminal, and the edit distance behind "did you mean". It imports nothing
// of ours.
package textutil

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FirstLine is s trimmed to its first line, cut to at most n characters
// (with "…") when n > 0. It is for error messages that must stay on one
// line.
func FirstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return Cut(s, n)
}

// OneLine is all of s on one line (runs of white space, newlines included,
// become one space), cut to at most n characters when n > 0.
func OneLine(s string, n int) string {
	return Cut(strings.Join(strings.Fields(s), " "), n)
}

// Labelled is msg labelled with what it is about, "label: msg", naming
// label once: a msg that already starts with it ("label: …" from an error
// wrapped with its name, "label may change…" from a sentence about it)
// is returned as it is.
func Labelled(label, msg string) string {
	if label == "" || msg == label {
		return msg
	}
	if rest, ok := strings.CutPrefix(msg, label); ok && (strings.HasPrefix(rest, ": ") || strings.HasPrefix(rest, " ")) {
		return msg
	}
	return label + ": " + msg
}

// Cut shortens s to at most n characters, the last one "…"; n <= 0 keeps s.
func Cut(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// EditDistance is the Levenshtein distance between a and b, in characters.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Wrap breaks s into lines of at most width characters, at spaces (a
// word longer than width stands on a line of its own, whole); the first
// line gets first before it, the others indent. Newlines in s start new
// lines. Nothing of s is dropped.
func Wrap(s string, width int, first, indent string) string {
	var b strings.Builder
	prefix := first
	for _, para := range strings.Split(strings.TrimSpace(s), "\n") {
		line := prefix
		empty := true
		for _, w := range strings.Fields(para) {
			if !empty && len([]rune(line))+1+len([]rune(w)) > width {
				b.WriteString(line + "\n")
				line, empty = indent, true
			}
			if !empty {
				line += " "
			}
			line += w
			empty = false
		}
		b.WriteString(line + "\n")
		prefix = indent
	}
	return b.String()
}

// Visible is untrusted text (what a page, a tool, a project file or a
// model chose) made safe to show to a person at a terminal: every character
// a terminal would act on or that reorders or hides text — control
// characters but newline and tab, bidi controls, zero-width ones, invalid
// UTF-8 — is shown as an escape (\x1b, \u202e), so "\r\x1b[2K" cannot
// erase what was printed before it, and the person reads every character
// there is. Every place that prints such text uses it (or VisibleLine).
func Visible(s string) string { return visible(s, false) }

// VisibleLine is Visible for text shown on one line (a command, a URL, a
// table cell): newlines and tabs are escaped too (\n, \t), so the text
// cannot start a line of its own that looks like browseragent's.
func VisibleLine(s string) string { return visible(s, true) }

func visible(s string, line bool) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return hidden(r, line) }) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		var r rune
		r, w = utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !hidden(r, line):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func hidden(r rune, line bool) bool {
	if r == '\n' || r == '\t' {
		return line
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u200b' || r == '\u200c' ||
		r == '\u200d' || r == '\u2060' || r == '\ufeff' || r == '\u2028' || r == '\u2029' || r == utf8.RuneError
}

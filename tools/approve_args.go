package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/browseragent/browseragent/guard"
)

// blockOver is the length above which a string argument is shown as a
// block of its own lines instead of inline.
const blockOver = 80

// summarizeArgs renders a call's arguments for the approval box exactly as
// they run: nothing cut, nothing JSON- or percent-escaped; only secrets are
// masked (every typed value too when the field is a password field) and
// characters a terminal would act on (escape sequences, bidi overrides)
// are shown as \x1b-style escapes. Short values come first, on one line;
// a script, a multi-line or a long value follows as a block, whole, with
// its length.
func summarizeArgs(c *ResolvedCall) string {
	red := guard.RedactArgsWhole(c.Args, c.Page.Secret)
	keys := make([]string, 0, len(red))
	for k := range red {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var inline, blocks []string
	for _, k := range keys {
		str, isStr := red[k].(string)
		if !isStr {
			inline = append(inline, k+"="+visible(rawJSON(red[k])))
			continue
		}
		str = visible(str)
		if c.Entry.IsScript(k) || strings.Contains(str, "\n") || utf8.RuneCountInString(str) > blockOver {
			blocks = append(blocks, block(k, str, c.Entry.IsScript(k)))
			continue
		}
		inline = append(inline, k+`="`+str+`"`)
	}
	if len(inline) > 0 {
		blocks = append([]string{strings.Join(inline, " ")}, blocks...)
	}
	return strings.Join(blocks, "\n")
}

// block shows a long value whole, under a line that says how long it is.
func block(key, s string, script bool) string {
	what := "text"
	if script {
		what = "script"
	}
	lines := strings.Split(s, "\n")
	head := fmt.Sprintf("%s (%s, %d characters", key, what, utf8.RuneCountInString(s))
	if len(lines) > 1 {
		head += fmt.Sprintf(", %d lines", len(lines))
	}
	head += ", shown whole):"
	return head + "\n  " + strings.Join(lines, "\n  ")
}

// rawJSON encodes v without HTML escaping (=> stays =>).
func rawJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// visible replaces the characters a terminal would act on or that reorder
// text (control characters but newline and tab, bidi controls, zero-width
// ones) with escapes, so the box shows every character that runs.
func visible(s string) string {
	clean := true
	for _, r := range s {
		if hidden(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !hidden(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func hidden(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u200b' || r == '\u200c' ||
		r == '\u200d' || r == '\u2060' || r == '\ufeff' || r == utf8.RuneError
}

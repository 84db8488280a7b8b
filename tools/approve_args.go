package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/textutil"
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
			inline = append(inline, k+"="+textutil.Visible(rawJSON(red[k])))
			continue
		}
		str = textutil.Visible(str)
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

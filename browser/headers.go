package browser

import (
	"regexp"
	"sync"
)

// Header lines and JSON members that carry credentials: a session cookie,
// a bearer token, proxy credentials.
var (
	// A line starts at a line break, or at an escaped one (\n) or a quote
	// inside a JSON string (what browser_eval returns).
	headerLineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?im)((?:^|\\[nr]|")[ \t]*(?:[-*][ \t]+)?(?:cookie|set-cookie|authorization|proxy-authorization)[ \t]*:[ \t]*)(?:[^\s"\\]|\\[^nr])(?:[^\r\n"\\]|\\[^nr])*`)
	})
	headerJSONRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)("(?:cookie|set-cookie|authorization|proxy-authorization)"[ \t]*:[ \t]*)"(?:[^"\\]|\\.)*"`)
	})
)

// redactedMark replaces a credential header's value.
const redactedMark = "<redacted>"

// RedactHeaders hides the values of Cookie, Set-Cookie, Authorization and
// Proxy-Authorization wherever text shows them as header lines
// ("Cookie: a=b", "- cookie: a=b", also inside a JSON string) or JSON
// members ("cookie":"a=b"), so
// no tool result hands the person's session or tokens to the model.
func RedactHeaders(text string) string {
	text = headerLineRE().ReplaceAllString(text, "${1}"+redactedMark)
	return headerJSONRE().ReplaceAllString(text, `${1}"`+redactedMark+`"`)
}

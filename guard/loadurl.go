package guard

import (
	"regexp"
	"strings"
	"sync"
)

var (
	schemeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	})
	hostPortRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[^/:]+:\d+(/|$)`)
	})
)

// LoadURL is the one fix-up of an address the agent or the person typed: a
// bare host gets a scheme as an address bar gives it (http for this
// machine, https elsewhere); anything with a scheme is left as it is. The
// registry applies it before the guard judges a navigation and hands the
// result to the browser, so what is judged is what loads; Normalize reads a
// bare host the same way.
func LoadURL(raw string) string {
	u := strings.TrimSpace(raw)
	if u == "" || schemeRE().MatchString(u) && !hostPortRE().MatchString(u) {
		return u
	}
	return bareScheme(u) + "://" + u
}

// bareScheme is the scheme a host typed without one is loaded with.
func bareScheme(s string) string {
	h := strings.ToLower(s)
	for _, local := range []string{"localhost", "127.", "[::1]", "0.0.0.0", "[::]"} {
		if strings.HasPrefix(h, local) {
			return "http"
		}
	}
	return "https"
}

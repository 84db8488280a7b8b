package guard

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// URL is an address reduced to the parts rules are matched on, after every
// trick a browser would undo has been undone: case, IDNA, percent-encoding,
// dot segments, userinfo, default ports and odd IPv4 spellings.
type URL struct {
	// Scheme is lower case: "https", "chrome", "javascript".
	Scheme string
	// Host is lower-case ASCII (punycode "xn--" for IDN), without trailing
	// dots; IPv4 in dotted decimal, IPv6 in brackets. Empty for opaque
	// URLs and for local files.
	Host string
	// Port is empty when it is the scheme's default.
	Port string
	// Path is percent-decoded, with "." and ".." resolved and repeated
	// slashes collapsed; "/" at least. Query and fragment are dropped.
	Path string
	// Query is the query without its "?", percent-decoded, for rule paths
	// that name one ("/*?*rest_route=*"); "" when there is none. It is not
	// part of String.
	Query string
	// Opaque is set for addresses without a host (javascript:, data:,
	// about:, mailto:...). They are judged by the page they act in.
	Opaque bool
	// Via names the wrapper scheme that was peeled off ("blob",
	// "view-source", "filesystem"); the URL is the inner one.
	Via string
}

// String returns the normalised address as it is judged.
func (u URL) String() string {
	if u.Opaque {
		return u.Scheme + ":"
	}
	var b strings.Builder
	if u.Via != "" {
		b.WriteString(u.Via + ":")
	}
	b.WriteString(u.Scheme + "://" + u.Host)
	if u.Port != "" {
		b.WriteString(":" + u.Port)
	}
	b.WriteString(u.Path)
	return b.String()
}

// errBadURL is wrapped by every error Normalize returns.
var errBadURL = errors.New("not a usable URL")

// specialSchemes are the WHATWG "special" schemes: a browser turns
// backslashes into slashes in them, ignores extra slashes after the colon and
// decodes their host.
var specialSchemes = map[string]string{
	"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21", "file": "",
}

// standardSchemes are the schemes Chromium registers as "standard" with a
// host (url::AddStandardScheme): chrome:, devtools:, extension pages and the
// forks' aliases of chrome:. Chromium parses them as it parses http: slashes
// and backslashes after the colon are skipped and the host is decoded and
// lower-cased, so "chrome:/%73ettings" loads chrome://settings. They have no
// default port.
var standardSchemes = map[string]bool{
	"chrome": true, "chrome-untrusted": true, "chrome-extension": true, "chrome-search": true,
	"devtools": true, "isolated-app": true, "edge": true, "brave": true, "opera": true, "vivaldi": true,
}

// wrapperSchemes carry another URL inside; the inner one is what loads.
var wrapperSchemes = map[string]bool{"blob": true, "view-source": true, "filesystem": true}

var errTooDeep = errors.New("too many nested blob:/view-source: wrappers")

// Normalize reduces raw to the form rules are matched on. It follows what a
// browser does with the same string (the WHATWG URL standard), so that what
// guard judges is what the browser would load. A string without a scheme
// that starts like a host ("paypal.com/x") is read as LoadURL reads it:
// https, or http for this machine.
func Normalize(raw string) (URL, error) {
	u, err := normalize(raw, 0)
	if err != nil {
		return URL{}, fmt.Errorf("%w: %q: %v", errBadURL, clip(raw, 80), err)
	}
	return u, nil
}

func normalize(raw string, depth int) (URL, error) {
	s := cleanInput(raw)
	if s == "" {
		return URL{}, errors.New("empty")
	}
	scheme, rest, ok := splitScheme(s)
	if !ok {
		if !looksLikeHost(s) {
			return URL{}, errors.New("no scheme: give a full URL like https://example.com/")
		}
		scheme, rest = bareScheme(s), "//"+s // as LoadURL, which is what loads
	}
	if wrapperSchemes[scheme] {
		return unwrap(scheme, rest, depth)
	}
	_, special := specialSchemes[scheme]
	special = special || standardSchemes[scheme]
	if special {
		rest = slashify(rest)
		if scheme != "file" {
			rest = "//" + strings.TrimLeft(rest, "/")
		}
	}
	if !strings.HasPrefix(rest, "//") {
		if scheme == "file" {
			return URL{Scheme: scheme, Path: canonPath(rest)}, nil
		}
		return URL{Scheme: scheme, Opaque: true}, nil
	}
	return parseHierarchical(scheme, rest[2:], special)
}

// unwrap judges blob:https://x/..., view-source:https://x and
// filesystem:https://x/... by the inner URL, which is the origin that acts.
func unwrap(scheme, rest string, depth int) (URL, error) {
	if depth >= 3 {
		return URL{}, errTooDeep
	}
	inner, err := normalize(rest, depth+1)
	if errors.Is(err, errTooDeep) {
		return URL{}, err
	}
	if err != nil || inner.Opaque {
		// blob:null/... and friends have no origin of their own.
		return URL{Scheme: scheme, Opaque: true}, nil
	}
	if inner.Via == "" {
		inner.Via = scheme
	}
	return inner, nil
}

func parseHierarchical(scheme, rest string, special bool) (URL, error) {
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	auth, tail := rest[:end], rest[end:]
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:] // userinfo is everything before the last '@'
	}
	hostPart, port, err := splitHostPort(auth)
	if err != nil {
		return URL{}, err
	}
	host, err := canonHost(hostPart, special)
	if err != nil {
		return URL{}, err
	}
	if def, ok := specialSchemes[scheme]; ok {
		if port == def {
			port = ""
		}
		if scheme == "file" {
			port = ""
			if host == "localhost" {
				host = ""
			}
		} else if host == "" {
			return URL{}, errors.New("no host")
		}
	} else if special && host == "" {
		return URL{}, errors.New("no host")
	}
	query := ""
	if i := strings.IndexByte(tail, '#'); i >= 0 {
		tail = tail[:i]
	}
	if i := strings.IndexByte(tail, '?'); i >= 0 {
		tail, query = tail[:i], tail[i+1:]
		if strings.IndexByte(query, '%') >= 0 {
			query = percentDecode(query)
		}
	}
	return URL{Scheme: scheme, Host: host, Port: port, Path: canonPath(tail), Query: query}, nil
}

// cleanInput does what a browser does before parsing: it trims C0 controls
// and spaces at both ends and drops tabs and newlines everywhere, so
// "java\nscript:" is javascript:.
func cleanInput(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	}
	return s
}

// splitScheme returns the lower-cased scheme and what follows the colon.
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			scheme = strings.ToLower(s[:i])
			if isPortNumber(s[i+1:]) {
				return "", "", false // "localhost:8080/x" is a host, not a scheme
			}
			return scheme, s[i+1:], true
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// isPortNumber reports whether s starts with digits up to the end or a '/'.
func isPortNumber(s string) bool {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n > 0 && (n == len(s) || s[n] == '/' || s[n] == '?' || s[n] == '#')
}

// looksLikeHost reports whether a scheme-less string starts with something a
// browser's address bar would take for a host: "paypal.com/x", "[::1]".
func looksLikeHost(s string) bool {
	end := strings.IndexAny(s, "/\\?#")
	if end < 0 {
		end = len(s)
	}
	h := s[:end]
	return h != "" && (strings.Contains(h, ".") || strings.HasPrefix(h, "[") ||
		strings.HasPrefix(strings.ToLower(h), "localhost"))
}

// slashify turns backslashes into slashes before the query, as browsers do
// for special schemes: "https://evil.com\@paypal.com" is evil.com.
func slashify(s string) string {
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	if !strings.Contains(s[:end], `\`) {
		return s
	}
	return strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
}

func splitHostPort(auth string) (host, port string, err error) {
	if strings.HasPrefix(auth, "[") {
		i := strings.IndexByte(auth, ']')
		if i < 0 {
			return "", "", errors.New("unclosed [ in IPv6 host")
		}
		host, rest := auth[:i+1], auth[i+1:]
		if rest == "" {
			return host, "", nil
		}
		if rest[0] != ':' {
			return "", "", errors.New("junk after IPv6 host")
		}
		port, err = canonPort(rest[1:])
		return host, port, err
	}
	i := strings.LastIndexByte(auth, ':')
	if i < 0 {
		return auth, "", nil
	}
	port, err = canonPort(auth[i+1:])
	return auth[:i], port, err
}

// canonPort drops leading zeros; an empty port is the default one.
func canonPort(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	n, err := strconv.ParseUint(p, 10, 32)
	if err != nil || n > 65535 {
		return "", fmt.Errorf("bad port %q", clip(p, 10))
	}
	return strconv.FormatUint(n, 10), nil
}

// lookup is the WHATWG "domain to ASCII": UTS #46 mapping (so fullwidth
// letters and the ideographic full stop become ASCII), non-transitional, no
// STD3 rules (browsers allow "_" in hosts).
var lookup = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
	idna.VerifyDNSLength(false),
	idna.BidiRule(),
	idna.CheckJoiners(true),
)

func canonHost(h string, special bool) (string, error) {
	if strings.HasPrefix(h, "[") {
		return canonIPv6(h)
	}
	if special && strings.IndexByte(h, '%') >= 0 {
		h = percentDecode(h)
	}
	if !special {
		if i := strings.IndexFunc(h, func(r rune) bool { return r != '%' && forbiddenHostRune(r) }); i >= 0 {
			return "", fmt.Errorf("forbidden character %q in host", h[i:i+1])
		}
		return strings.TrimRight(strings.ToLower(h), "."), nil
	}
	if h == "" {
		return "", nil
	}
	h, err := toASCII(h)
	if err != nil {
		return "", err
	}
	if i := strings.IndexFunc(h, forbiddenHostRune); i >= 0 {
		return "", fmt.Errorf("forbidden character %q in host", h[i:i+1])
	}
	h = strings.TrimRight(h, ".")
	if h == "" {
		return "", errors.New("host is only dots")
	}
	if endsInNumber(h) {
		return parseIPv4(h)
	}
	return h, nil
}

// forbiddenHostRune is the WHATWG list of forbidden domain code points
// (plus '*', which no real host has and rules use as a wildcard).
func forbiddenHostRune(r rune) bool {
	return r < 0x80 && forbiddenHost[r]
}

var forbiddenHost = func() (t [0x80]bool) {
	for c := range t {
		t[c] = c <= ' ' || c == 0x7f || strings.IndexByte(`#/:<>?@[\]^|%"*`, byte(c)) >= 0
	}
	return t
}()

func toASCII(h string) (string, error) {
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(h), nil
	}
	out, err := lookup.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("host is not a valid international domain name: %v", err)
	}
	return strings.ToLower(out), nil
}

func canonIPv6(h string) (string, error) {
	if !strings.HasSuffix(h, "]") {
		return "", errors.New("unclosed [ in IPv6 host")
	}
	a, err := netip.ParseAddr(h[1 : len(h)-1])
	if err != nil || !a.Is6() || a.Zone() != "" {
		return "", fmt.Errorf("bad IPv6 address %q", clip(h, 50))
	}
	if a.Is4In6() {
		return a.Unmap().String(), nil // ::ffff:127.0.0.1 reaches 127.0.0.1
	}
	return "[" + a.String() + "]", nil
}

// endsInNumber is the WHATWG test for "this host is an IPv4 address": its
// last label is decimal digits or 0x-hex.
func endsInNumber(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	if isDigits(last) {
		return true
	}
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		return isHex(last[2:])
	}
	return false
}

// parseIPv4 reads every IPv4 spelling a browser accepts: 2130706433,
// 0x7f.1, 0177.0.0.1, 127.1, and returns dotted decimal.
func parseIPv4(h string) (string, error) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return "", fmt.Errorf("bad IPv4 address %q", clip(h, 40))
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return "", fmt.Errorf("bad IPv4 address %q", clip(h, 40))
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", fmt.Errorf("bad IPv4 address %q", clip(h, 40))
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return "", fmt.Errorf("bad IPv4 address %q", clip(h, 40))
	}
	v |= last
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&255, v>>8&255, v&255), nil
}

func ipv4Number(p string) (uint64, bool) {
	base := 10
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	case p == "":
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil || n > 1<<32 {
		return 0, false
	}
	return n, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(s[i] >= '0' && s[i] <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// canonPath decodes every percent-escape (servers do, so "/%73ettings" is
// "/settings"), resolves "." and ".." and collapses repeated slashes. The
// result may match more than the server would serve, never less.
func canonPath(p string) string {
	if strings.IndexByte(p, '%') >= 0 {
		p = percentDecode(p)
	}
	if p == "" || p == "/" {
		return "/"
	}
	if !needsCleaning(p) {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		switch s {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
		}
	}
	last := segs[len(segs)-1]
	res := "/" + strings.Join(out, "/")
	if (last == "" || last == "." || last == "..") && res != "/" {
		res += "/"
	}
	return res
}

// needsCleaning reports whether p has a segment canonPath would change.
func needsCleaning(p string) bool {
	if p[0] != '/' {
		return true
	}
	for i := 1; i < len(p); i++ {
		if p[i] == '/' && p[i-1] == '/' {
			return true
		}
		if p[i] == '.' && p[i-1] == '/' {
			return true
		}
	}
	return false
}

func percentDecode(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1:i+3]) {
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

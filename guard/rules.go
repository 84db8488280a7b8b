package guard

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/browseragent/browseragent/internal/xdg"
)

// Action is what a sensitive-site rule demands.
type Action int

const (
	// ActionAsk lets the agent read and navigate, but every write needs the
	// person's fresh approval, every time.
	ActionAsk Action = iota + 1
	// ActionDeny lets the agent do nothing there: no reading, no writing,
	// no navigating to it. Nobody can approve it.
	ActionDeny
)

// String returns "ask" or "deny".
func (a Action) String() string {
	switch a {
	case ActionAsk:
		return "ask"
	case ActionDeny:
		return "deny"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// BuiltinSource is the Source of rules from the embedded default file.
const BuiltinSource = "built-in"

// Rule is one entry of a sensitive-sites file.
type Rule struct {
	Name     string
	Category string
	// Hosts are lower-case ASCII host names; "*.example.com" matches every
	// subdomain (not example.com itself), "*" matches every host. A host
	// may end in ":port" ("127.0.0.1:8765", "*:8080"): then it matches that
	// port only (a URL without a port has its scheme's default one). Every
	// spelling of this machine (localhost, *.localhost, 127.0.0.0/8, ::1,
	// 0.0.0.0, ::) is one host: a rule naming one matches them all.
	Hosts []string
	// Paths are globs on the normalised path, matched without regard to
	// case; "*" matches any run of characters including "/". A pattern
	// without "*" matches that path, everything below it and the path with
	// ";parameters". A pattern with "?" is matched whole against the path,
	// "?" and the decoded query ("/*?*rest_route=*"). Patterns are
	// normalised as paths are ("/%73ettings" is "/settings"). Empty: all.
	Paths []string
	// Schemes the rule applies to; default http, https, ws, wss.
	Schemes []string
	Action  Action
	Note    string
	// Source is the file the rule came from (BuiltinSource for the
	// built-in rules) and Line its line there.
	Source string
	Line   int
	// Replaces is "file:line" of the earlier rule of the same name this
	// one replaced when files were layered ("" when it replaced nothing).
	Replaces string

	order    int
	patterns []string // lower-cased Paths
	needles  []string // per pattern with "*": its longest run without "*", which a match must contain ("" when none; set by build)
	devtools bool     // a fixed rule for the browser's DevTools endpoint (devtools.go)
}

// Where returns "file:line" for messages.
// A fixed rule (FixedSource), in no file, has no line.
func (r *Rule) Where() string {
	if r.Line == 0 {
		return r.Source
	}
	return fmt.Sprintf("%s:%d", r.Source, r.Line)
}

var defaultSchemes = []string{"http", "https", "ws", "wss"}

// Rules is an immutable, indexed set of rules: later layers replace earlier
// rules of the same name. It is safe for concurrent use.
type Rules struct {
	sources  []string // the files layered, in order
	list     []*Rule
	exact    map[string][]*Rule // hostKey (":port" added when the rule names one) → rules naming it exactly
	wild     map[string][]*Rule // "example.com" (or "example.com:8080") → rules with "*.example.com"
	any      []*Rule            // rules with "*"
	anyPort  map[string][]*Rule // "8080" → rules with "*:8080"
	ports    bool               // some rule names a port
	warnings []string
}

// Warnings are things about the files that lose no rule but that the person
// should know, one sentence each with file and line: a rule that replaces
// or turns off an earlier one of the same name (a built-in, usually), a
// "disabled" entry that names no rule.
func (rs *Rules) Warnings() []string { return slices.Clone(rs.warnings) }

// List returns the effective rules in file order.
func (rs *Rules) List() []Rule {
	out := make([]Rule, len(rs.list))
	for i, r := range rs.list {
		out[i] = *r
	}
	return out
}

// Sources returns the files the rules were read from, in layer order
// (BuiltinSource first when the defaults were loaded).
func (rs *Rules) Sources() []string { return slices.Clone(rs.sources) }

// Len returns the number of effective rules.
func (rs *Rules) Len() int { return len(rs.list) }

// Match returns the strictest rule matching u (deny before ask, then the
// earliest), or nil. Opaque URLs match nothing: judge them by their page.
func (rs *Rules) Match(u URL) *Rule { return rs.match(u, false) }

// byHost hands consider the rules that name u's host: by name, then by
// each wildcard above it, each also with u's port where rules name ports.
// It returns that port ("" when no rule names one), for the rules of any
// host.
func (rs *Rules) byHost(u URL, consider func([]*Rule)) (port string) {
	key := hostKey(u.Host)
	consider(rs.exact[key])
	if rs.ports {
		port = effectivePort(u)
	}
	if port != "" {
		consider(rs.exact[key+":"+port])
	}
	for h := u.Host; ; {
		i := strings.IndexByte(h, '.')
		if i < 0 {
			break
		}
		h = h[i+1:]
		consider(rs.wild[h])
		if port != "" {
			consider(rs.wild[h+":"+port])
		}
	}
	return port
}

// match is Match, leaving the fixed DevTools rules out when connect is set
// (judging an endpoint to connect to: see matchConnect).
func (rs *Rules) match(u URL, connect bool) *Rule {
	if rs == nil || u.Opaque {
		return nil
	}
	var best *Rule
	consider := func(cands []*Rule) {
		for _, r := range cands {
			if stricter(r, best) && !(connect && r.devtools) && r.matches(u) {
				best = r
			}
		}
	}
	port := rs.byHost(u, consider)
	consider(rs.any)
	if port != "" {
		consider(rs.anyPort[port])
	}
	return best
}

// effectivePort is u's port, or its scheme's default one.
func effectivePort(u URL) string {
	if u.Port != "" {
		return u.Port
	}
	return specialSchemes[u.Scheme]
}

// loopbackKey is the one index key of every spelling of this machine.
const loopbackKey = "localhost"

// hostKey folds every name and address of this machine into one key, so a
// rule written for 127.0.0.1 or localhost also holds for 0.0.0.0, [::],
// [::1], 127.0.0.2 and app.localhost, which all reach it (Chrome resolves
// *.localhost to loopback itself; 0.0.0.0 and :: connect to this host).
func hostKey(h string) string {
	if isLoopbackHost(h) {
		return loopbackKey
	}
	return h
}

func isLoopbackHost(h string) bool {
	switch h {
	case "localhost", "0.0.0.0", "[::1]", "[::]":
		return true
	}
	if strings.HasSuffix(h, ".localhost") {
		return true
	}
	if !strings.HasPrefix(h, "127.") {
		return false
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Is4() && a.IsLoopback()
}

// stricter reports whether r should win over best.
func stricter(r, best *Rule) bool {
	if best == nil {
		return true
	}
	if r.Action != best.Action {
		return r.Action == ActionDeny
	}
	return r.order < best.order
}

func (r *Rule) matches(u URL) bool {
	if !slices.Contains(r.Schemes, u.Scheme) {
		return false
	}
	if len(r.patterns) == 0 {
		return true
	}
	p := strings.ToLower(u.Path)
	for i, pat := range r.patterns {
		needle := ""
		if i < len(r.needles) {
			needle = r.needles[i]
		}
		if strings.IndexByte(pat, '?') >= 0 {
			if u.Query == "" {
				continue
			}
			q := strings.ToLower(u.Query)
			if strings.IndexByte(needle, '?') < 0 && !strings.Contains(p, needle) && !strings.Contains(q, needle) {
				continue // the needle has no "?", so it lies in the path or in the query
			}
			if glob(pat, p+"?"+q) {
				return true
			}
			continue
		}
		if needle != "" && !strings.Contains(p, needle) {
			continue // a quick no for the rules of every host ("/*/checkout/*")
		}
		if pathMatch(pat, p) {
			return true
		}
	}
	return false
}

// needlesOf returns, for each pattern with "*", its longest run without
// "*" (every path the glob matches contains it), and "" for the others.
func needlesOf(patterns []string) []string {
	if len(patterns) == 0 {
		return nil
	}
	out := make([]string, len(patterns))
	for i, pat := range patterns {
		if !strings.Contains(pat, "*") {
			continue
		}
		for _, run := range strings.Split(pat, "*") {
			if len(run) > len(out[i]) {
				out[i] = run
			}
		}
	}
	return out
}

// pathMatch matches a lower-case pattern against a lower-case path. A
// pattern without "*" covers its path, everything below it and the path
// with parameters (";jsessionid=…", which servers strip: "/settings;x" is
// "/settings").
func pathMatch(pat, p string) bool {
	if !strings.Contains(pat, "*") {
		base := strings.TrimSuffix(pat, "/")
		if base == "" || p == base {
			return true
		}
		rest, ok := strings.CutPrefix(p, base)
		return ok && (rest[0] == '/' || rest[0] == ';')
	}
	return glob(pat, p)
}

// glob matches '*' against any run of bytes (iterative, linear-ish).
func glob(pat, s string) bool {
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(pat) && pat[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(pat) && pat[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == '*' {
		pi++
	}
	return pi == len(pat)
}

// ParseRules reads one sensitive-sites file. source names it in errors and
// in Rule.Source. Every problem is reported with file, line and rule name;
// unknown fields are errors, so a typo never silently drops a rule.
func ParseRules(data []byte, source string) (*Rules, error) {
	rules, err := parseFile(data, source)
	if err != nil {
		return nil, err
	}
	rs := build(rules)
	rs.sources = []string{source}
	return rs, nil
}

// LoadRules reads the built-in rules (sensitive-sites.yaml, compiled into
// the program: see builtinRules) and then each file in paths, in order; a
// rule in a later file replaces the earlier rule of the same name (or
// removes it, with "disabled: true"). A missing or invalid file is an
// error: the caller must refuse to start rather than run without rules.
func LoadRules(paths ...string) (*Rules, error) {
	return layerRules(builtinRules(), paths)
}

//go:generate go test -run TestBuiltinRulesAreTheFile -update .

// layerRules puts the files in paths over the rules all, which came from
// BuiltinSource.
func layerRules(all []*Rule, paths []string) (*Rules, error) {
	index := make(map[string]int, len(all))
	for i, r := range all {
		index[r.Name] = i
	}
	var warnings []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("sensitive-sites file: %w", err)
		}
		layer, err := parseFile(data, p)
		if err != nil {
			return nil, err
		}
		if len(layer) > len(index) {
			grown := make(map[string]int, len(index)+len(layer))
			maps.Copy(grown, index)
			index = grown
		}
		var w []string
		all, w = overlay(all, index, layer)
		warnings = append(warnings, w...)
	}
	rs := build(all)
	rs.sources = append([]string{BuiltinSource}, paths...)
	rs.warnings = warnings
	return rs, nil
}

// overlay puts layer over base: same name replaces in place, new names go
// at the end. index maps names to their place in base and is kept up to
// date, so layering n rules costs O(n). Every replacement is a warning.
func overlay(base []*Rule, index map[string]int, layer []*Rule) ([]*Rule, []string) {
	var warnings []string
	for _, r := range layer {
		i, ok := index[r.Name]
		if !ok {
			if r.Action == 0 {
				warnings = append(warnings, fmt.Sprintf("%s: rule %q is disabled, but no earlier rule has that name: nothing is turned off (see `browseragent sites list`)", r.Where(), r.Name))
			}
			index[r.Name] = len(base)
			base = append(base, r)
			continue
		}
		old := base[i]
		what := "the built-in rule"
		if old.Source != BuiltinSource {
			what = "the rule"
		}
		if r.Action == 0 {
			warnings = append(warnings, fmt.Sprintf("%s: rule %q turns off %s of the same name (%s)", r.Where(), r.Name, what, old.Where()))
		} else {
			warnings = append(warnings, fmt.Sprintf("%s: rule %q replaces %s of the same name (%s); give it another name to keep both", r.Where(), r.Name, what, old.Where()))
		}
		r.Replaces = old.Where()
		base[i] = r
	}
	return base, warnings
}

func build(all []*Rule) *Rules {
	nhosts := 0
	for _, r := range all {
		nhosts += len(r.Hosts)
	}
	rs := &Rules{exact: make(map[string][]*Rule, nhosts), wild: make(map[string][]*Rule, nhosts/4), anyPort: map[string][]*Rule{}}
	rs.addFixed()
	rs.list = make([]*Rule, 0, len(all))
	for _, r := range all {
		if r.Action == 0 { // disabled
			continue
		}
		r.order = len(rs.list)
		if r.needles == nil {
			r.needles = needlesOf(r.patterns)
		}
		rs.list = append(rs.list, r)
		for _, h := range r.Hosts {
			h, port := splitRuleHost(h)
			suffix := ""
			if port != "" {
				rs.ports, suffix = true, ":"+port
			}
			switch {
			case h == "*" && port != "":
				rs.anyPort[port] = append(rs.anyPort[port], r)
			case h == "*":
				rs.any = append(rs.any, r)
			case strings.HasPrefix(h, "*."):
				k := h[2:] + suffix
				rs.wild[k] = append(rs.wild[k], r)
			default:
				k := hostKey(h) + suffix
				rs.exact[k] = append(rs.exact[k], r)
			}
		}
	}
	return rs
}

// splitRuleHost splits a compiled hosts entry into host and port ("" for
// any port).
func splitRuleHost(h string) (host, port string) {
	if strings.HasPrefix(h, "[") {
		if i := strings.Index(h, "]:"); i >= 0 {
			return h[:i+1], h[i+2:]
		}
		return h, ""
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		return h[:i], h[i+1:]
	}
	return h, ""
}

// UserRulesPath is $XDG_CONFIG_HOME/browseragent/sensitive-sites.yaml
// (~/.config when XDG_CONFIG_HOME is unset).
func UserRulesPath() string {
	return xdg.ConfigPath(nil, "sensitive-sites.yaml")
}

// ruleFiles returns the files to layer over the defaults: the user's file
// when it exists, then extra (the --sites flag) when not empty.
func ruleFiles(extra string) []string {
	var files []string
	if p := UserRulesPath(); p != "" {
		if _, err := os.Lstat(p); err == nil { // a dangling link too: loading it says so
			files = append(files, p)
		}
	}
	if extra != "" {
		files = append(files, extra)
	}
	return files
}

// ruleError is a problem in a sensitive-sites file.
type ruleError struct {
	Source string
	Line   int
	Rule   string // empty when the problem is outside a rule
	Msg    string
}

func (e *ruleError) Error() string {
	if e.Rule != "" {
		return fmt.Sprintf("%s:%d: rule %q: %s", e.Source, e.Line, e.Rule, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
}

// errBadRules is wrapped by every error from ParseRules and LoadRules about
// a file's content.
var errBadRules = errors.New("invalid sensitive-sites rules")

func (e *ruleError) Unwrap() error { return errBadRules }

var ruleName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
})

// compileHost checks and normalises one hosts entry.
func compileHost(entry string) (string, error) {
	h, port, hasPort := entry, "", false
	if i := strings.LastIndexByte(h, ':'); i >= 0 && (!strings.HasPrefix(h, "[") || strings.HasSuffix(h[:i], "]")) {
		h, port, hasPort = h[:i], h[i+1:], true
	}
	if hasPort {
		if !isDigits(port) {
			return "", fmt.Errorf("%q is not a host name (write example.com, *.example.com or host:port; no scheme or path)", entry)
		}
		p, err := canonPort(port)
		if err != nil || p == "" || p == "0" {
			return "", fmt.Errorf("%q: port %q is not a number from 1 to 65535", entry, port)
		}
		port = ":" + p
	}
	if h == "*" {
		return h + port, nil
	}
	prefix := ""
	if strings.HasPrefix(h, "*.") {
		prefix, h = "*.", h[2:]
	}
	if h == "" || strings.ContainsAny(h, "*/:@?#% ") && !strings.HasPrefix(h, "[") {
		return "", fmt.Errorf("%q is not a host name (write example.com, *.example.com or host:port; no scheme or path)", entry)
	}
	c, err := canonHost(h, true)
	if err != nil {
		return "", fmt.Errorf("%q is not a host name: %v", entry, err)
	}
	return prefix + c + port, nil
}

func compilePath(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("path %q must start with /", p)
	}
	if strings.Contains(p, "#") {
		return "", fmt.Errorf("path %q: a fragment is never sent to a server; remove it", p)
	}
	// The path is normalised as a request's is (percent-escapes decoded,
	// "." and ".." resolved, slashes collapsed), or "/%73ettings" and
	// "/a/../settings" would never match. A pattern with a query is
	// matched whole against "path?query" (see Rule.Paths), its query
	// decoded as a request's is.
	path, query, hasQuery := strings.Cut(p, "?")
	path = canonPath(path)
	if hasQuery {
		return strings.ToLower(path + "?" + percentDecode(query)), nil
	}
	return strings.ToLower(path), nil
}

package guard

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

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
	// subdomain (not example.com itself), "*" matches every host.
	Hosts []string
	// Paths are globs on the normalised path, matched without regard to
	// case; "*" matches any run of characters including "/". A pattern
	// without "*" matches that path and everything below it. Empty: all.
	Paths []string
	// Schemes the rule applies to; default http, https, ws, wss.
	Schemes []string
	Action  Action
	Note    string
	// Source is the file the rule came from (BuiltinSource for the
	// embedded defaults) and Line its line there.
	Source string
	Line   int

	order    int
	patterns []string // lower-cased Paths
}

// Where returns "file:line" for messages.
func (r *Rule) Where() string { return fmt.Sprintf("%s:%d", r.Source, r.Line) }

var defaultSchemes = []string{"http", "https", "ws", "wss"}

// Rules is an immutable, indexed set of rules: later layers replace earlier
// rules of the same name. It is safe for concurrent use.
type Rules struct {
	sources []string // the files layered, in order
	list    []*Rule
	exact   map[string][]*Rule // host → rules naming it exactly
	wild    map[string][]*Rule // "example.com" → rules with "*.example.com"
	any     []*Rule            // rules with "*"
}

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
func (rs *Rules) Match(u URL) *Rule {
	if rs == nil || u.Opaque {
		return nil
	}
	var best *Rule
	consider := func(cands []*Rule) {
		for _, r := range cands {
			if stricter(r, best) && r.matches(u) {
				best = r
			}
		}
	}
	consider(rs.exact[u.Host])
	for h := u.Host; ; {
		i := strings.IndexByte(h, '.')
		if i < 0 {
			break
		}
		h = h[i+1:]
		consider(rs.wild[h])
	}
	consider(rs.any)
	return best
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
	for _, pat := range r.patterns {
		if pathMatch(pat, p) {
			return true
		}
	}
	return false
}

// pathMatch matches a lower-case pattern against a lower-case path.
func pathMatch(pat, p string) bool {
	if !strings.Contains(pat, "*") {
		base := strings.TrimSuffix(pat, "/")
		return p == base || p == base+"/" || strings.HasPrefix(p, base+"/") || base == ""
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

// LoadRules parses the embedded defaults and then each file in paths, in
// order; a rule in a later file replaces the earlier rule of the same name
// (or removes it, with "disabled: true"). A missing or invalid file is an
// error: the caller must refuse to start rather than run without rules.
func LoadRules(defaults []byte, paths ...string) (*Rules, error) {
	all, err := parseFile(defaults, BuiltinSource)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("sensitive-sites file: %w", err)
		}
		layer, err := parseFile(data, p)
		if err != nil {
			return nil, err
		}
		all = overlay(all, layer)
	}
	rs := build(all)
	rs.sources = append([]string{BuiltinSource}, paths...)
	return rs, nil
}

// overlay puts layer over base: same name replaces in place, new names go
// at the end.
func overlay(base, layer []*Rule) []*Rule {
	for _, r := range layer {
		i := slices.IndexFunc(base, func(b *Rule) bool { return b.Name == r.Name })
		if i >= 0 {
			base[i] = r
		} else {
			base = append(base, r)
		}
	}
	return base
}

func build(all []*Rule) *Rules {
	rs := &Rules{exact: map[string][]*Rule{}, wild: map[string][]*Rule{}}
	for _, r := range all {
		if r.Action == 0 { // disabled
			continue
		}
		r.order = len(rs.list)
		rs.list = append(rs.list, r)
		for _, h := range r.Hosts {
			switch {
			case h == "*":
				rs.any = append(rs.any, r)
			case strings.HasPrefix(h, "*."):
				rs.wild[h[2:]] = append(rs.wild[h[2:]], r)
			default:
				rs.exact[h] = append(rs.exact[h], r)
			}
		}
	}
	return rs
}

// UserRulesPath is $XDG_CONFIG_HOME/browseragent/sensitive-sites.yaml
// (~/.config when XDG_CONFIG_HOME is unset).
func UserRulesPath() string {
	return xdg.ConfigPath(nil, "sensitive-sites.yaml")
}

// RuleFiles returns the files to layer over the defaults: the user's file
// when it exists, then extra (the --sites flag) when not empty.
func RuleFiles(extra string) []string {
	var files []string
	if p := UserRulesPath(); p != "" {
		if _, err := os.Stat(p); err == nil {
			files = append(files, p)
		}
	}
	if extra != "" {
		files = append(files, extra)
	}
	return files
}

// RuleError is a problem in a sensitive-sites file.
type RuleError struct {
	Source string
	Line   int
	Rule   string // empty when the problem is outside a rule
	Msg    string
}

func (e *RuleError) Error() string {
	if e.Rule != "" {
		return fmt.Sprintf("%s:%d: rule %q: %s", e.Source, e.Line, e.Rule, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
}

// ErrBadRules is wrapped by every error from ParseRules and LoadRules about
// a file's content.
var ErrBadRules = errors.New("invalid sensitive-sites rules")

func (e *RuleError) Unwrap() error { return ErrBadRules }

var ruleName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// compileHost checks and normalises one hosts entry.
func compileHost(h string) (string, error) {
	if h == "*" {
		return h, nil
	}
	prefix := ""
	if strings.HasPrefix(h, "*.") {
		prefix, h = "*.", h[2:]
	}
	if h == "" || strings.ContainsAny(h, "*/:@?#% ") && !strings.HasPrefix(h, "[") {
		return "", fmt.Errorf("%q is not a host name (write example.com or *.example.com, no scheme, port or path)", prefix+h)
	}
	c, err := canonHost(h, true)
	if err != nil {
		return "", fmt.Errorf("%q is not a host name: %v", prefix+h, err)
	}
	return prefix + c, nil
}

func compilePath(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("path %q must start with /", p)
	}
	if strings.ContainsAny(p, "?#") {
		return "", fmt.Errorf("path %q: query and fragment are not matched; remove them", p)
	}
	return strings.ToLower(p), nil
}

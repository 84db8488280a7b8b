package guard

import (
	"fmt"
	"slices"
	"strings"
)

// A script runs with its document's origin: it can load, read and post to
// every page of that origin (fetch('/bank/done', {method: 'POST'}), a
// same-origin frame's form), whatever path the page it runs in has. So a
// rule with paths holds for script anywhere on its origin: script on a
// page of an origin that holds a path-scoped ask or deny rule is judged as
// the strictest of them (scriptOriginRule), and --yes or an "always" grant
// never covers it.
//
// By design, rules that name every host ("*", "*:port": the WordPress
// admin pages on any site) are left out: they would make every script on
// every site ask, and their pages are still judged where a call acts on
// them (the page, its frames).

// originRule returns the strictest rule with paths whose hosts name u's
// host (and port) by name or wildcard, for u's scheme, or nil.
func (rs *Rules) originRule(u URL) *Rule {
	if rs == nil || u.Opaque || u.Host == "" {
		return nil
	}
	var best *Rule
	consider := func(cands []*Rule) {
		for _, r := range cands {
			if len(r.patterns) > 0 && !r.devtools && stricter(r, best) && slices.Contains(r.Schemes, u.Scheme) {
				best = r
			}
		}
	}
	rs.byHost(u, consider)
	return best
}

// scriptOriginRule is the rule with paths on the origin the call's script
// runs in (the target a navigation's init script runs in, else the page)
// when it is stricter than the rules matching the page and target
// themselves, or nil.
func (j *judged) scriptOriginRule(rs *Rules) *Rule {
	u, ok := j.page, j.hasPage
	if j.hasTarget && j.scriptURL == "" {
		u, ok = j.target, true
	}
	if !ok {
		return nil
	}
	r := rs.originRule(u)
	if r == nil {
		return nil
	}
	if own := stricterOf(j.pr, j.tr); own != nil && own.Action >= r.Action {
		return nil // the page's own rule is as strict
	}
	return r
}

// decideScriptOrigin judges script on an origin whose pages under r's
// paths it can reach: refused for a deny rule, asked every time for an
// ask rule.
func (j *judged) decideScriptOrigin(d Decision, r *Rule, at string) Decision {
	j.setRule(&d, r, true)
	d.DecidedBy, d.URL = ByRule, at
	reach := fmt.Sprintf("%s runs script on %s, and script there can load, read and send every page of its origin, those under %s too, which the %s rule %q%s covers",
		j.c.Tool, at, strings.Join(r.Paths, ", "), map[Action]string{ActionAsk: "sensitive-site", ActionDeny: "deny"}[r.Action], r.Name, category(r))
	if r.Action == ActionDeny {
		d.Verdict = Deny
		d.Reason = "Refused: " + reach + ": the agent may never script there, and nobody can approve it. Read the page with a snapshot instead, or tell the person to do this step themselves."
		d.Person = "Refused: " + reach + ": browseragent never scripts there, and nobody can approve it."
		return d
	}
	d.Verdict, d.Scopes = Ask, []Scope{Once}
	d.Reason = reach + ": it needs the person's approval, each time."
	return d
}

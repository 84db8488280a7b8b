package guard

import (
	"fmt"
	"maps"
	"slices"
)

// A browser's DevTools endpoint is its remote control: its HTTP handlers
// (/json/list, /json/close/<id>, /json/new, /json/activate, the /devtools/
// front end) list every tab with its title, open, focus and close tabs,
// and its websocket (/devtools/browser/<id>, /devtools/page/<id>) drives
// the whole browser. Nothing a tool call does through it would be judged,
// so it is unreachable from every tool, whatever the rules files say:
//
//   - every spelling of this machine (the loopback key), any port, the
//     paths Chromium's DevTools HTTP server answers: "/json…" (its
//     handler takes every path beginning so) and "/devtools…";
//   - the endpoint browseragent is attached to or launched (its host and
//     port, every path: its "/" lists the tabs too), once the browser says
//     where it is (Policy.SetBrowserEndpoints).
//
// These rules are not in any file, so no file can turn them off; `sites
// check` names them. browseragent's own connection to the browser, and
// chrome-devtools-mcp's, are not tool calls: they never pass the guard.

// devToolsRuleName is the name of the fixed rule for loopback DevTools paths,
// and endpointRule the one for the endpoint browseragent is attached to.
const (
	devToolsRuleName = "browser-devtools"
	endpointRule     = "browser-endpoint"
	// FixedSource is the Source of the fixed rules.
	FixedSource = "fixed"
)

const devToolsCategory = "the browser's debugging endpoint"

const devToolsNote = "the browser's DevTools endpoint lists, opens and closes every tab and drives the whole browser; no tool may reach it"

// devToolsRule is the fixed rule every Rules holds.
func devToolsRule() *Rule {
	return &Rule{
		Name: devToolsRuleName, Category: devToolsCategory, Hosts: []string{loopbackKey},
		Paths: []string{"/json*", "/devtools*"}, patterns: []string{"/json*", "/devtools*"}, needles: []string{"/json", "/devtools"},
		Schemes: defaultSchemes, Action: ActionDeny, Note: devToolsNote, Source: FixedSource,
		order: -2, devtools: true,
	}
}

// addFixed indexes the fixed rules of rs (kept out of List: they come from
// no file).
func (rs *Rules) addFixed() {
	r := devToolsRule()
	rs.exact[loopbackKey] = append(rs.exact[loopbackKey], r)
}

// Fixed returns the rules in force in every Rules that come from no file
// (browser-devtools), for `sites check` to describe the rule it names.
func (rs *Rules) Fixed() []Rule { return []Rule{*devToolsRule()} }

// withEndpoints returns rs with a deny rule for the browser endpoints eps
// (any URL: "ws://127.0.0.1:9222/devtools/browser/x"), every path of each
// one's host and port. rs is not changed; an endpoint that cannot be read
// adds nothing.
func (rs *Rules) withEndpoints(eps []string) *Rules {
	out := *rs
	out.exact = maps.Clone(rs.exact)
	for _, ep := range eps {
		u, err := Normalize(ep)
		port := effectivePort(u)
		if err != nil || u.Opaque || u.Host == "" || port == "" {
			continue
		}
		host := u.Host + ":" + port
		r := &Rule{
			Name: endpointRule, Category: devToolsCategory, Hosts: []string{host},
			Schemes: defaultSchemes, Action: ActionDeny, Source: FixedSource, order: -1, devtools: true,
			Note: host + " is the DevTools endpoint of a browser browseragent drives: it lists, opens and closes every tab and drives the whole browser; no tool may reach it",
		}
		k := hostKey(u.Host) + ":" + port
		out.exact[k] = append(slices.Clip(out.exact[k]), r)
		out.ports = true
	}
	return &out
}

// SetBrowserEndpoints tells the policy where the DevTools endpoints of the
// browsers browseragent holds are (their websocket URLs), whenever they
// change: from then on every tool call and connection to those hosts and
// ports is refused, whatever the path. It replaces the endpoints set
// before; none forgets them.
func (p *Policy) SetBrowserEndpoints(ws []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.baseRules == nil {
		p.baseRules = p.rules
		if p.baseRules == nil {
			p.baseRules = build(nil)
		}
	}
	p.rules = p.baseRules
	if len(ws) > 0 {
		p.rules = p.baseRules.withEndpoints(ws)
	}
}

// CheckEndpoint judges a DevTools endpoint browseragent is about to
// connect to itself (a --ws-endpoint, a browser URL, the websocket URL a
// profile's DevToolsActivePort names), before any byte is sent: an error
// wrapping errAddressDenied when a deny rule names it. The name is judged
// as written (it is not resolved first). The fixed DevTools rules do not
// apply: connecting there is what the call is for.
func (p *Policy) CheckEndpoint(raw string) error {
	u, err := Normalize(raw)
	if err != nil {
		return fmt.Errorf("%w: the browser endpoint %q cannot be judged: %v", errAddressDenied, raw, err)
	}
	if r := p.Rules().matchConnect(u); r != nil {
		return addressRefused(u.String(), r)
	}
	return nil
}

// matchConnect is the deny rule naming u as an endpoint to connect to,
// the fixed DevTools rules left out.
func (rs *Rules) matchConnect(u URL) *Rule {
	if r := rs.match(u, true); r != nil && r.Action == ActionDeny {
		return r
	}
	return nil
}

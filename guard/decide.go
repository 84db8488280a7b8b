package guard

import (
	"fmt"

	"github.com/browseragent/browseragent/catalog"
)

// judged is a call with its URLs normalised and matched.
type judged struct {
	c           Call
	e           catalog.Entry
	eff         catalog.Effect
	browser     bool // acts in the browser (native browser_* or a browser server)
	page        URL
	hasPage     bool
	pageUnknown bool // a page URL was given but could not be read
	target      URL
	hasTarget   bool
	pageS       string // page.String(), computed once
	targetS     string // target.String(), computed once
	pr, tr      *Rule
	ar          *Rule  // the deny rule naming the address the page's document came from
	cr          *Rule  // the deny rule naming an endpoint the call connects to (Entry.Connects)
	crS         string // that endpoint, normalised
	note        string // why the effect changed ("a javascript: URL runs script")
	scriptURL   string // the target is a data:, javascript: or blob: URL: the agent wrote what runs
}

// decide is Check without the Once lookup; p.mu is held. The page's
// decision and the files' are combined: the stricter wins.
func (p *Policy) decide(c Call) Decision {
	j, d := p.decidePage(c)
	if d.Verdict == Deny || len(j.e.Files) == 0 {
		return d
	}
	files := c.Files
	if files == nil {
		files = FilesOf(j.e, c.Args, p.places.WorkDir)
	}
	if len(files) == 0 {
		return d
	}
	return combine(d, p.judgeFiles(c, files))
}

func (p *Policy) decidePage(c Call) (judged, Decision) {
	j, bad := p.judge(c)
	d := Decision{Effect: j.eff, Mode: p.mode, DecidedBy: ByPolicy}
	if bad != "" {
		d.Verdict, d.Reason = Deny, bad
		return j, d
	}
	d.URL = j.url()
	if r := j.denyRule(); r != nil {
		return j, j.denied(d, r)
	}
	if !j.e.Known() {
		d.Verdict, d.Sensitive, d.Scopes = Ask, true, []Scope{Once}
		d.Reason = fmt.Sprintf("%s is a tool browseragent knows nothing about, so it is judged as the most dangerous kind: it needs the person's approval, each time.", c.Tool)
		return j, d
	}
	switch j.eff {
	case catalog.Close:
		return j, p.decideClose(j, d)
	case catalog.Open:
		if j.scriptURL != "" && p.mode == Shared {
			return j, p.askFresh(j, d, fmt.Sprintf("%s opens a %s: URL in the person's own browser: the agent wrote the page it loads and any script in it", c.Tool, j.scriptURL))
		}
		d.Verdict, d.Reason = Allow, fmt.Sprintf("%s opens %s in a new tab%s", c.Tool, d.URL, j.sensitiveNote(j.tr))
		j.setRule(&d, j.tr, false)
	case catalog.Navigate:
		return j, p.decideNavigate(j, d)
	case catalog.Read:
		d.Verdict, d.Reason = Allow, fmt.Sprintf("%s only reads%s", c.Tool, j.where())
		j.setRule(&d, stricterOf(j.pr, j.tr), false)
	case catalog.Script:
		return j, p.decideScript(j, d)
	default:
		if p.mode == Shared && !p.owned[c.TabID] && j.e.Reloads(c.Args) {
			// A reload leaves whatever the person had there behind, as a
			// navigation of their tab does.
			j.setRule(&d, j.pr, false)
			return j, p.askFresh(j, d, fmt.Sprintf("%s reloads a tab the person opened%s; whatever they had there is left behind", c.Tool, j.where()))
		}
		if p.personsTab(j) {
			return j, p.askFresh(j, d, j.c.Tool+" acts in a tab the person opened"+j.where()+"; a click, key or choice there can follow a link or send a form, which leaves their page as a navigation does, and whatever they had there is left behind")
		}
		return j, p.decideWrite(j, d)
	}
	return j, d
}

// personsTab reports whether a write is in a tab the person opened
// (shared mode) on a known page no sensitive-site rule names (those ask
// every time by their rule): such a write is held to a fresh approval,
// since a click, a key or a chosen option there can follow a link, send a
// form or run the page's own location change, which leaves their page as
// a navigation of their tab does; nothing can tell beforehand which input
// will.
func (p *Policy) personsTab(j judged) bool {
	return p.mode == Shared && !p.owned[j.c.TabID] && j.browser && j.e.OnPage &&
		stricterOf(j.pr, j.tr) == nil && !j.pageUnknown && (j.hasPage || j.hasTarget)
}

// judge classifies c and normalises and matches its URLs. bad is a reason
// to refuse a call whose target cannot be read.
func (p *Policy) judge(c Call) (j judged, bad string) {
	j.c, j.e = c, entry(c)
	j.browser = j.e.Browser
	j.eff = classify(c, j.e)
	if raw := j.targetRaw(); raw != "" {
		u, err := Normalize(raw)
		switch {
		case err == nil:
			j.setTarget(u)
		case j.browser || j.e.Kind == catalog.Builtin:
			return j, fmt.Sprintf("Refused: %s was given a target it cannot judge (%v). Give a full address like https://example.com/path.", c.Tool, err)
		}
	}
	if c.PageURL != "" {
		u, err := Normalize(c.PageURL)
		j.page, j.hasPage, j.pageUnknown = u, err == nil, err != nil
	}
	if j.hasPage {
		j.pr, j.pageS = p.rules.Match(j.page), j.page.String()
	}
	for _, param := range j.e.Connects {
		if raw := argString(c.Args, param); raw != "" && j.cr == nil {
			if u, err := Normalize(raw); err == nil {
				if r := p.rules.matchConnect(u); r != nil {
					j.cr, j.crS = r, u.String()
				}
			}
		}
	}
	if c.PageAddr != "" && (j.hasPage || j.pageUnknown) {
		if r, _ := p.rules.addressRule(c.PageAddr); r != nil {
			j.ar = r
		}
	}
	if j.hasTarget {
		j.tr, j.targetS = p.rules.Match(j.target), j.target.String()
	}
	return j, ""
}

// targetRaw is where the call goes: the catalogue's URL parameter, unless
// the call moves in the tab's history (judged by the page it stays on).
func (j *judged) targetRaw() string {
	if j.c.TargetURL != "" {
		return j.c.TargetURL
	}
	if j.e.URL == "" || j.e.IsHistoryMove(j.c.Args) {
		return ""
	}
	return argString(j.c.Args, j.e.URL)
}

// setTarget records a target; one without a host is judged by the page it
// acts in, and one that runs code there is a script.
func (j *judged) setTarget(u URL) {
	if u.Via == "blob" {
		j.scriptURL = "blob"
	}
	if !u.Opaque {
		j.target, j.hasTarget = u, true
		return
	}
	switch u.Scheme {
	case "about":
		// a blank document: nothing leaves the tab
	case "data", "blob":
		j.scriptURL = u.Scheme
	case "javascript":
		j.eff, j.note, j.scriptURL = catalog.Script, "a javascript: URL runs script in the page", u.Scheme
	default:
		j.eff, j.note = catalog.Write, fmt.Sprintf("a %s: URL hands the page to another application", u.Scheme)
	}
}

// url is the address shown in the decision: the target if any, else the page.
func (j *judged) url() string {
	switch {
	case j.hasTarget:
		return j.targetS
	case j.hasPage:
		return j.pageS
	}
	return ""
}

func (j *judged) where() string {
	if u := j.url(); u != "" {
		return " on " + u
	}
	return ""
}

// denyRule returns a deny rule that forbids this call: one matching the
// target, or one matching the page for reads and writes. Leaving or closing
// a deny page is allowed.
func (j *judged) denyRule() *Rule {
	if j.cr != nil {
		return j.cr
	}
	if j.tr != nil && j.tr.Action == ActionDeny {
		return j.tr
	}
	if j.pr != nil && j.pr.Action == ActionDeny && (j.eff == catalog.Read || j.eff == catalog.Write || j.eff == catalog.Script) {
		return j.pr
	}
	if j.ar != nil && (j.eff == catalog.Read || j.eff == catalog.Write || j.eff == catalog.Script) {
		return j.ar
	}
	return nil
}

func (j *judged) denied(d Decision, r *Rule) Decision {
	u := j.pageS
	verb := "acts on"
	switch r {
	case j.cr:
		u, verb = j.crS, "would connect to"
	case j.tr:
		u, verb = j.targetS, "would load"
	}
	d.Verdict, d.DecidedBy, d.URL = Deny, ByRule, u
	if r == j.ar && r != j.tr && r != j.pr {
		u += " (served from " + j.c.PageAddr + ")" // the name is not the rule's; the address is
	}
	j.setRule(&d, r, true)
	what := fmt.Sprintf("Refused: %s %s %s, which matches the deny rule %q%s", j.c.Tool, verb, u, r.Name, category(r))
	d.Reason = what + ": the agent may never act there, and nobody can approve it. Tell the person to do this step themselves."
	d.Person = what + ": browseragent never acts there, and nobody can approve it; do this step yourself, in your own browser."
	return d
}

func (j *judged) setRule(d *Decision, r *Rule, sensitive bool) {
	if r == nil {
		return
	}
	d.Rule, d.Category, d.RuleSource = r.Name, r.Category, r.Where()
	d.Sensitive = d.Sensitive || sensitive
}

func (j *judged) sensitiveNote(r *Rule) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf(" (sensitive site: rule %q%s; any write there will need the person's approval)", r.Name, category(r))
}

func category(r *Rule) string {
	if r.Category == "" {
		return ""
	}
	return " (" + r.Category + ")"
}

func stricterOf(a, b *Rule) *Rule {
	if a == nil {
		return b
	}
	if b != nil && stricter(b, a) {
		return b
	}
	return a
}

func (p *Policy) decideClose(j judged, d Decision) Decision {
	if p.mode == Shared && !p.owned[j.c.TabID] {
		d.Verdict = Deny
		d.Reason = fmt.Sprintf("Refused: %s would close a tab the person opened%s. In shared mode the agent may close only tabs it opened itself; leave this tab open and carry on.", j.c.Tool, j.where())
		tab := "that tab"
		if u := j.url(); u != "" {
			tab = "the tab " + u
		}
		d.Person = fmt.Sprintf("Refused: %s is yours (you opened it, not the agent); in shared mode browseragent closes only tabs it opened itself. Close it in Chrome.", tab)
		return d
	}
	d.Verdict, d.Reason = Allow, fmt.Sprintf("%s closes a tab the agent opened%s", j.c.Tool, j.where())
	return d
}

func (p *Policy) decideNavigate(j judged, d Decision) Decision {
	j.setRule(&d, j.tr, false)
	if p.mode == Shared && !p.owned[j.c.TabID] {
		from := ""
		if j.hasPage {
			from = " (" + j.pageS + ")"
		}
		to := d.URL
		if j.e.IsHistoryMove(j.c.Args) || to == "" {
			to = "another page of its history"
		}
		return p.askFresh(j, d, fmt.Sprintf("%s would navigate a tab the person opened%s to %s; whatever they had there is left behind", j.c.Tool, from, to))
	}
	if j.scriptURL != "" && p.mode == Shared {
		return p.askFresh(j, d, fmt.Sprintf("%s loads a %s: URL in the person's own browser: the agent wrote the page it loads and any script in it", j.c.Tool, j.scriptURL))
	}
	d.Verdict, d.Reason = Allow, fmt.Sprintf("%s navigates to %s%s", j.c.Tool, d.URL, j.sensitiveNote(j.tr))
	return d
}

// decideScript judges script the agent wrote: on a tab the person opened it
// needs a fresh approval every time, since it can do anything there (send
// their forms, read their page, close the tab); elsewhere it is a write.
func (p *Policy) decideScript(j judged, d Decision) Decision {
	if r := j.scriptOriginRule(p.rules); r != nil {
		at := j.pageS
		if j.hasTarget && j.scriptURL == "" {
			at = j.targetS
		}
		return j.decideScriptOrigin(d, r, at)
	}
	if p.mode == Shared && !p.owned[j.c.TabID] {
		j.setRule(&d, stricterOf(j.pr, j.tr), false)
		return p.askFresh(j, d, fmt.Sprintf("%s runs script the agent wrote in a tab the person opened%s; it can do anything the page can, including send a form or close the tab", j.c.Tool, j.where()))
	}
	if j.note == "" {
		j.note = "runs script the agent wrote"
	}
	return p.decideWrite(j, d)
}

// askFresh asks for a one-time approval that no earlier "always" grant and
// no --yes can stand in for.
func (p *Policy) askFresh(j judged, d Decision, what string) Decision {
	d.Verdict, d.Sensitive, d.Scopes = Ask, true, []Scope{Once}
	d.Reason = what + ": it needs the person's approval, each time, whatever was approved before."
	return d
}

func (p *Policy) decideWrite(j judged, d Decision) Decision {
	what := j.c.Tool + " changes something"
	if j.note != "" {
		what = j.c.Tool + ": " + j.note
	}
	if r := stricterOf(j.pr, j.tr); r != nil {
		u := j.pageS
		if r == j.tr && r != j.pr {
			u = j.targetS
		}
		d.Verdict, d.DecidedBy, d.URL, d.Scopes = Ask, ByRule, u, []Scope{Once}
		j.setRule(&d, r, true)
		d.Reason = fmt.Sprintf("%s on %s, which matches the sensitive-site rule %q%s: every write there needs the person's approval, each time.", what, u, r.Name, category(r))
		return d
	}
	if j.browser && (j.pageUnknown || !j.hasPage && !j.hasTarget) {
		d.Verdict, d.Sensitive, d.Scopes = Ask, true, []Scope{Once}
		d.Reason = what + " on a page whose address is unknown, so it is treated as sensitive: it needs the person's approval, each time."
		return d
	}
	if !j.browser {
		if j.c.Server != "" && j.note == "" {
			what = j.c.Tool + " may change something"
		}
		return p.askGrantable(j, d, what+destructive(j.c)+outside(j.c))
	}
	if p.mode == Isolated {
		d.Verdict, d.Reason = Allow, what+j.where()+" in the agent's own isolated browser"
		return d
	}
	return p.askGrantable(j, d, what+j.where()+" in the person's own browser")
}

// outside says where a write that is not in our browser acts: an MCP
// server's tool acts wherever that server does (its own browser, files,
// other services), which the guard cannot see; the words must not claim
// more than that.
func outside(c Call) string {
	if c.Server != "" {
		return fmt.Sprintf(" wherever the MCP server %q acts (the server does not mark it read-only)", c.Server)
	}
	return " outside the browser"
}

func destructive(c Call) string {
	if c.DestructiveHint != nil && *c.DestructiveHint {
		return " (the server marks it destructive)"
	}
	return ""
}

// askGrantable asks unless an "always" grant covers the tool or server.
func (p *Policy) askGrantable(j judged, d Decision, what string) Decision {
	if p.toolGrants[grantKey{j.c.Grantee, j.c.Tool}] || j.c.Server != "" && p.serverGrants[grantKey{j.c.Grantee, j.c.Server}] {
		d.Verdict, d.DecidedBy = Allow, ByGrant
		d.Reason = what + "; allowed by the person's earlier \"always\" approval"
		return d
	}
	if p.mode == Isolated && j.c.Server != "" && p.trusted[j.c.Server] {
		d.Verdict, d.DecidedBy = Allow, ByGrant
		d.Reason = what + fmt.Sprintf("; allowed because server %s is configured with \"trust\": true (honoured in isolated mode only)", j.c.Server)
		return d
	}
	d.Verdict, d.Scopes = Ask, []Scope{Once, ToolAlways}
	if j.c.Server != "" {
		d.Scopes = append(d.Scopes, ServerAlways)
	}
	d.Reason = what + ": it needs the person's approval."
	return d
}

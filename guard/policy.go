package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/browseragent/browseragent/catalog"
)

// Call describes one tool call to the guard. The registry fills it for every
// call, whoever made it (LLM, slash command, subcommand).
type Call struct {
	// Tool is the name the agent sees: "browser_click",
	// "mcp__chrome-devtools__click", "web_fetch".
	Tool string
	// Server is the MCP server's name; "" for builtins and browser_* tools.
	Server string
	// Name is the tool's own name on its server ("click"); for builtins
	// it may be left empty.
	Name string
	// Args are the call's arguments as the tool will receive them.
	Args map[string]any
	// Entry is the catalogue's description of the tool, as the registry
	// resolved it. Nil: the guard looks it up by Server and Name (or
	// Tool), with the annotations below for tools the catalogue lacks.
	Entry *catalog.Entry
	// ReadOnlyHint and DestructiveHint are the MCP tool's annotations
	// (nil when it has none); used only when Entry is nil.
	ReadOnlyHint, DestructiveHint *bool
	// Files are the local files the call touches, resolved by the
	// registry. Nil: the guard reads them from the entry's file
	// parameters, resolved against the working directory.
	Files []File
	// PageURL is the live URL of the page the call acts on, asked from the
	// browser just before the check; "" when the call acts on no page.
	PageURL string
	// PageAddr is the "ip:port" the browser fetched that page's document
	// from, when browseragent knows it ("" otherwise): a deny rule naming
	// the address holds for the page whatever name its URL gives.
	PageAddr string
	// Frames are the documents of the page the call's element may be in,
	// the page's own among them, as the browser said just before the
	// check, in the order a tie goes (the frame a ref names first); nil:
	// the page alone. The guard judges the call by the strictest of them
	// (deny, then a sensitive ask, an ask, allow), so a click or a fill in
	// a bank's frame on an ordinary page is judged as a write on the bank
	// (Decision.Frame says which).
	Frames []Frame
	// TargetURL is where a navigation goes. When empty, Args["url"] is used
	// for navigating tools and web_fetch.
	TargetURL string
	// TabID identifies the tab acted on (the CDP target ID), for tab
	// ownership: closing, and navigating away in shared mode.
	TabID string
	// Grantee is whose "always" grants and once approvals apply to the
	// call, and whom a Grant of it is for: the MCP session that made it
	// through `mcp serve` (one host's "always" is not another's), "" for
	// the shell and scripts.
	Grantee string
}

// Frame is a document a call may act in, or a result's content came from:
// its live URL and the "ip:port" the browser fetched it from ("" unknown).
type Frame struct{ URL, Addr string }

// grantKey is one "always" grant: a tool's or a server's name, for the
// grantee that gave it.
type grantKey struct{ grantee, name string }

// Decision is the guard's answer for one call.
type Decision struct {
	Verdict Verdict
	// Reason is one or two sentences the LLM can act on: the tool, the
	// URL, the rule and what to do instead.
	Reason string
	// Person is Reason as the person at the terminal reads it, where the
	// two differ (a refusal tells the model to ask the person, and the
	// person what to do); "" when Reason reads as well for both. ForPerson
	// picks.
	Person string
	// Rule, Category and RuleSource describe the matching sensitive-site
	// rule, if any ("file:line" in RuleSource).
	Rule, Category, RuleSource string
	// Sensitive is set when the call needs a fresh approval each time: a
	// sensitive-site rule or an unknown page is involved, it reads a local
	// file, writes outside the output folder, or acts in the person's own
	// tab. Then no "always" grant and no --yes can approve it.
	Sensitive bool
	// DecidedBy is ByRule, ByGrant, ByPolicy or ByPerson.
	DecidedBy string
	Effect    catalog.Effect
	Mode      Mode
	// URL is the normalised address that was judged ("" if none).
	URL string
	// Frame is the live URL of the frame (of Call.Frames) the call was
	// judged by, where that frame is stricter than the page; "" when the
	// page's own URL was.
	Frame string
	// Scopes lists the approvals the person may give when Verdict is Ask:
	// only Once on sensitive pages.
	Scopes []Scope
}

var (
	// ErrDenied is wrapped by the error of every refused call: denied by
	// a rule, declined by the person, or with nobody to ask (Decision.Err,
	// and so tools.Registry.Call).
	ErrDenied = errors.New("refused by the guard")
	// errNeedsApproval is wrapped by Decision.Err for an unanswered ask.
	errNeedsApproval = errors.New("needs the person's approval")
	// errNotGrantable is returned by Grant for an approval the policy does
	// not allow (a deny rule, or "always" on a sensitive page).
	errNotGrantable = errors.New("cannot be approved that way")
)

// Err returns nil for Allow, and otherwise an error wrapping ErrDenied or
// errNeedsApproval whose text is the reason alone (it already says what
// was refused and why).
func (d Decision) Err() error {
	switch d.Verdict {
	case Allow:
		return nil
	case Ask:
		return &refusal{reason: d.Reason, kind: errNeedsApproval}
	}
	return &refusal{reason: d.Reason, kind: ErrDenied, person: d.ForPerson()}
}

// ForPerson is the decision's reason as a person reads it: Person, else
// Reason said to the person (reasonToPerson).
func (d Decision) ForPerson() string {
	if d.Person != "" {
		return d.Person
	}
	return reasonToPerson(d.Reason)
}

// toPerson rewords what the guard says about the person, in the third
// person for the model, to the person: the approval box, a refusal in the
// shell. The guard's reasons use these phrases and no others.
var toPerson = strings.NewReplacer(
	"the person's own browser", "your own browser",
	"the person's approval", "your approval",
	"the person's earlier", "your earlier",
	"a tab the person opened", "a tab you opened",
	"whatever they had there", "whatever you had there",
	"the person's commands", "your commands",
	"the person's SSH keys", "your SSH keys",
	"approved once by the person", "approved once by you",
)

// reasonToPerson is a reason of the guard's, worded for the model, said to the
// person ("needs the person's approval" is "needs your approval").
func reasonToPerson(reason string) string { return toPerson.Replace(reason) }

// refusal is Decision.Err's error: the reason worded for the model (Error,
// the reason alone: it says what was refused and why) and for the person
// (ForPerson, which the terminal prints), wrapping its kind.
type refusal struct {
	reason, person string
	kind           error
}

func (e *refusal) Error() string { return e.reason }
func (e *refusal) Unwrap() error { return e.kind }

// ForPerson is the reason as the person reads it.
func (e *refusal) ForPerson() string {
	if e.person != "" {
		return e.person
	}
	return e.reason
}

// autoApprovable reports whether the call may run with nobody at a
// terminal: allowed calls, and asks on ordinary pages when yes (--yes) is
// set. A sensitive page always needs a person.
func (d Decision) autoApprovable(yes bool) bool {
	return d.Verdict == Allow || d.Verdict == Ask && yes && !d.Sensitive
}

// Unattended turns an Ask into the answer for a run with nobody to ask
// (subcommands, `run`, piped input): allowed with yes (--yes) on ordinary
// pages, denied otherwise, with a reason saying why.
func (d Decision) Unattended(yes bool) Decision {
	if d.Verdict != Ask {
		return d
	}
	d.Scopes = nil
	if d.autoApprovable(yes) {
		d.Verdict, d.DecidedBy = Allow, ByFlag
		d.Reason = "approved by --yes: " + d.Reason
		return d
	}
	d.Verdict, d.DecidedBy = Deny, ByNoAnswer
	why := " Nobody is at a terminal to approve it: pass --yes to allow writes on ordinary pages."
	if d.Sensitive {
		why = " Nobody is at a terminal to approve it, and --yes never covers a call that needs a fresh approval each time (a sensitive page, a file read, a write outside the output folder): do this in the interactive shell."
	}
	d.Reason += why
	if d.Person != "" {
		d.Person += why
	}
	return d
}

// Options configure a Policy; nil means defaults.
type Options struct {
	// Mode to start in (default Isolated).
	Mode Mode
	// Places are the directories local files are judged against
	// (default: from the environment).
	Places Places
	// OnceTTL is how long a Once approval waits to be used (default 2m).
	OnceTTL time.Duration
	// Now is the clock (default time.Now); tests replace it.
	Now func() time.Time
	// TrustedServers are MCP servers whose config says "trust": true
	// (Gemini CLI's field): in isolated mode their tools run where the
	// policy would otherwise ask, as a standing "always" grant would let
	// them. Never on a sensitive site, never for local files, never for
	// script in a tab the person opened, never in shared mode; unlike a
	// grant, no mode switch or trust reset clears it.
	TrustedServers []string
}

// Policy holds the rules, the mode, the person's grants and the tabs the
// agent owns, and judges calls. It is safe for concurrent use; Check takes
// one short lock.
type Policy struct {
	mu        sync.Mutex
	rules     *Rules
	baseRules *Rules // the rules without the browser endpoint (SetBrowserEndpoints); nil until one is set
	mode      Mode
	places    Places
	ttl       time.Duration
	now       func() time.Time

	toolGrants   map[grantKey]bool
	serverGrants map[grantKey]bool
	trusted      map[string]bool      // Options.TrustedServers
	once         map[string]time.Time // call fingerprint → expiry
	owned        map[string]bool      // tab IDs the agent opened
}

// NewPolicy returns a policy over rules (nil: no sensitive sites).
func NewPolicy(rules *Rules, opts *Options) *Policy {
	if opts == nil {
		opts = &Options{}
	}
	p := &Policy{rules: rules, mode: opts.Mode, ttl: opts.OnceTTL, now: opts.Now, places: opts.Places.withDefaults()}
	if p.ttl <= 0 {
		p.ttl = 2 * time.Minute
	}
	if p.now == nil {
		p.now = time.Now
	}
	p.trusted = map[string]bool{}
	for _, s := range opts.TrustedServers {
		p.trusted[s] = true
	}
	p.reset()
	return p
}

func (p *Policy) reset() int {
	n := len(p.toolGrants) + len(p.serverGrants)
	p.toolGrants, p.serverGrants = map[grantKey]bool{}, map[grantKey]bool{}
	p.once, p.owned = map[string]time.Time{}, map[string]bool{}
	return n
}

// Mode returns the current mode.
func (p *Policy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// Rules returns the rules in force.
func (p *Policy) Rules() *Rules {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rules
}

// SetMode switches mode and resets trust: every "always" grant, every
// pending once-approval and the owned-tab list are cleared (also when the
// mode stays the same, e.g. attaching to another browser). It returns what
// the person did not already know from the switch itself: the grants it
// dropped ("Dropped 2 "always allow" grants."), or "" when there were none.
func (p *Policy) SetMode(m Mode) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	switch n := p.reset(); n {
	case 0:
		return ""
	case 1:
		return `Dropped 1 "always allow" grant.`
	default:
		return fmt.Sprintf(`Dropped %d "always allow" grants.`, n)
	}
}

// OwnTab records that the agent opened tab id (after a successful Open).
func (p *Policy) OwnTab(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id != "" {
		p.owned[id] = true
	}
}

// effect returns what c does (read, write, navigate, open, close, script)
// before its URLs are looked at.
func (p *Policy) effect(c Call) catalog.Effect {
	return classify(c, entry(c))
}

// SiteCall is the call `sites check` and the shell's /sites judge for
// tool on url: url is the target of a navigating tool and of web_fetch,
// and the page every other tool acts on; page is the page a navigating
// tool's tab shows now. The tab is one the agent opened (recorded with
// OwnTab) unless personTab, so judge it on a scratch policy.
func (p *Policy) SiteCall(tool, url, page string, personTab bool) Call {
	server, name := SplitToolName(tool)
	c := Call{Tool: tool, Server: server, Name: name, TabID: "checked-tab"}
	switch p.effect(c) {
	case catalog.Navigate, catalog.Open:
		c.TargetURL, c.PageURL = url, page
	default:
		if tool == "web_fetch" {
			c.TargetURL = url
		} else {
			c.PageURL = url
		}
	}
	if !personTab {
		p.OwnTab(c.TabID)
	}
	return c
}

// Check judges c against the rules, the mode and the grants: one question
// per call, its frames ranked here (Call.Frames). A pending Once approval
// for exactly this call (same tool, page or frame judged, target and
// arguments) is used up by it.
func (p *Policy) Check(c Call) Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, frame := p.rank(c)
	d := p.decide(c)
	d.Frame = frame
	if d.Verdict == Ask && len(p.once) > 0 && p.takeOnce(c) {
		d.Verdict, d.DecidedBy, d.Scopes = Allow, ByPerson, nil
		d.Reason = "approved once by the person: " + d.Reason
	}
	return d
}

// Peek is Check without using up a "once" approval: what the guard would
// say of a call now (tools.Registry.Judge), which is not run.
func (p *Policy) Peek(c Call) Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, frame := p.rank(c)
	d := p.decide(c)
	d.Frame = frame
	return d
}

// rank returns c as it is judged: by the page, or by the frame of
// c.Frames the guard is strictest about (the first of them on a tie), and
// that frame's URL when it is not the page's own. Frames whose content is
// the page's own (about:blank, srcdoc, data:) are not judged apart. The
// files a call touches are judged once, by decide, not per frame.
func (p *Policy) rank(c Call) (Call, string) {
	if len(c.Frames) == 0 {
		return c, ""
	}
	q := c
	q.Files, q.Frames = []File{}, nil
	best, bestRank := -1, -1
	for i, f := range c.Frames {
		if !hasOwnAddress(f.URL) {
			continue
		}
		q.PageURL, q.PageAddr = f.URL, f.Addr
		if r := strictness(p.decide(q)); r > bestRank {
			best, bestRank = i, r
		}
	}
	if best < 0 || c.Frames[best].URL == c.PageURL {
		c.Frames = nil
		return c, ""
	}
	c.PageURL, c.Frames = c.Frames[best].URL, nil
	return c, c.PageURL
}

// hasOwnAddress reports whether a frame URL names content of its own, not
// content its parent wrote (about:, data:, javascript:).
func hasOwnAddress(u string) bool {
	i := strings.IndexByte(u, ':')
	if i < 0 {
		return false
	}
	switch strings.ToLower(u[:i]) {
	case "about", "data", "javascript", "":
		return false
	}
	return true
}

// strictness ranks decisions: deny, then a sensitive ask, an ask, allow.
func strictness(d Decision) int {
	switch {
	case d.Verdict == Deny:
		return 3
	case d.Verdict == Ask && d.Sensitive:
		return 2
	case d.Verdict == Ask:
		return 1
	}
	return 0
}

// Grant records the person's approval of c. Once approves that exact call
// for the next Check (the registry re-reads the page's live URL and checks
// again, so a redirect after the question is judged anew). ToolAlways and
// ServerAlways approve later calls on ordinary pages. Deny decisions and
// "always" on sensitive pages return errNotGrantable.
func (p *Policy) Grant(c Call, s Scope) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, _ = p.rank(c)
	d := p.decide(c)
	switch {
	case d.Verdict == Allow:
		return nil
	case d.Verdict == Deny:
		return fmt.Errorf("%w: %s", errNotGrantable, d.Reason)
	case !slices.Contains(d.Scopes, s):
		return fmt.Errorf("%w: %s needs a fresh approval every time (%s)", errNotGrantable, c.Tool, d.Reason)
	}
	switch s {
	case Once:
		p.once[p.fingerprint(c)] = p.now().Add(p.ttl)
	case ToolAlways:
		p.toolGrants[grantKey{c.Grantee, c.Tool}] = true
	case ServerAlways:
		p.serverGrants[grantKey{c.Grantee, c.Server}] = true
	}
	return nil
}

func (p *Policy) takeOnce(c Call) bool {
	now := p.now()
	for k, exp := range p.once {
		if now.After(exp) {
			delete(p.once, k)
		}
	}
	fp := p.fingerprint(c)
	if _, ok := p.once[fp]; ok {
		delete(p.once, fp)
		return true
	}
	return false
}

// fingerprint identifies a call for a Once approval: grantee, tool,
// normalised page and target, and the arguments.
func (p *Policy) fingerprint(c Call) string {
	args, _ := json.Marshal(c.Args) // map keys are sorted
	return strings.Join([]string{c.Grantee, c.Tool, normString(c.PageURL), normString(c.TargetURL), c.TabID, string(args)}, "\x00")
}

// of names the grantee in a grant's line: "" for the shell's own.
func (k grantKey) of() string {
	if k.grantee == "" {
		return ""
	}
	return " (MCP session " + k.grantee + ")"
}

func normString(raw string) string {
	if u, err := Normalize(raw); err == nil {
		return u.String()
	}
	return raw
}

// Grants lists the "always allow" grants in force, one readable line each,
// sorted: "tool browser_click", "server github", "tool browser_type (MCP
// session 3F2…)" for one an MCP host gave.
func (p *Policy) Grants() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.toolGrants)+len(p.serverGrants))
	for k := range p.toolGrants {
		out = append(out, "tool "+k.name+k.of())
	}
	for k := range p.serverGrants {
		out = append(out, "server "+k.name+k.of())
	}
	slices.Sort(out)
	return out
}

// ResetTrust drops every "always allow" grant and every pending once
// approval, keeping the mode and the tabs the agent owns, and returns how
// many always grants there were.
func (p *Policy) ResetTrust() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.toolGrants) + len(p.serverGrants)
	p.toolGrants, p.serverGrants = map[grantKey]bool{}, map[grantKey]bool{}
	p.once = map[string]time.Time{}
	return n
}

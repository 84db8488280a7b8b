package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/textutil"
)

// ErrUnknownTool is returned by Registry.Call for a name no provider offers.
var ErrUnknownTool = errors.New("unknown tool")

// errNoEntry is returned by Registry.Call for a builtin or browser tool
// offered without its catalogue entry: nothing says what it touches, so it
// is not run.
var errNoEntry = errors.New("no catalogue entry")

// ToolProvider is a source of tools: the web_fetch builtin, the browser, the MCP
// manager. Tools is called on every lookup, so it must be cheap (a snapshot).
// Call runs the call the registry resolved and the guard judged: it must
// act on c.Page's tab with c.Raw (or c.Args) and resolve nothing again.
type ToolProvider interface {
	Tools() []ToolDef
	Call(ctx context.Context, c *ResolvedCall) (*ToolResult, error)
}

// Page is the browser tab a tool call acts on.
type Page struct {
	// TabID is the tab's identity: its CDP target ID, or "mcp:server/id"
	// for an MCP page that is not one of our browser's tabs; "" when the
	// call acts on no tab.
	TabID string
	// Alias is the tab's id as the tools name it ("t2"), for callers that
	// keep tabs by that name (mcp serve's sessions); "" when none.
	Alias string
	URL   string // the tab's URL, asked from the browser just now
	// Addr is the "ip:port" the tab's document came from, when the
	// browser said (an attached browser resolves and connects itself); "".
	Addr  string
	Owned bool // the agent opened this tab
	// Secret: the call types into a password, one-time-code or card field
	// (asked from the live page), so what it types is redacted everywhere.
	Secret bool
	// Frames are the documents of the tab the call's element may be in
	// (the page's own among them, the frame a ref names first), asked
	// from the live page; nil when it acts on the page alone. The guard
	// judges the call by the strictest (guard.Call.Frames).
	Frames []guard.Frame
}

// PageLocator finds the tab a call acts on and asks the browser for its live
// URL, the address its document came from and the frames the call's
// element may be in: facts only, the guard judges them. Calls that act on
// no page return a zero Page. When c.Page.TabID is
// already set (the registry checks again after the person answered), it
// must describe that same tab, or fail when it is gone.
type PageLocator interface {
	Locate(ctx context.Context, c *ResolvedCall) (Page, error)
}

// AuditFunc records one finished tool call (the registry's last step).
type AuditFunc func(guard.Entry)

// Guard is the judge of calls: *guard.Policy, or a wrapper of it (a test
// counting the questions asked). A call is one question (Check, built
// from its ResolvedCall, frames ranked by the guard), its result one more
// (Screen, asked by the result screen); Peek answers Registry.Judge.
type Guard interface {
	Check(guard.Call) guard.Decision
	Peek(guard.Call) guard.Decision
	Screen(from []guard.Frame) []*guard.Decision
	Grant(guard.Call, guard.Scope) error
	OwnTab(id string)
}

// RegistryOptions configures a Registry; nil fields mean defaults.
type RegistryOptions struct {
	// Approver asks the person; nil means nobody is at a terminal, and Yes
	// decides (never for sensitive pages).
	Approver Approver
	Yes      bool
	// Locator finds the live page of browser tool calls; nil: no browser.
	Locator PageLocator
	// Audit receives one entry per call; nil: no audit log.
	Audit AuditFunc
	// Screen, when set, sees every result before anything else does, with
	// the call as it was resolved and judged, and may replace content that
	// came from somewhere the rules deny (see Session.screen): it asks the
	// guard one question about everything the result holds, through
	// ResolvedCall.ScreenResult, which reuses what the provider already
	// asked about the same documents while the call ran.
	Screen func(ctx context.Context, c *ResolvedCall, res *ToolResult)
	// Guard is whom the registry asks; nil: the policy itself.
	Guard Guard
}

// Registry is the one path for every tool call. Call resolves the tool, finds
// the live URL of the page it acts on, asks the guard, asks the person when
// needed, runs the tool under a timeout and records the call in the audit
// log. Slash commands, subcommands and the LLM all call it; there is no
// second path. It is safe for concurrent use.
type Registry struct {
	policy *guard.Policy
	guard  Guard // opts.Guard, else policy
	opts   RegistryOptions

	mu        sync.RWMutex
	providers []ToolProvider
}

// NewRegistry returns a registry judged by policy.
func NewRegistry(policy *guard.Policy, opts *RegistryOptions) *Registry {
	r := &Registry{policy: policy, guard: policy}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.Guard != nil {
		r.guard = r.opts.Guard
	}
	return r
}

// Policy returns the guard policy the registry consults.
func (r *Registry) Policy() *guard.Policy { return r.policy }

// Add registers a provider. Names must not collide across providers; the
// first provider offering a name wins.
func (r *Registry) Add(p ToolProvider) {
	r.mu.Lock()
	r.providers = append(r.providers, p)
	r.mu.Unlock()
}

// Tools lists every tool on offer, sorted by source then name.
func (r *Registry) Tools() []ToolDef {
	r.mu.RLock()
	providers := r.providers
	r.mu.RUnlock()
	seen := map[string]bool{}
	var all []ToolDef
	for _, p := range providers {
		for _, d := range p.Tools() {
			if !seen[d.Name] {
				seen[d.Name] = true
				all = append(all, d)
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Source != all[j].Source {
			return all[i].Source < all[j].Source
		}
		return all[i].Name < all[j].Name
	})
	return all
}

func (r *Registry) resolve(name string) (ToolDef, ToolProvider, bool) {
	r.mu.RLock()
	providers := r.providers
	r.mu.RUnlock()
	for _, p := range providers {
		for _, d := range p.Tools() {
			if d.Name == name {
				return d, p, true
			}
		}
	}
	return ToolDef{}, nil, false
}

// Call runs one tool call through the guard. A tool's own failure comes
// back as a ToolResult with IsError set (the model can act on it). A
// refusal — denied by a rule, declined by the person, or nobody to ask —
// returns both an IsError result whose text is the reason (for the model)
// and an error wrapping guard.ErrDenied with that same reason, so callers
// tell a refusal apart with errors.Is. Any other error means the call could
// not be attempted (unknown tool, bad arguments, a broken browser or
// server, a cancelled context).
//
// Call resolves the call once (ResolvedCall: arguments, catalogue entry,
// tab, address, files), hands it to the guard and then to the provider.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage, origin Origin) (*ToolResult, error) {
	start := time.Now()
	def, p, ok := r.resolve(name)
	if !ok {
		return nil, fmt.Errorf("%w %q%s", ErrUnknownTool, name, r.suggest(name))
	}
	if (origin == OriginAgent || origin == OriginMCP) && !offered(ctx, name) {
		return nil, fmt.Errorf("%w %q: it was not offered at this step", ErrUnknownTool, name)
	}
	call, err := prepare(ctx, def, args, origin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	call.judge = r.guard
	d, err := r.decide(ctx, call)
	secret := call.Page.Secret
	if err != nil {
		r.record(call, d, start, nil, err)
		return nil, err
	}
	if d.Verdict != guard.Allow {
		person := d.ForPerson()
		res := &ToolResult{Outcome: Refused, Text: d.Reason, Secret: secret}
		if person != d.Reason {
			res.Display = person
		}
		r.record(call, d, start, res, nil)
		if origin == OriginAgent || origin == OriginMCP {
			// The page chose its own address: in the model's words it is
			// page text.
			d.Reason, d.Person = d.ModelReason(call.judgedURL()), person
			res.Text = d.Reason
		}
		d.Verdict = guard.Deny // what is not allowed now is refused
		return res, d.Err()
	}
	res, err := r.run(ctx, call, p)
	if err == nil && res != nil && r.opts.Screen != nil {
		r.opts.Screen(ctx, call, res)
	}
	r.record(call, d, start, res, err)
	if res != nil {
		res.Secret = secret
	}
	if err == nil && res != nil && res.Outcome == Withheld {
		// Where the call went a deny rule names: a refusal like one made
		// before the call (a batch retrying it would only go there again).
		res.Failure, res.ours = NoFailure, true // the screen's Display is its sentence
		return res, guard.Decision{Verdict: guard.Deny, Reason: res.Text, Person: res.Display}.Err()
	}
	if err == nil && (origin == OriginAgent || origin == OriginMCP) {
		markUntrusted(res, call)
	}
	return res, err
}

// markUntrusted wraps what a page or a tool said in an untrusted block for
// the LLM, its errors too (an error can quote the page: an element's text,
// an exception); browseragent's own note and its own failures (a timeout)
// stay outside.
func markUntrusted(res *ToolResult, c *ResolvedCall) {
	if res.ours || strings.TrimSpace(res.Text) == "" {
		return
	}
	if res.Display == "" {
		res.Display = res.Full() // the person reads what the tool said, unwrapped
	}
	source := c.Def.Name
	if u := c.judgedURL(); u != "" {
		source += " " + u
	}
	if res.IsError() {
		res.Text = guard.UntrustedError(source, res.Text)
		return
	}
	res.Text = guard.Untrusted(source, res.Text)
}

// Recheck judges where an allowed call went on to (a redirect followed by
// web_fetch) by the same rules. Nobody can be asked in the middle of a
// request, so anything but allow refuses it, with the guard's reason.
func (r *Registry) Recheck(tool, target string) error {
	d := r.guard.Check(guard.Call{Tool: tool, Name: tool, TargetURL: target, Args: map[string]any{"url": target}})
	if d.Verdict != guard.Allow {
		d.Person = d.ForPerson()
		d.Reason = d.ModelReason(target) // the server chose where it redirects
		d.Verdict = guard.Deny
		return d.Err() // wraps guard.ErrDenied
	}
	return nil
}

// Judge says what the guard would decide of a call now, judged as Call
// judges it (resolved once, its live page located), without asking the
// person, running it, using up a once approval or recording it: for a
// caller that leaves out a step the guard would not let run unattended.
func (r *Registry) Judge(ctx context.Context, name string, args json.RawMessage, origin Origin) (guard.Decision, error) {
	def, _, ok := r.resolve(name)
	if !ok {
		return guard.Decision{}, fmt.Errorf("%w %q", ErrUnknownTool, name)
	}
	call, err := prepare(ctx, def, args, origin)
	if err != nil {
		return guard.Decision{}, fmt.Errorf("%s: %w", name, err)
	}
	if err := r.locate(ctx, call); err != nil {
		return guard.Decision{}, err
	}
	gc := guardCall(call)
	return ownTabs(call.Client, gc, call.Page.Alias, r.guard.Peek(gc)), nil
}

// decide locates the page, checks the guard and, when it says ask, asks the
// person (or applies the unattended rule) and checks again against the
// same tab's URL at that later moment.
func (r *Registry) decide(ctx context.Context, call *ResolvedCall) (guard.Decision, error) {
	if err := r.locate(ctx, call); err != nil {
		return guard.Decision{Verdict: guard.Deny, Reason: err.Error()}, err
	}
	gc := guardCall(call)
	d := r.check(call, gc)
	if d.Verdict != guard.Ask {
		return d, nil
	}
	approver, yes := r.opts.Approver, r.opts.Yes // fixed at NewRegistry
	if c := call.Client; c != nil && c.Yes {
		yes = true // this caller's own --yes, for this call
	}
	if approver == nil {
		return d.Unattended(yes), nil
	}
	answer, err := approver.Approve(ctx, approvalRequest(call, d))
	if ca, ok := cannotAsk(err); ok {
		u := d.Unattended(yes)
		if u.Verdict == guard.Deny {
			u.DecidedBy = guard.ByCannotAsk
			if ca.Why != "" {
				u.Reason = d.Reason + " " + ca.Why
			}
		}
		return u, nil
	}
	if err != nil {
		return d, fmt.Errorf("%s: approval: %w", call.Def.Name, err)
	}
	what := call.Def.Name // for the person, who saw the question
	if u := call.judgedURL(); u != "" {
		what += " on " + u
	}
	if answer == AnswerNone {
		d.Verdict, d.DecidedBy = guard.Deny, guard.ByNoAnswer
		d.Reason = "Nobody answered the approval question (nobody at a terminal): " + d.Reason + " Do not retry it now; say what you wanted to do so the person can do it or approve it."
		d.Person = "Not done: nobody answered whether " + what + " may run."
		return d, nil
	}
	if answer == AnswerDeny {
		d.Verdict, d.DecidedBy = guard.Deny, answeredBy(call.Client)
		d.Reason = "The person declined this call: " + d.Reason + " Do not retry it; ask the person what to do instead."
		d.Person = "Not done: you declined " + what + "."
		return d, nil
	}
	if err := r.guard.Grant(gc, scopeOf(answer)); err != nil {
		d.Verdict, d.Reason, d.DecidedBy = guard.Deny, err.Error(), guard.ByPolicy
		return d, nil
	}
	// The page may have moved while the person read the question: judge the
	// call again against where the same tab is now.
	if err := r.locate(ctx, call); err != nil {
		return guard.Decision{Verdict: guard.Deny, Reason: err.Error()}, err
	}
	d = r.check(call, guardCall(call))
	if d.Verdict == guard.Ask {
		d.Verdict = guard.Deny
		d.Reason = "The page changed after the person approved (now " + call.judgedURL() + "); the approval does not carry over. " + d.Reason
	}
	if d.Verdict == guard.Allow {
		d.DecidedBy = answeredBy(call.Client)
	}
	return d, nil
}

// answeredBy is who answered an approval question: the person at the
// terminal, or the MCP host the call came from (its form's answer).
func answeredBy(c *Client) string {
	if c != nil {
		return guard.ByElicitation(c.Name, c.Session)
	}
	return guard.ByPerson
}

// guardCall is the call the guard judges, with the MCP session that made
// it as its grantee: one host's grants are not another's.
func guardCall(call *ResolvedCall) guard.Call {
	gc := call.GuardCall()
	if c := call.Client; c != nil {
		gc.Grantee = c.Session
	}
	return gc
}

// check asks the guard the call's one question, notes the frame it was
// judged by, then holds an MCP client to its own tabs: any call on a tab
// another client opened is refused, and a close of any tab it did not open
// (another client's, the person's).
func (r *Registry) check(rc *ResolvedCall, call guard.Call) guard.Decision {
	d := r.guard.Check(call)
	rc.FrameURL = d.Frame
	return ownTabs(rc.Client, call, rc.Page.Alias, d)
}

// ownTabs holds an MCP client to its own tabs (see check).
func ownTabs(c *Client, call guard.Call, alias string, d guard.Decision) guard.Decision {
	if d.Verdict != guard.Deny && c != nil && c.Others != nil && call.TabID != "" && (c.Others(call.TabID) || alias != "" && c.Others(alias)) {
		d.Verdict, d.DecidedBy, d.Scopes = guard.Deny, guard.ByPolicy, nil
		d.Reason = fmt.Sprintf("Refused: %s would act on a tab another MCP session opened; a session reads and acts only in its own tabs (and the person's). Open one of your own with browser_open.", call.Tool)
		return d
	}
	if d.Verdict == guard.Deny || d.Effect != catalog.Close || c == nil || c.Owns == nil || c.Owns(call.TabID) || alias != "" && c.Owns(alias) {
		return d
	}
	d.Verdict, d.DecidedBy, d.Scopes = guard.Deny, guard.ByPolicy, nil
	tab := call.TabID
	if tab == "" {
		tab = "the current tab"
	}
	d.Reason = fmt.Sprintf("Refused: %s would close %s, which this MCP session did not open (it is another session's or the person's). Close only tabs you opened with browser_open.", call.Tool, tab)
	return d
}

// locate sets the call's live page. A second locate must find the same
// tab: if it is gone, the call fails instead of acting on another one.
func (r *Registry) locate(ctx context.Context, call *ResolvedCall) error {
	loc := r.opts.Locator // fixed at NewRegistry
	if loc == nil {
		return nil
	}
	was := call.Page.TabID
	page, err := loc.Locate(ctx, call)
	if err != nil {
		return fmt.Errorf("%s: find the page it acts on: %w", call.Def.Name, err)
	}
	if was != "" && page.TabID != was {
		return fmt.Errorf("%s: the tab it was checked on is gone; nothing was done", call.Def.Name)
	}
	call.Page = page
	if page.Owned && page.TabID != "" {
		r.guard.OwnTab(page.TabID)
	}
	return nil
}

// run executes the call under its one timeout, declared once: by its
// source (an MCP server's callTimeout, web_fetch's configured timeout),
// else by its catalogue entry. It is applied here and nowhere below: the
// tools honour ctx and set no call-wide limit of their own.
func (r *Registry) run(ctx context.Context, call *ResolvedCall, p ToolProvider) (*ToolResult, error) {
	limit := call.Entry.Timeout
	if limit <= 0 {
		limit = catalog.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	call.judged = true
	res, err := p.Call(ctx, call)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &ToolResult{Outcome: Failed, Failure: TimedOut, ours: true,
			Text:    fmt.Sprintf("%s timed out after %s; try a smaller step or a wait with a shorter timeout", call.Def.Name, limit),
			Display: fmt.Sprintf("%s timed out after %s", call.Def.Name, seconds(limit))}, nil
	}
	if err == nil && res == nil {
		res = &ToolResult{}
	}
	if err == nil && res.Outcome != OK && res.Outcome != Withheld {
		res.Fail() // a provider says only that it failed, never that it was refused
	}
	return res, err
}

// seconds is d as people say it: "30 s", "1.5 s", "5 min".
func seconds(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

func (r *Registry) record(c *ResolvedCall, d guard.Decision, start time.Time, res *ToolResult, err error) {
	if r.opts.Audit == nil {
		return
	}
	call, secret := c.GuardCall(), c.Page.Secret
	call.PageURL = c.judgedURL()
	e := guard.FromDecision(call, d)
	if c := c.Client; c != nil {
		e.Client, e.Session = c.Name, c.Session
	}
	e.Time, e.Duration, e.Secret = start.UTC(), time.Since(start), secret
	switch {
	case err != nil:
		e.Error = err.Error()
	case res != nil && res.IsError():
		e.Error = textutil.FirstLine(res.Text, 0)
	}
	if secret {
		e.Error = maskValues(e.Error, call.Args) // "no option <typed value>"
	}
	r.opts.Audit(e)
}

// maskValues hides every string argument's value where it appears in s.
func maskValues(s string, args map[string]any) string {
	for _, v := range args {
		if str, ok := v.(string); ok && len(str) >= 3 {
			s = strings.ReplaceAll(s, str, "[redacted]")
		}
	}
	return s
}

func approvalRequest(c *ResolvedCall, d guard.Decision) ApprovalRequest {
	req := ApprovalRequest{
		Tool: c.Def.Name, Server: c.Def.Server, PageURL: c.judgedURL(), Rule: d.Rule,
		Reason: d.ForPerson(), Args: summarizeArgs(c), Sensitive: d.Sensitive,
	}
	for _, sc := range d.Scopes { // only what the guard will accept
		switch sc {
		case guard.Once:
			req.Choices = append(req.Choices, AnswerOnce)
		case guard.ToolAlways:
			req.Choices = append(req.Choices, AnswerTool)
		case guard.ServerAlways:
			req.Choices = append(req.Choices, AnswerServer)
		}
	}
	return req
}

func scopeOf(a Answer) guard.Scope {
	switch a {
	case AnswerTool:
		return guard.ToolAlways
	case AnswerServer:
		return guard.ServerAlways
	}
	return guard.Once
}

func parseArgs(raw json.RawMessage) (map[string]any, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return map[string]any{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// suggest names the closest known tool, for "did you mean".
func (r *Registry) suggest(name string) string {
	best, bestD := "", 1<<30
	for _, d := range r.Tools() {
		if dist := textutil.EditDistance(name, d.Name); dist < bestD {
			best, bestD = d.Name, dist
		}
	}
	if best == "" || bestD > len(name)/2+2 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

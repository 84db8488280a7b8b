package guard

import (
	"github.com/browseragent/browseragent/catalog"

	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tc is one row of the decision table.
type tc struct {
	name   string
	url    string // from decisions.txt: placed as page or target by the tool's effect
	mode   Mode
	tool   string // the name the agent sees; mcp__server__tool is split
	args   map[string]any
	page   string
	target string
	owned  bool // the tab acted on was opened by the agent
	ro     *bool
	want   Verdict
	rule   string
}

func (c tc) call() Call {
	server, name := SplitToolName(c.tool)
	call := Call{Tool: c.tool, Server: server, Name: name, Args: c.args,
		PageURL: c.page, TargetURL: c.target, TabID: "tab-1", ReadOnlyHint: c.ro}
	if !c.owned {
		call.TabID = "persons-tab"
	}
	return call
}

type outcome struct {
	Verdict string
	Rule    string
}

// TestCheckTable is the guard's contract: every bypass trick, tool kind
// and mode, with the decision a cautious person expects.
func TestCheckTable(t *testing.T) {
	cases := append(loadDecisionFile(t, "testdata/decisions.txt"), decisionTable()...)
	if len(cases) < 60 {
		t.Fatalf("the table must keep at least 60 cases, has %d", len(cases))
	}
	runTable(t, cases)
}

// loadDecisionFile reads testdata/decisions.txt (format in its header) and
// places each URL as `browseragent sites check` does: the target of
// navigating tools and web_fetch, the page for the others.
func loadDecisionFile(t *testing.T, path string) []tc {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(nil, nil)
	var cases []tc
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := parseDecisionLine(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		e := p.effect(c.call())
		if e == catalog.Navigate || e == catalog.Open || c.tool == "web_fetch" {
			c.target = c.url
		} else {
			c.page, c.target = c.url, ""
		}
		cases = append(cases, c)
	}
	return cases
}

func parseDecisionLine(line string) (tc, error) {
	var c tc
	f := strings.Fields(line)
	if len(f) < 6 {
		return c, fmt.Errorf("too few fields")
	}
	verdicts := map[string]Verdict{"allow": Allow, "ask": Ask, "deny": Deny}
	want, ok := verdicts[f[0]]
	mode, err := ParseMode(f[2])
	if !ok || err != nil || (f[4] != "own" && f[4] != "person") {
		return c, fmt.Errorf("bad decision, mode or tab in %q", line)
	}
	c.want, c.mode, c.tool, c.owned = want, mode, f[3], f[4] == "own"
	if f[1] != "-" {
		c.rule = f[1]
	}
	rest := strings.TrimSpace(line[strings.Index(line, " "+f[4]+" ")+len(f[4])+2:])
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return c, fmt.Errorf("url: %v", err)
	}
	c.url, _ = strconv.Unquote(q)
	rest = strings.TrimSpace(rest[len(q):])
	if after, ok := strings.CutPrefix(rest, "page="); ok {
		q, err := strconv.QuotedPrefix(after)
		if err != nil {
			return c, fmt.Errorf("page: %v", err)
		}
		c.page, _ = strconv.Unquote(q)
		rest = strings.TrimSpace(after[len(q):])
	}
	c.name, _ = strings.CutPrefix(rest, "# ")
	return c, nil
}

func decisionTable() []tc {
	const click, snap, open, nav = "browser_click", "browser_snapshot", "browser_open", "browser_navigate"
	S, I := Shared, Isolated
	cases := []tc{
		// plain sensitive page: a write asks in both modes
		// userinfo both ways
		// case, dots, ports, IDNA, encodings
		// paths: encoded, dot segments, case, slashes
		// IP literals in every spelling
		// javascript:, data:, blob:, view-source: judged by the page
		// navigation: judged by the target
		{name: "initScript is a write", mode: S, tool: "mcp__chrome-devtools__navigate_page", args: map[string]any{"url": "https://example.com/", "initScript": "1"}, page: "https://go.dev/", owned: true, want: Ask},
		{name: "initScript into paypal", mode: I, tool: "mcp__chrome-devtools__navigate_page", args: map[string]any{"url": "https://paypal.com/", "initScript": "1"}, page: "https://go.dev/", owned: true, want: Ask, rule: "paypal"},
		{name: "native navigate back", mode: Shared, tool: "browser_navigate", args: map[string]any{"url": "back"}, page: "https://paypal.com/", owned: true, want: Allow},
		{name: "native navigate reload person's tab", mode: Shared, tool: "browser_navigate", args: map[string]any{"url": "Reload"}, page: "https://example.com/", want: Ask},
		{name: "mcp navigate reload own tab", mode: S, tool: "mcp__chrome-devtools__navigate_page", args: map[string]any{"type": "reload"}, page: "https://paypal.com/", owned: true, want: Allow},
		// tab ownership
		// reads
		{name: "screenshot to file is a write", mode: S, tool: "mcp__chrome-devtools__take_screenshot", args: map[string]any{"filePath": "/tmp/x.png"}, page: "https://example.com/", want: Ask},
		// chrome-devtools-mcp writes
		{name: "write with unknown page", mode: I, tool: click, want: Ask},
		// other MCP servers: annotations
		{name: "other server unknown is write", mode: I, tool: "mcp__github__create_issue", want: Ask},
		{name: "other server read-only", mode: S, tool: "mcp__github__get_issue", ro: ptr(true), want: Allow},
		// categories
	}
	return cases
}

func runTable(t *testing.T, cases []tc) {
	rules := defaultRules(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPolicy(rules, &Options{Mode: c.mode})
			p.OwnTab("tab-1")
			d := p.Check(c.call())
			want := outcome{Verdict: c.want.String(), Rule: c.rule}
			got := outcome{Verdict: d.Verdict.String(), Rule: d.Rule}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s\nreason: %s", diff, d.Reason)
			}
			if d.Reason == "" {
				t.Errorf("empty reason")
			}
		})
	}
}

func TestSensitiveAskNeedsFreshApproval(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	p := NewPolicy(defaultRules(t), &Options{Mode: Shared, Now: clock.now})
	bank := Call{Tool: "browser_click", Args: map[string]any{"ref": "e3"}, PageURL: "https://www.paypal.com/send", TabID: "t"}

	d := p.Check(bank)
	if d.Verdict != Ask || !d.Sensitive || !cmp.Equal(d.Scopes, []Scope{Once}) {
		t.Fatalf("first check = %v sensitive=%v scopes=%v, want ask, sensitive, [once]", d.Verdict, d.Sensitive, d.Scopes)
	}
	for _, s := range []Scope{ToolAlways, ServerAlways} {
		if err := p.Grant(bank, s); !errors.Is(err, errNotGrantable) {
			t.Errorf("Grant(%v) on a sensitive page = %v, want ErrNotGrantable", s, err)
		}
	}
	if err := p.Grant(bank, Once); err != nil {
		t.Fatalf("Grant(once): %v", err)
	}
	// The page moved while the person read the question: judged again.
	moved := bank
	moved.PageURL = "https://www.paypal.com/confirm"
	if d := p.Check(moved); d.Verdict != Ask {
		t.Errorf("after a redirect the once approval must not apply, got %v", d.Verdict)
	}
	var got []string
	for range 2 {
		got = append(got, p.Check(bank).Verdict.String())
	}
	if diff := cmp.Diff([]string{"allow", "ask"}, got); diff != "" {
		t.Errorf("once approval is used exactly once (-want +got):\n%s", diff)
	}
	// An unused once approval expires.
	if err := p.Grant(bank, Once); err != nil {
		t.Fatal(err)
	}
	clock.t = clock.t.Add(3 * time.Minute)
	if d := p.Check(bank); d.Verdict != Ask {
		t.Errorf("expired once approval still applied")
	}
}

func TestGrantsAndTrustReset(t *testing.T) {
	p := NewPolicy(defaultRules(t), &Options{Mode: Shared})
	p.OwnTab("a") // the agent's tab: in the person's own, every write asks afresh (TestPersonsTabAsksEveryTime)
	click := Call{Tool: "mcp__chrome-devtools__click", Server: "chrome-devtools", Name: "click", PageURL: "https://example.com/", TabID: "a"}
	fill := click
	fill.Tool, fill.Name = "mcp__chrome-devtools__fill", "fill"
	bank := click
	bank.PageURL = "https://paypal.com/"

	if err := p.Grant(click, ToolAlways); err != nil {
		t.Fatal(err)
	}
	got := []string{p.Check(click).DecidedBy, p.Check(fill).Verdict.String(), p.Check(bank).Verdict.String()}
	if diff := cmp.Diff([]string{ByGrant, "ask", "ask"}, got); diff != "" {
		t.Errorf("tool grant covers that tool on ordinary pages only (-want +got):\n%s", diff)
	}
	if err := p.Grant(fill, ServerAlways); err != nil {
		t.Fatal(err)
	}
	if d := p.Check(fill); d.Verdict != Allow || d.DecidedBy != ByGrant {
		t.Errorf("server grant: %v by %s", d.Verdict, d.DecidedBy)
	}
	if d := p.Check(bank); d.Verdict != Ask {
		t.Errorf("server grant must not cover a sensitive page, got %v", d.Verdict)
	}
	p.OwnTab("a")
	msg := p.SetMode(Isolated)
	msg2 := p.SetMode(Shared)
	if d := p.Check(click); d.Verdict != Ask {
		t.Errorf("after a mode switch grants must be gone, got %v", d.Verdict)
	}
	if d := p.Check(closeTab("a")); d.Verdict != Deny {
		t.Errorf("after a mode switch the agent must own no tabs: closing tab a = %v", d.Verdict)
	}
	if diff := cmp.Diff([]string{`Dropped 2 "always allow" grants.`, ""}, []string{msg, msg2}); diff != "" {
		t.Errorf("SetMode message counts grants (-want +got):\n%s", diff)
	}
}

func TestDenyCannotBeApproved(t *testing.T) {
	p := NewPolicy(defaultRules(t), &Options{Mode: Shared})
	c := Call{Tool: "browser_open", Args: map[string]any{"url": "https://vault.bitwarden.com/"}}
	for _, s := range []Scope{Once, ToolAlways} {
		if err := p.Grant(c, s); !errors.Is(err, errNotGrantable) {
			t.Errorf("Grant(%v) on deny = %v", s, err)
		}
	}
	d := p.Check(c)
	if !errors.Is(d.Err(), ErrDenied) || d.DecidedBy != ByRule {
		t.Errorf("deny decision: err=%v by=%s", d.Err(), d.DecidedBy)
	}
}

func TestUnattended(t *testing.T) {
	p := NewPolicy(defaultRules(t), &Options{Mode: Shared})
	p.OwnTab("x")
	ordinary := p.Check(Call{Tool: "browser_click", PageURL: "https://example.com/", TabID: "x"})
	bank := p.Check(Call{Tool: "browser_click", PageURL: "https://paypal.com/", TabID: "x"})
	read := p.Check(Call{Tool: "browser_snapshot", PageURL: "https://paypal.com/"})
	persons := p.Check(Call{Tool: "browser_click", PageURL: "https://example.com/", TabID: "y"})
	type row struct {
		Verdict, By string
		Auto        bool
	}
	got := []row{}
	for _, d := range []Decision{ordinary, bank, read, persons} {
		for _, yes := range []bool{false, true} {
			u := d.Unattended(yes)
			got = append(got, row{u.Verdict.String(), u.DecidedBy, d.autoApprovable(yes)})
		}
	}
	want := []row{
		{"deny", ByNoAnswer, false}, {"allow", ByFlag, true}, // ordinary page: --yes covers it
		{"deny", ByNoAnswer, false}, {"deny", ByNoAnswer, false}, // sensitive: never
		{"allow", ByPolicy, true}, {"allow", ByPolicy, true}, // a read needs nobody
		{"deny", ByNoAnswer, false}, {"deny", ByNoAnswer, false}, // a click in the person's own tab: never
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unattended decisions (-want +got):\n%s", diff)
	}
	if u := bank.Unattended(true); !strings.Contains(u.Reason, "--yes never covers a call that needs a fresh approval each time") {
		t.Errorf("reason does not explain --yes: %s", u.Reason)
	}
}

func TestCheckConcurrent(t *testing.T) {
	p := NewPolicy(defaultRules(t), &Options{Mode: Shared})
	c := Call{Tool: "browser_click", PageURL: "https://example.com/", TabID: "x"}
	done := make(chan bool)
	for i := range 4 {
		go func() {
			for range 200 {
				switch i {
				case 0:
					p.SetMode(Shared)
				case 1:
					_ = p.Grant(c, ToolAlways)
				default:
					p.Check(c)
				}
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
}

func BenchmarkCheck(b *testing.B) {
	p := NewPolicy(defaultRules(b), &Options{Mode: Shared})
	calls := []Call{
		{Tool: "browser_click", PageURL: "https://www.paypal.com/myaccount/summary", TabID: "t"},
		{Tool: "browser_snapshot", PageURL: "https://github.com/golang/go/issues/1", TabID: "t"},
		{Tool: "mcp__chrome-devtools__click", Server: "chrome-devtools", Name: "click", PageURL: "https://blog.example.org/2024/05/post?x=1", TabID: "t"},
		{Tool: "browser_open", Args: map[string]any{"url": "https://us-east-1.console.aws.amazon.com/ec2/home"}},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.Check(calls[i%len(calls)])
	}
}

func TestPolicyGrantsAndResetTrust(t *testing.T) {
	rules, err := ParseRules([]byte("version: 1\nrules: []\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(rules, &Options{Mode: Shared})
	p.OwnTab("t1")
	click := Call{Tool: "browser_click", PageURL: "https://example.test/", TabID: "t1"}
	fill := Call{Tool: "mcp__files__write", Server: "files", Name: "write", PageURL: "https://example.test/"}
	if err := p.Grant(click, ToolAlways); err != nil {
		t.Fatal(err)
	}
	if err := p.Grant(fill, ServerAlways); err != nil {
		t.Fatal(err)
	}
	p.OwnTab("t1")
	if diff := cmp.Diff([]string{"server files", "tool browser_click"}, p.Grants()); diff != "" {
		t.Errorf("Grants (-want +got):\n%s", diff)
	}
	if n := p.ResetTrust(); n != 2 {
		t.Errorf("ResetTrust = %d, want 2", n)
	}
	if len(p.Grants()) != 0 {
		t.Errorf("grants left after reset: %v", p.Grants())
	}
	if d := p.Check(click); d.Verdict != Ask {
		t.Errorf("click after reset = %v, want ask", d.Verdict)
	}
	if d := p.Check(closeTab("t1")); d.Verdict != Allow || p.Mode() != Shared {
		t.Errorf("ResetTrust changed the mode or the owned tabs")
	}
}

// closeTab is browser_close of tab id: the guard allows it in shared mode
// only when the agent opened (owns) that tab.
func closeTab(id string) Call {
	return Call{Tool: "browser_close", TabID: id, Args: map[string]any{}}
}

// TestGrantsBelongToTheirGrantee: an "always" or once approval one MCP
// session gave covers that session's calls only, not another's and not the
// shell's; Grants names whose each is.
func TestGrantsBelongToTheirGrantee(t *testing.T) {
	p := NewPolicy(nil, &Options{Mode: Shared})
	p.OwnTab("t")
	click := func(grantee string) Call {
		return Call{Tool: "browser_click", Args: map[string]any{"ref": "e1"}, PageURL: "https://example.com/", TabID: "t", Grantee: grantee}
	}
	if err := p.Grant(click("A"), ToolAlways); err != nil {
		t.Fatal(err)
	}
	type row struct{ A, B, Shell Verdict }
	got := row{p.Check(click("A")).Verdict, p.Check(click("B")).Verdict, p.Check(click("")).Verdict}
	if diff := cmp.Diff(row{Allow, Ask, Ask}, got); diff != "" {
		t.Errorf("after A's always (-want +got):\n%s", diff)
	}
	if err := p.Grant(click("B"), Once); err != nil {
		t.Fatal(err)
	}
	if d := p.Check(click("")); d.Verdict != Ask {
		t.Errorf("B's once approval was used by the shell: %v", d.Verdict)
	}
	if d := p.Check(click("B")); d.Verdict != Allow {
		t.Errorf("B's once approval: %v", d.Verdict)
	}
	if diff := cmp.Diff([]string{"tool browser_click (MCP session A)"}, p.Grants()); diff != "" {
		t.Errorf("Grants (-want +got):\n%s", diff)
	}
}

// TestPersonsTabAsksEveryTime: in the person's Chrome an input in a tab
// they opened (a click, a key, typing, a chosen option, a dialog answer) may
// follow a link or send a form, leaving their page as a navigation does:
// it asks every time, and no grant and no --yes covers it. In the agent's
// own tab the same write may be granted for good.
func TestPersonsTabAsksEveryTime(t *testing.T) {
	p := NewPolicy(nil, &Options{Mode: Shared})
	p.OwnTab("agent")
	for _, tool := range []string{"browser_click", "browser_type", "browser_press", "browser_select", "mcp__chrome-devtools__click", "mcp__chrome-devtools__press_key", "mcp__chrome-devtools__handle_dialog"} {
		server, name := "", tool
		if rest, ok := strings.CutPrefix(tool, "mcp__chrome-devtools__"); ok {
			server, name = "chrome-devtools", rest
		}
		c := Call{Tool: tool, Server: server, Name: name, PageURL: "https://example.com/inbox", TabID: "person", Args: map[string]any{}}
		if err := p.Grant(c, ToolAlways); !errors.Is(err, errNotGrantable) {
			t.Errorf("%s: always in the person's tab: %v, want ErrNotGrantable", tool, err)
		}
		d := p.Check(c)
		if d.Verdict != Ask || !d.Sensitive || !cmp.Equal([]Scope{Once}, d.Scopes) || d.Unattended(true).Verdict != Deny {
			t.Errorf("%s in the person's tab: %v %v sensitive=%v; %s", tool, d.Verdict, d.Scopes, d.Sensitive, d.Reason)
		}
		c.TabID = "agent"
		if err := p.Grant(c, ToolAlways); err != nil {
			t.Errorf("%s: always in the agent's tab: %v", tool, err)
		}
	}
}

// TestUnknownToolAsksEveryTime: a tool nothing is known about (no
// catalogue entry, no description from its server) is judged as the most
// dangerous kind in both modes, as docs/safety.md promises: it asks, with
// once the only answer, no "always" can be granted for it, --yes does not
// cover it, and a once approval is used up by one call.
func TestUnknownToolAsksEveryTime(t *testing.T) {
	for _, mode := range []Mode{Isolated, Shared} {
		t.Run(mode.String(), func(t *testing.T) {
			p := NewPolicy(defaultRules(t), &Options{Mode: mode})
			c := Call{Tool: "mystery__transfer", Args: map[string]any{"to": "someone"}, PageURL: "https://example.com/", TabID: "x"}
			p.OwnTab("x")
			d := p.Check(c)
			if d.Verdict != Ask || !d.Sensitive || !cmp.Equal(d.Scopes, []Scope{Once}) {
				t.Fatalf("check = %v sensitive=%v scopes=%v, want ask, sensitive, [once]", d.Verdict, d.Sensitive, d.Scopes)
			}
			if u := d.Unattended(true); u.Verdict != Deny || d.autoApprovable(true) {
				t.Errorf("--yes covered a tool nothing is known about: %v", u.Verdict)
			}
			for _, s := range []Scope{ToolAlways, ServerAlways} {
				if err := p.Grant(c, s); !errors.Is(err, errNotGrantable) {
					t.Errorf("Grant(%v) = %v, want ErrNotGrantable", s, err)
				}
			}
			if err := p.Grant(c, Once); err != nil {
				t.Fatal(err)
			}
			var got []string
			for range 2 {
				got = append(got, p.Check(c).Verdict.String())
			}
			if diff := cmp.Diff([]string{"allow", "ask"}, got); diff != "" {
				t.Errorf("a once approval of an unknown tool (-want +got):\n%s", diff)
			}
		})
	}
}

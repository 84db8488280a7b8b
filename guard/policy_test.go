package guard

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tc is one row of the decision table.
type tc struct {
	name   string
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
	const click, snap, open, nav = "browser_click", "browser_snapshot", "browser_open", "browser_navigate"
	S, I := Shared, Isolated
	cases := []tc{
		// plain sensitive page: a write asks in both modes
		{name: "paypal write shared", mode: S, tool: click, page: "https://www.paypal.com/myaccount", want: Ask, rule: "paypal"},
		{name: "paypal write isolated", mode: I, tool: click, page: "https://www.paypal.com/myaccount", want: Ask, rule: "paypal"},
		{name: "ordinary write shared", mode: S, tool: click, page: "https://example.com/form", want: Ask},
		{name: "ordinary write isolated", mode: I, tool: click, page: "https://example.com/form", want: Allow},
		{name: "apex host", mode: I, tool: click, page: "https://paypal.com/", want: Ask, rule: "paypal"},
		{name: "http scheme", mode: I, tool: click, page: "http://paypal.com/", want: Ask, rule: "paypal"},
		// userinfo both ways
		{name: "userinfo paypal@evil is evil", mode: I, tool: click, page: "https://paypal.com@evil.com/", want: Allow},
		{name: "userinfo evil@paypal is paypal", mode: I, tool: click, page: "https://evil.com@paypal.com/", want: Ask, rule: "paypal"},
		{name: "userinfo with password", mode: I, tool: click, page: "https://evil.com:pw@paypal.com/x", want: Ask, rule: "paypal"},
		{name: "userinfo with port-like part", mode: I, tool: click, page: "https://paypal.com:443@evil.com/", want: Allow},
		{name: "two at signs: last wins", mode: I, tool: click, page: "https://a@paypal.com@evil.com/", want: Allow},
		{name: "backslash ends authority", mode: I, tool: click, page: `https://evil.com\@paypal.com/`, want: Allow},
		{name: "backslash before path", mode: I, tool: click, page: `https://paypal.com\.evil.com/`, want: Ask, rule: "paypal"},
		{name: "fragment ends authority", mode: I, tool: click, page: "https://evil.com#@paypal.com", want: Allow},
		{name: "query ends authority", mode: I, tool: click, page: "https://evil.com?@paypal.com", want: Allow},
		// case, dots, ports, IDNA, encodings
		{name: "upper case", mode: I, tool: click, page: "HTTPS://WWW.PAYPAL.COM/SIGNIN", want: Ask, rule: "paypal"},
		{name: "trailing dot", mode: I, tool: click, page: "https://paypal.com./", want: Ask, rule: "paypal"},
		{name: "two trailing dots", mode: I, tool: click, page: "https://www.paypal.com../", want: Ask, rule: "paypal"},
		{name: "default port", mode: I, tool: click, page: "https://paypal.com:443/", want: Ask, rule: "paypal"},
		{name: "odd port", mode: I, tool: click, page: "https://paypal.com:8443/", want: Ask, rule: "paypal"},
		{name: "port with leading zeros", mode: I, tool: click, page: "https://paypal.com:0443/", want: Ask, rule: "paypal"},
		{name: "fullwidth letters", mode: I, tool: click, page: "https://ｐａｙｐａｌ．ｃｏｍ/", want: Ask, rule: "paypal"},
		{name: "ideographic full stop", mode: I, tool: click, page: "https://paypal。com/", want: Ask, rule: "paypal"},
		{name: "percent-encoded host", mode: I, tool: click, page: "https://pay%70al.com/", want: Ask, rule: "paypal"},
		{name: "percent-encoded dot in host", mode: I, tool: click, page: "https://paypal%2Ecom/", want: Ask, rule: "paypal"},
		{name: "newline inside host", mode: I, tool: click, page: "https://pay\npal.com/", want: Ask, rule: "paypal"},
		{name: "no slashes after scheme", mode: I, tool: click, page: "https:paypal.com/", want: Ask, rule: "paypal"},
		{name: "three slashes", mode: I, tool: click, page: "https:///paypal.com/", want: Ask, rule: "paypal"},
		{name: "backslashes after scheme", mode: I, tool: click, page: `https:\\paypal.com\`, want: Ask, rule: "paypal"},
		{name: "cyrillic look-alike is another host", mode: I, tool: click, page: "https://pаypal.com/", want: Allow},
		{name: "suffix trick", mode: I, tool: click, page: "https://paypal.com.evil.com/", want: Allow},
		{name: "prefix trick", mode: I, tool: click, page: "https://evilpaypal.com/", want: Allow},
		{name: "encoded @ in host is not a host", mode: I, tool: click, page: "https://evil.com%40paypal.com/", want: Ask},
		// paths: encoded, dot segments, case, slashes
		{name: "github settings", mode: I, tool: click, page: "https://github.com/settings/tokens", want: Ask, rule: "github-settings"},
		{name: "github repo is ordinary", mode: I, tool: click, page: "https://github.com/golang/go", want: Allow},
		{name: "encoded path letter", mode: I, tool: click, page: "https://github.com/%73ettings/tokens", want: Ask, rule: "github-settings"},
		{name: "dot dot segment", mode: I, tool: click, page: "https://github.com/golang/../settings", want: Ask, rule: "github-settings"},
		{name: "encoded dot dot", mode: I, tool: click, page: "https://github.com/x/%2e%2e/settings/keys", want: Ask, rule: "github-settings"},
		{name: "dot segment", mode: I, tool: click, page: "https://github.com/./settings/", want: Ask, rule: "github-settings"},
		{name: "double slash", mode: I, tool: click, page: "https://github.com//settings", want: Ask, rule: "github-settings"},
		{name: "path case", mode: I, tool: click, page: "https://github.com/SETTINGS/profile", want: Ask, rule: "github-settings"},
		{name: "repo settings glob", mode: I, tool: click, page: "https://github.com/golang/go/settings/secrets", want: Ask, rule: "github-settings"},
		{name: "query is not the path", mode: I, tool: click, page: "https://github.com/golang/go?x=/settings", want: Allow},
		{name: "wp-admin on any host", mode: I, tool: click, page: "https://blog.example.org/wp-admin/post.php", want: Ask, rule: "wordpress-admin"},
		// IP literals in every spelling
		{name: "metadata ip read denied", mode: I, tool: snap, page: "http://169.254.169.254/latest/meta-data", want: Deny, rule: "cloud-metadata"},
		{name: "decimal ip", mode: I, tool: snap, page: "http://2852039166/", want: Deny, rule: "cloud-metadata"},
		{name: "hex ip", mode: I, tool: snap, page: "http://0xa9.0xfe.0xa9.0xfe/", want: Deny, rule: "cloud-metadata"},
		{name: "octal ip", mode: I, tool: snap, page: "http://0251.0376.0251.0376/", want: Deny, rule: "cloud-metadata"},
		{name: "short ip", mode: I, tool: snap, page: "http://169.254.43518/", want: Deny, rule: "cloud-metadata"},
		{name: "ipv4-mapped ipv6", mode: I, tool: snap, page: "http://[::ffff:169.254.169.254]/", want: Deny, rule: "cloud-metadata"},
		{name: "ipv4-mapped ipv6 hex", mode: I, tool: snap, page: "http://[::ffff:a9fe:a9fe]/", want: Deny, rule: "cloud-metadata"},
		{name: "ipv6 rule", mode: I, tool: snap, page: "http://[FD00:EC2:0::254]/", want: Deny, rule: "cloud-metadata"},
		{name: "web_fetch metadata", mode: I, tool: "web_fetch", args: map[string]any{"url": "http://169.254.169.254/"}, want: Deny, rule: "cloud-metadata"},
		{name: "web_fetch ordinary", mode: S, tool: "web_fetch", args: map[string]any{"url": "https://go.dev/doc"}, want: Allow},
		// javascript:, data:, blob:, view-source: judged by the page
		{name: "javascript nav on paypal", mode: I, tool: nav, page: "https://paypal.com/", target: "javascript:document.forms[0].submit()", owned: true, want: Ask, rule: "paypal"},
		{name: "javascript mixed case and tab", mode: I, tool: nav, page: "https://paypal.com/", target: " JaVa\tScRiPt:alert(1)", owned: true, want: Ask, rule: "paypal"},
		{name: "javascript on ordinary page isolated", mode: I, tool: nav, page: "https://example.com/", target: "javascript:alert(1)", owned: true, want: Allow},
		{name: "javascript on ordinary page shared", mode: S, tool: nav, page: "https://example.com/", target: "javascript:alert(1)", owned: true, want: Ask},
		{name: "javascript on deny page", mode: I, tool: nav, page: "chrome://settings/passwords", target: "javascript:alert(1)", owned: true, want: Deny, rule: "browser-settings"},
		{name: "data nav on paypal is navigation", mode: I, tool: nav, page: "https://paypal.com/", target: "data:text/html,hi", owned: true, want: Allow},
		{name: "blob of a deny origin", mode: I, tool: nav, page: "https://example.com/", target: "blob:https://vault.bitwarden.com/0f3c", owned: true, want: Deny, rule: "password-manager-vaults"},
		{name: "blob of paypal: write judged there", mode: I, tool: click, page: "blob:https://paypal.com/0f3c", want: Ask, rule: "paypal"},
		{name: "view-source of deny", mode: I, tool: open, target: "view-source:https://vault.bitwarden.com/", want: Deny, rule: "password-manager-vaults"},
		{name: "mailto hands page to an app", mode: S, tool: nav, page: "https://example.com/", target: "mailto:a@example.com", owned: true, want: Ask},
		// navigation: judged by the target
		{name: "open sensitive is allowed", mode: S, tool: open, target: "https://www.paypal.com/", want: Allow, rule: "paypal"},
		{name: "open deny is refused", mode: S, tool: open, target: "https://vault.bitwarden.com/", want: Deny, rule: "password-manager-vaults"},
		{name: "bare host target", mode: S, tool: open, args: map[string]any{"url": "vault.bitwarden.com"}, want: Deny, rule: "password-manager-vaults"},
		{name: "mcp new_page deny", mode: I, tool: "mcp__chrome-devtools__new_page", args: map[string]any{"url": "https://my.1password.com/"}, want: Deny, rule: "password-manager-vaults"},
		{name: "navigate own tab to bank", mode: S, tool: nav, page: "https://example.com/", target: "https://www.chase.com/", owned: true, want: Allow, rule: "banks-us"},
		{name: "navigate person's tab asks", mode: S, tool: nav, page: "https://example.com/", target: "https://go.dev/", want: Ask},
		{name: "navigate person's tab isolated", mode: I, tool: nav, page: "https://example.com/", target: "https://go.dev/", want: Allow},
		{name: "navigate away from deny page", mode: I, tool: nav, page: "https://vault.bitwarden.com/", target: "https://go.dev/", owned: true, want: Allow},
		{name: "relative target refused", mode: I, tool: nav, page: "https://example.com/", target: "//paypal.com/", owned: true, want: Deny},
		{name: "initScript is a write", mode: S, tool: "mcp__chrome-devtools__navigate_page", args: map[string]any{"url": "https://example.com/", "initScript": "1"}, page: "https://go.dev/", owned: true, want: Ask},
		{name: "initScript into paypal", mode: I, tool: "mcp__chrome-devtools__navigate_page", args: map[string]any{"url": "https://paypal.com/", "initScript": "1"}, page: "https://go.dev/", owned: true, want: Ask, rule: "paypal"},
		{name: "mcp navigate reload own tab", mode: S, tool: "mcp__chrome-devtools__navigate_page", args: map[string]any{"type": "reload"}, page: "https://paypal.com/", owned: true, want: Allow},
		// tab ownership
		{name: "close person's tab shared", mode: S, tool: "browser_close", page: "https://example.com/", want: Deny},
		{name: "close own tab shared", mode: S, tool: "browser_close", page: "https://example.com/", owned: true, want: Allow},
		{name: "close any tab isolated", mode: I, tool: "browser_close", page: "https://example.com/", want: Allow},
		{name: "mcp close_page person's tab", mode: S, tool: "mcp__chrome-devtools__close_page", args: map[string]any{"pageId": 1.0}, page: "https://paypal.com/", want: Deny},
		// reads
		{name: "read sensitive page", mode: S, tool: snap, page: "https://mail.google.com/mail/u/0/", want: Allow, rule: "gmail"},
		{name: "mcp snapshot read", mode: S, tool: "mcp__chrome-devtools__take_snapshot", page: "https://paypal.com/", want: Allow, rule: "paypal"},
		{name: "screenshot to file is a write", mode: S, tool: "mcp__chrome-devtools__take_screenshot", args: map[string]any{"filePath": "/tmp/x.png"}, page: "https://example.com/", want: Ask},
		{name: "read deny page", mode: S, tool: snap, page: "https://vault.bitwarden.com/#/vault", want: Deny, rule: "password-manager-vaults"},
		{name: "browser settings upper case", mode: S, tool: snap, page: "CHROME://SETTINGS/passwords", want: Deny, rule: "browser-settings"},
		{name: "extension page", mode: S, tool: snap, page: "chrome-extension://nngceckbapebfimnlniiiahkandclblb/popup.html", want: Deny, rule: "browser-extensions"},
		{name: "local file", mode: I, tool: snap, page: "file:///etc/passwd", want: Deny, rule: "local-files"},
		{name: "local file via localhost", mode: I, tool: open, target: "file://localhost/etc/shadow", want: Deny, rule: "local-files"},
		{name: "about blank is ordinary", mode: I, tool: click, page: "about:blank", want: Allow},
		// chrome-devtools-mcp writes
		{name: "mcp click paypal shared", mode: S, tool: "mcp__chrome-devtools__click", page: "https://paypal.com/", want: Ask, rule: "paypal"},
		{name: "mcp evaluate isolated", mode: I, tool: "mcp__chrome-devtools__evaluate_script", page: "https://example.com/", want: Allow},
		{name: "mcp fill shared", mode: S, tool: "mcp__chrome-devtools__fill", page: "https://example.com/", want: Ask},
		{name: "mcp hover on bank", mode: I, tool: "mcp__chrome-devtools__hover", page: "https://online.citi.com/", want: Ask, rule: "banks-us"},
		{name: "write with unknown page", mode: I, tool: click, want: Ask},
		// other MCP servers: annotations
		{name: "other server unknown is write", mode: I, tool: "mcp__github__create_issue", want: Ask},
		{name: "other server read-only", mode: S, tool: "mcp__github__get_issue", ro: ptr(true), want: Allow},
		// categories
		{name: "government", mode: I, tool: click, page: "https://www.irs.gov/payments", want: Ask, rule: "government-and-tax"},
		{name: "crypto", mode: I, tool: click, page: "https://www.binance.com/en/my/wallet", want: Ask, rule: "crypto-exchanges"},
		{name: "cloud console", mode: I, tool: click, page: "https://us-east-1.console.aws.amazon.com/ec2/", want: Ask, rule: "aws-console"},
		{name: "feishu admin", mode: I, tool: click, page: "https://acme.feishu.cn/admin/contacts", want: Ask, rule: "feishu-lark-admin"},
		{name: "feishu docs ordinary", mode: I, tool: click, page: "https://acme.feishu.cn/docx/abc", want: Allow},
		{name: "qq mail", mode: I, tool: click, page: "https://mail.qq.com/", want: Ask, rule: "qq-mail"},
	}
	if len(cases) < 60 {
		t.Fatalf("the table must keep at least 60 cases, has %d", len(cases))
	}
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
		if err := p.Grant(bank, s); !errors.Is(err, ErrNotGrantable) {
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
	if p.OwnsTab("a") {
		t.Errorf("after a mode switch the agent must own no tabs")
	}
	if diff := cmp.Diff([]bool{true, true}, []bool{strings.Contains(msg, "2 \"always allow\" grant(s) cleared"), strings.Contains(msg2, "0 \"always allow\"")}); diff != "" {
		t.Errorf("SetMode message counts grants (-want +got):\n%s\n%s\n%s", diff, msg, msg2)
	}
}

func TestDenyCannotBeApproved(t *testing.T) {
	p := NewPolicy(defaultRules(t), &Options{Mode: Shared})
	c := Call{Tool: "browser_open", Args: map[string]any{"url": "https://vault.bitwarden.com/"}}
	for _, s := range []Scope{Once, ToolAlways} {
		if err := p.Grant(c, s); !errors.Is(err, ErrNotGrantable) {
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
	ordinary := p.Check(Call{Tool: "browser_click", PageURL: "https://example.com/", TabID: "x"})
	bank := p.Check(Call{Tool: "browser_click", PageURL: "https://paypal.com/", TabID: "x"})
	read := p.Check(Call{Tool: "browser_snapshot", PageURL: "https://paypal.com/"})
	type row struct {
		Verdict, By string
		Auto        bool
	}
	got := []row{}
	for _, d := range []Decision{ordinary, bank, read} {
		for _, yes := range []bool{false, true} {
			u := d.Unattended(yes)
			got = append(got, row{u.Verdict.String(), u.DecidedBy, d.AutoApprovable(yes)})
		}
	}
	want := []row{
		{"deny", ByPolicy, false}, {"allow", ByFlag, true}, // ordinary page: --yes covers it
		{"deny", ByRule, false}, {"deny", ByRule, false}, // sensitive: never
		{"allow", ByPolicy, true}, {"allow", ByPolicy, true}, // a read needs nobody
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unattended decisions (-want +got):\n%s", diff)
	}
	if u := bank.Unattended(true); !strings.Contains(u.Reason, "--yes never covers sensitive pages") {
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

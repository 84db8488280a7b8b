package guard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScriptJudgedByItsOrigin: script the agent writes runs with its
// page's origin, so it can reach every path a rule of that origin covers:
// on an ordinary page of an origin with a path-scoped ask rule it asks
// every time (--yes and grants never cover it), with a path-scoped deny
// rule it is refused; writes that are not script, other origins and rules
// for every host ("*") are judged as before.
func TestScriptJudgedByItsOrigin(t *testing.T) {
	rs, err := ParseRules([]byte(`version: 1
rules:
  - name: bank-paths
    hosts: [shop.example]
    paths: ["/bank"]
    action: ask
  - name: secret-paths
    hosts: ["*.vault.example"]
    paths: ["/secret"]
    action: deny
  - name: any-admin
    hosts: ["*"]
    paths: ["/wp-admin"]
    action: ask
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, page string
		args             map[string]any
		want             Verdict
		rule             string
		scopes           []Scope
	}{
		{"eval on an ordinary page of the origin", "browser_eval", "https://shop.example/cart", map[string]any{"js": "1"}, Ask, "bank-paths", []Scope{Once}},
		{"chrome-devtools-mcp's script", "mcp__chrome-devtools__evaluate_script", "https://shop.example/", map[string]any{"function": "() => 1"}, Ask, "bank-paths", []Scope{Once}},
		{"a javascript: URL", "browser_navigate", "https://shop.example/", map[string]any{"url": "javascript:fetch('/bank/done')"}, Ask, "bank-paths", []Scope{Once}},
		{"an init script runs in the target", "mcp__chrome-devtools__navigate_page", "https://other.example/", map[string]any{"url": "https://shop.example/", "initScript": "1"}, Ask, "bank-paths", []Scope{Once}},
		{"deny paths on the origin", "browser_eval", "https://www.vault.example/home", map[string]any{"js": "1"}, Deny, "secret-paths", nil},
		{"a click is judged by its page", "browser_click", "https://shop.example/cart", map[string]any{"ref": "e1"}, Allow, "", nil},
		{"another origin", "browser_eval", "https://other.example/", map[string]any{"js": "1"}, Allow, "", nil},
		{"another scheme is another origin", "browser_eval", "ftp://shop.example/", map[string]any{"js": "1"}, Allow, "", nil},
		{"a rule for every host is left out", "browser_eval", "https://blog.example/", map[string]any{"js": "1"}, Allow, "", nil},
	}
	p := NewPolicy(rs, nil)
	p.OwnTab("t1")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			server, name := SplitToolName(tc.tool)
			d := p.Peek(Call{Tool: tc.tool, Server: server, Name: name, Args: tc.args, PageURL: tc.page, TabID: "t1"})
			type got struct {
				V      string
				Rule   string
				Scopes []Scope
				Yes    bool
			}
			want := got{tc.want.String(), tc.rule, tc.scopes, tc.want == Allow}
			if diff := cmp.Diff(want, got{d.Verdict.String(), d.Rule, d.Scopes, d.autoApprovable(true)}); diff != "" {
				t.Errorf("(-want +got)\n%s\nreason: %s", diff, d.Reason)
			}
		})
	}
}

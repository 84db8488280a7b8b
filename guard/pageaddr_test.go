package guard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPageAddrDeny: a page whose document came from an address a deny rule
// names (Call.PageAddr, as an attached browser reports it) is judged as
// that address whatever name its URL gives: reading it, scripting it and
// writing on it are refused; closing the tab and leaving it are not, so
// the agent can get away from it. An address no rule names, or none, leaves
// the decision to the URL.
func TestPageAddrDeny(t *testing.T) {
	rs, err := ParseRules([]byte("version: 1\nrules:\n  - name: local-admin\n    hosts: [\"127.0.0.1:8765\"]\n    action: deny\n  - name: admin-path\n    hosts: [\"127.0.0.1:9000\"]\n    paths: [\"/admin\"]\n    action: deny\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(rs, nil)
	p.OwnTab("tab-1")
	const page = "http://admin.example:8765/console"
	tests := []struct {
		name, tool, addr, target string
		want                     Verdict
		rule                     string
	}{
		{"read, denied address", "browser_snapshot", "127.0.0.1:8765", "", Deny, "local-admin"},
		{"read, mapped v6 spelling", "browser_extract", "[::ffff:127.0.0.1]:8765", "", Deny, "local-admin"},
		{"write, denied address", "browser_click", "127.0.0.1:8765", "", Deny, "local-admin"},
		{"script, denied address", "browser_eval", "127.0.0.1:8765", "", Deny, "local-admin"},
		{"close the tab", "browser_close", "127.0.0.1:8765", "", Allow, ""},
		{"navigate away", "browser_navigate", "127.0.0.1:8765", "https://example.org/", Allow, ""},
		{"another port", "browser_snapshot", "127.0.0.1:8766", "", Allow, ""},
		{"address unknown", "browser_snapshot", "", "", Allow, ""},
		{"a rule with paths is the URL's to judge", "browser_snapshot", "127.0.0.1:9000", "", Allow, ""},
		{"not an address", "browser_snapshot", "garbage", "", Allow, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Call{Tool: tc.tool, Name: tc.tool, Args: map[string]any{"js": "1", "url": tc.target}, PageURL: page, PageAddr: tc.addr, TargetURL: tc.target, TabID: "tab-1"}
			d := p.Peek(c)
			got, want := [2]string{d.Verdict.String(), d.Rule}, [2]string{tc.want.String(), tc.rule}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s\nreason: %s", diff, d.Reason)
			}
		})
	}
}

// TestConnectsDeny: browser_connect's endpoints are judged as addresses
// browseragent connects to: a deny rule refuses them in any spelling;
// any other endpoint is still asked about every time.
func TestConnectsDeny(t *testing.T) {
	p := NewPolicy(defaultRules(t), nil)
	tests := []struct {
		name string
		args map[string]any
		want Verdict
		rule string
	}{
		{"ws to the metadata address", map[string]any{"ws_endpoint": "ws://169.254.169.254/devtools/browser/x"}, Deny, "cloud-metadata"},
		{"browser_url in decimal", map[string]any{"browser_url": "http://2852039166:9222"}, Deny, "cloud-metadata"},
		{"metadata name", map[string]any{"browser_url": "http://metadata.google.internal/"}, Deny, "cloud-metadata"},
		{"a browser on loopback", map[string]any{"browser_url": "http://127.0.0.1:9222"}, Ask, ""},
		{"a profile", map[string]any{"user_data_dir": "/tmp/p"}, Ask, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := p.Peek(Call{Tool: "browser_connect", Name: "browser_connect", Args: tc.args})
			got, want := [2]string{d.Verdict.String(), d.Rule}, [2]string{tc.want.String(), tc.rule}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s\nreason: %s", diff, d.Reason)
			}
		})
	}
}

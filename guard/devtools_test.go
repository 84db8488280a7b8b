package guard

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDevToolsEndpointDenied: the browser's DevTools endpoint is out of
// every tool's reach whatever the rules say (here: none): Chromium's
// DevTools paths on every spelling of loopback and any port, and every
// path of the endpoint the browser was attached to, once the policy knows
// it. Its own use, browser_connect, is judged without them.
func TestDevToolsEndpointDenied(t *testing.T) {
	rs, err := ParseRules([]byte("version: 1\nrules: []\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(rs, nil)
	tests := []struct {
		name, tool, url string
		want            Verdict
		rule            string
	}{
		{"list", "web_fetch", "http://127.0.0.1:9222/json/list", Deny, devToolsRuleName},
		{"bare /json", "web_fetch", "http://127.0.0.1:9222/json", Deny, devToolsRuleName},
		{"anything under the /json prefix", "web_fetch", "http://127.0.0.1:9222/json_list", Deny, devToolsRuleName},
		{"close a tab", "web_fetch", "http://localhost:9222/json/close/ABC", Deny, devToolsRuleName},
		{"another loopback spelling", "web_fetch", "http://2130706433:41000/json/version", Deny, devToolsRuleName},
		{"ipv6 loopback", "web_fetch", "http://[::1]:9222/JSON/new?about:blank", Deny, devToolsRuleName},
		{"percent-encoded", "web_fetch", "http://127.0.0.1:9222/%6Ason/list", Deny, devToolsRuleName},
		{"dot segments", "web_fetch", "http://127.0.0.1:9222/x/../json/list", Deny, devToolsRuleName},
		{"front end", "browser_open", "http://127.0.0.1:9222/devtools/inspector.html?ws=127.0.0.1:9222/devtools/page/A", Deny, devToolsRuleName},
		{"websocket", "browser_navigate", "ws://127.0.0.1:9222/devtools/browser/x", Deny, devToolsRuleName},
		{"other loopback paths", "web_fetch", "http://127.0.0.1:9222/index.html", Allow, ""},
		{"not loopback", "web_fetch", "http://example.com/json/list", Allow, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := p.Peek(Call{Tool: tc.tool, Name: tc.tool, Args: map[string]any{"url": tc.url}})
			got, want := [2]string{d.Verdict.String(), d.Rule}, [2]string{tc.want.String(), tc.rule}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s\nreason: %s", diff, d.Reason)
			}
		})
	}

	p.SetBrowserEndpoints([]string{"ws://127.0.0.1:9222/devtools/browser/abc"})
	attached := []struct {
		name, url string
		want      Verdict
	}{
		{"its discovery page", "http://127.0.0.1:9222/", Deny},
		{"any path", "http://localhost:9222/anything", Deny},
		{"another port", "http://127.0.0.1:9223/", Allow},
	}
	for _, tc := range attached {
		t.Run("attached/"+tc.name, func(t *testing.T) {
			d := p.Peek(Call{Tool: "web_fetch", Name: "web_fetch", Args: map[string]any{"url": tc.url}})
			if d.Verdict != tc.want {
				t.Errorf("%s: %s, want %s (%s)", tc.url, d.Verdict, tc.want, d.Reason)
			}
		})
	}
	if err := p.Rules().checkAddress("127.0.0.1:9222"); !errors.Is(err, errAddressDenied) {
		t.Errorf("a connection to the attached endpoint: %v, want it refused", err)
	}
	if err := p.Rules().CheckRequest("127.0.0.1:41000", "http", "/json/close/x"); !errors.Is(err, errAddressDenied) {
		t.Errorf("a request for /json on a loopback connection: %v, want it refused", err)
	}
	if err := p.CheckEndpoint("ws://127.0.0.1:9222/devtools/browser/abc"); err != nil {
		t.Errorf("connecting to a DevTools endpoint is judged without the DevTools rules: %v", err)
	}
	d := p.Peek(Call{Tool: "browser_connect", Name: "browser_connect", Args: map[string]any{"ws_endpoint": "ws://127.0.0.1:9222/devtools/browser/abc"}})
	if d.Verdict == Deny {
		t.Errorf("browser_connect to a DevTools endpoint: %s", d.Reason)
	}
	p.SetBrowserEndpoints(nil)
	if d := p.Peek(Call{Tool: "web_fetch", Name: "web_fetch", Args: map[string]any{"url": "http://127.0.0.1:9222/"}}); d.Verdict != Allow {
		t.Errorf("after the endpoint was forgotten: %s", d.Reason)
	}
}

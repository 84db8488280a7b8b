//go:build linux

package session

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestSessionNetworkBodySecretsRedacted: a sign-in form posts the password
// (the page has moved on, so no field holds it any more), and the signed-in
// page's script trades a refresh token for an access token in JSON.
// get_network_request handed the model the password in the form body and
// both tokens in the JSON bodies; values under secret-like names (the ones
// the audit log redacts: password, token, secret, ...) are now redacted in
// network bodies, while the rest of the body stays readable.
func TestSessionNetworkBodySecretsRedacted(t *testing.T) {
	testutil.Parallel(t)
	const password, refresh, access = "hunter2-pass!", "r3fresh-t0ken-value", "acc3ss-t0ken-value"
	site := newTestSite(t)
	site.handle("/login", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Sign in</title><form method="post" action="/session"><input name="user" value="alice">
<input type="password" name="password" value="`+password+`"></form><script>setTimeout(() => document.forms[0].submit(), 100)</script>`)
	})
	site.handle("/session", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Signed in</title><p id="s">Signed in</p><script>
fetch('/api/token', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({refresh_token: '`+refresh[:8]+`' + '`+refresh[8:]+`', client: 'web'})})
  .then(r => r.text()).then(() => document.getElementById('s').textContent = 'Token refreshed')
</script>`)
	})
	site.handle("/api/token", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token": "`+access+`", "expires_in": 3600, "scope": "mail"}`)
	})

	s := newTestSession(t, true, "version: 1\nrules: []\n")
	waitMCP(t, s)
	call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{}) // it records the requests of pages it has seen
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/login"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	if res := call(t, s, "browser_wait", map[string]any{"text": "Token refreshed"}); res.IsError() {
		t.Fatalf("the sign-in did not finish: %s", res.Text)
	}
	page := mcpPageID(t, s, site.URL+"/session")
	list := call(t, s, "mcp__chrome-devtools__list_network_requests", map[string]any{"pageId": page}).Text
	for _, path := range []string{"/session", "/api/token"} {
		m := regexp.MustCompile(`reqid=(\d+) POST ` + regexp.QuoteMeta(site.URL+path)).FindStringSubmatch(list)
		if m == nil {
			t.Fatalf("no POST to %s listed:\n%s", path, list)
		}
		var reqid int
		fmt.Sscan(m[1], &reqid)
		res := call(t, s, "mcp__chrome-devtools__get_network_request", map[string]any{"pageId": page, "reqid": reqid})
		if res.IsError() || !strings.Contains(res.Text, path) {
			t.Fatalf("get_network_request %s: %s", path, res.Text)
		}
		for _, secret := range []string{password, "hunter2-pass%21", refresh, access} {
			if strings.Contains(res.Text, secret) {
				t.Errorf("get_network_request of %s handed %q to the model:\n%s", path, secret, res.Text)
			}
		}
		for _, kept := range map[string][]string{"/session": {"user=alice"}, "/api/token": {`"client":"web"`, `"expires_in": 3600`}}[path] {
			if !strings.Contains(res.Text, kept) {
				t.Errorf("get_network_request of %s lost %q, which is no secret:\n%s", path, kept, res.Text)
			}
		}
	}
}

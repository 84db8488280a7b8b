//go:build linux

package session

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestSessionNetworkHeadersRedacted: a page of a logged-in site calls its
// API with the HttpOnly session cookie and a bearer token, and the API
// answers with a new cookie. get_network_request of that request, called
// through the registry as the LLM would, must show none of the three
// values; nor may a native tool hand over a header line.
func TestSessionNetworkHeadersRedacted(t *testing.T) {
	testutil.Parallel(t)
	const cookie, token, refresh = "s3ssion-c00kie", "t0ken-b3arer", "r3fresh-c00kie"
	site := newTestSite(t)
	site.handle("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: cookie, Path: "/", HttpOnly: true})
		http.Redirect(w, r, "/app", http.StatusSeeOther)
	})
	site.handle("/app", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>App</title><p id="s">loading</p><script>
fetch('/api/me', {headers: {'Authorization': 'Bearer `+token+`'}}).then(r => r.text()).then(t => document.getElementById('s').textContent = t)
</script>`)
	})
	site.handle("/api/me", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "refresh", Value: refresh, Path: "/", HttpOnly: true})
		fmt.Fprint(w, "api answered")
	})

	s := newTestSession(t, true, "version: 1\nrules: []\n")
	// The server records the requests of pages it has seen: start it first.
	waitMCP(t, s)
	call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{})
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/login"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	if res := call(t, s, "browser_wait", map[string]any{"text": "api answered"}); res.IsError() {
		t.Fatalf("the page's API call did not finish: %s", res.Text)
	}
	page := mcpPageID(t, s, site.URL+"/app")
	list := call(t, s, "mcp__chrome-devtools__list_network_requests", map[string]any{"pageId": page})
	m := regexp.MustCompile(`reqid=(\d+) GET ` + regexp.QuoteMeta(site.URL+"/api/me")).FindStringSubmatch(list.Text)
	if m == nil {
		t.Fatalf("no request to /api/me listed:\n%s", list.Text)
	}
	var reqid int
	fmt.Sscan(m[1], &reqid)
	res := call(t, s, "mcp__chrome-devtools__get_network_request", map[string]any{"pageId": page, "reqid": reqid})
	if res.IsError() || !strings.Contains(res.Text, "/api/me") || !regexp.MustCompile(`(?im)^- cookie: ?<redacted>$`).MatchString(res.Text) {
		t.Fatalf("get_network_request: want the request with its cookie header redacted, got:\n%s", res.Text)
	}
	for _, secret := range []string{cookie, token, refresh} {
		if strings.Contains(res.Text, secret) {
			t.Errorf("get_network_request handed %q to the model:\n%s", secret, res.Text)
		}
	}

	res = call(t, s, "browser_eval", map[string]any{"js": `"Authorization: Bearer ` + token + `\nSet-Cookie: x=` + refresh + `"`})
	if res.IsError() || strings.Contains(res.Text, token) || strings.Contains(res.Text, refresh) {
		t.Errorf("a native tool's result showed a credential header: %+v", res)
	}
}

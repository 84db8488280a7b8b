//go:build linux

package session

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

const vaultSecret = "hunter2-vault-secret"

// vaultSite serves ordinary pages on 127.0.0.1 that lead to "the vault" on
// localhost, which a deny rule names: one redirects there a moment after
// it loads, one links to it, one frames it, one fetches from it.
func vaultSite(t *testing.T) (site, vault string) {
	t.Helper()
	s := newTestSite(t)
	vault = s.Bank
	s.page("/later", fmt.Sprintf(`<title>Soon</title><p>waiting</p><script>setTimeout(() => location.href = %q, 2500)</script>`, vault+"/secret/vault"))
	s.page("/link", `<title>Links</title><a href="{bank}/secret/vault">Open the vault</a>`)
	s.page("/framed", `<title>Framed</title><h1>Ordinary</h1><iframe src="{bank}/secret/vault"></iframe>`)
	// The isolated browser's proxy refuses the fetch itself (a deny rule
	// with paths, judged per request); the request is still in the tab's
	// network list, by its URL.
	s.page("/app", fmt.Sprintf(`<title>App</title><p id="s">loading</p><script>setTimeout(() => fetch(%q).then(r => r.text()).catch(() => {}).then(() => document.getElementById('s').textContent = 'fetched'), 1500)</script>`, vault+"/secret/api"))
	s.page("/secret/vault", "<title>Vault "+vaultSecret+"</title><h1>"+vaultSecret+"</h1>")
	s.handle("/secret/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, `{"password":"`+vaultSecret+`"}`)
	})
	return s.URL, vault
}

// TestSessionResultsFromDeniedPages: calls that were fine where they
// started bring back content of a page a deny rule names — a wait during
// which the page redirects there, a click that navigates there (with
// chrome-devtools-mcp's includeSnapshot, and natively), a snapshot of a
// page that frames it, a network request to it, a page list naming it.
// Through the registry, none of that content reaches the caller.
func TestSessionResultsFromDeniedPages(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	site, _ := vaultSite(t)
	s := newTestSession(t, true, `version: 1
rules:
  - name: local-vault
    category: password-manager
    hosts: ["localhost"]
    paths: ["/secret*"]
    action: deny
`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
		t.Fatalf("chrome-devtools-mcp: %v", err)
	}
	call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{})
	withheld := func(what string, res *tools.ToolResult) {
		t.Helper()
		if strings.Contains(res.Text, vaultSecret) || !strings.Contains(res.Text, "withheld") || !strings.Contains(res.Text, "local-vault") {
			t.Errorf("%s: want the result withheld, naming the rule; got %+v", what, res)
		}
	}
	open := func(path string) int {
		t.Helper()
		if res := call(t, s, "browser_open", map[string]any{"url": site + path}); res.IsError() {
			t.Fatalf("browser_open %s: %s", path, res.Text)
		}
		return mcpPageID(t, s, site+path)
	}

	// First, in the tab the server saw at its start (it records the
	// requests of those).
	page := open("/app")
	if res := call(t, s, "browser_wait", map[string]any{"text": "fetched"}); res.IsError() {
		t.Fatalf("the page's fetch did not finish: %s", res.Text)
	}
	reqs := call(t, s, "mcp__chrome-devtools__list_network_requests", map[string]any{"pageId": page})
	withheld("list_network_requests naming the vault", reqs)
	seen := 0
	for reqid := 1; reqid <= 6; reqid++ {
		res := call(t, s, "mcp__chrome-devtools__get_network_request", map[string]any{"pageId": page, "reqid": reqid})
		if strings.Contains(res.Text, vaultSecret) {
			t.Errorf("get_network_request %d handed over the vault's answer:\n%s", reqid, res.Text)
		}
		if strings.Contains(res.Text, "withheld") {
			seen++
		}
	}
	if seen == 0 {
		t.Errorf("no get_network_request of the page's requests was withheld")
	}

	page = open("/later")
	withheld("wait_for while the page redirects", call(t, s, "mcp__chrome-devtools__wait_for", map[string]any{"pageId": page, "text": []string{vaultSecret}}))
	list := call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{})
	if strings.Contains(list.Text, vaultSecret) || !strings.Contains(list.Text, "local-vault") {
		t.Errorf("list_pages shows the vault page's title:\n%s", list.Text)
	}
	if tabs := call(t, s, "browser_tabs", map[string]any{}); strings.Contains(tabs.Text, vaultSecret) || !strings.Contains(tabs.Text, "local-vault") {
		t.Errorf("browser_tabs shows the vault page's title:\n%s", tabs.Text)
	}

	page = open("/link")
	snap := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": page}).Text
	m := regexp.MustCompile(`uid=(\S+) link "Open the vault"`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no link uid in:\n%s", snap)
	}
	withheld("click with includeSnapshot", call(t, s, "mcp__chrome-devtools__click", map[string]any{"pageId": page, "uid": m[1], "includeSnapshot": true}))

	page = open("/framed")
	withheld("take_snapshot of a page framing the vault", call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": page}))

	// Native tools: a click that navigates there, a wait that sees it.
	open("/link")
	snap = call(t, s, "browser_snapshot", map[string]any{}).Text
	ref := regexp.MustCompile(`link "Open the vault"[^\n]*ref=(e\d+)|ref=(e\d+)[^\n]*"Open the vault"`).FindStringSubmatch(snap)
	if ref == nil {
		t.Fatalf("no ref for the link in:\n%s", snap)
	}
	withheld("browser_click that navigates to the vault", call(t, s, "browser_click", map[string]any{"ref": ref[1] + ref[2]}))
	open("/later")
	withheld("browser_wait while the page redirects", call(t, s, "browser_wait", map[string]any{"text": vaultSecret}))
}

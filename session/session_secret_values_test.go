package session

import (
	"regexp"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestSessionSecretFieldValuesNeverReachTheModel: what a page's secret
// fields hold — a card number, its security code, a one-time code, a
// password shown as plain text (autocomplete current-password) — is what
// the guard redacts when the agent types it, so no result shows it either:
// browser_snapshot and chrome-devtools-mcp's take_snapshot printed each
// value, and so did a script reading the form and a console message the
// page logged (values the person typed or the browser filled in, in their
// Chrome). Now each shows as ••••, in every frame of the tab.
func TestSessionSecretFieldValuesNeverReachTheModel(t *testing.T) {
	testutil.Parallel(t)
	secrets := []string{"4111111111111111", "737", "982431", "correct horse+battery"}
	site := newTestSite(t) // its frame on {bank}: another site, a frame of its own process
	site.page("/pay", `<title>Pay</title><form><label>Card <input name=card autocomplete="cc-number" value="4111111111111111"></label>
<label>CVC <input name=cvc autocomplete="cc-csc" value="737"></label>
<label>Name <input name=holder autocomplete="cc-name" value="Ada Lovelace"></label></form>
<iframe src="{bank}/login" width="400" height="200"></iframe>
<script>console.log('card entered: ' + document.querySelector('[name=card]').value)</script>`)
	site.page("/login", `<title>Sign in</title><label>Shown password <input type=text autocomplete="current-password" value="correct horse+battery"></label>
<label>Code <input autocomplete="one-time-code" value="982431"></label>`)
	s := newTestSession(t, true, "version: 1\nrules: []\n")
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/pay"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	// The site's port is the system's choice, not the page's: it may hold
	// "737" by chance, so the checks read the texts without it.
	port := site.URL[strings.LastIndexByte(site.URL, ':'):]
	unported := func(text string) string { return strings.ReplaceAll(text, port, ":PORT") }
	leaks := func(what, text string) {
		t.Helper()
		text = unported(text)
		for _, v := range secrets[:2] { // the top document's secrets
			if strings.Contains(text, v) {
				t.Errorf("%s shows the secret %q:\n%s", what, v, text)
			}
		}
	}
	snap := call(t, s, "browser_snapshot", map[string]any{}).Text
	leaks("browser_snapshot", snap)
	if !strings.Contains(snap, "Ada Lovelace") {
		t.Errorf("browser_snapshot hides more than the secret fields:\n%s", snap)
	}

	waitMCP(t, s)
	page := mcpPageID(t, s, site.URL+"/pay")
	msnap := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": page}).Text
	if !strings.Contains(msnap, "Shown password") || !strings.Contains(msnap, "Ada Lovelace") {
		t.Fatalf("chrome-devtools-mcp's snapshot does not show the form and the frame's fields:\n%s", msnap)
	}
	for _, v := range secrets {
		if strings.Contains(unported(msnap), v) {
			t.Errorf("take_snapshot shows the secret %q:\n%s", v, msnap)
		}
	}
	leaks("evaluate_script", call(t, s, "mcp__chrome-devtools__evaluate_script", map[string]any{"pageId": page,
		"function": "() => Array.from(document.querySelectorAll('input'), i => i.value).join(' ')"}).Text)
	// chrome-devtools-mcp keeps the messages of loads it saw: load it again.
	if res := call(t, s, "mcp__chrome-devtools__navigate_page", map[string]any{"pageId": page, "type": "reload"}); res.IsError() {
		t.Fatalf("reload: %s", res.Text)
	}
	console := call(t, s, "mcp__chrome-devtools__list_console_messages", map[string]any{"pageId": page}).Text
	if !regexp.MustCompile(`card entered`).MatchString(console) {
		t.Fatalf("the page's console message is not listed:\n%s", console)
	}
	leaks("list_console_messages", console)
}

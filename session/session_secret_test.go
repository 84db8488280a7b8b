package session

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// loginSite serves a sign-in form at every path; /vault/... is what the
// test's sensitive-site rule names.
func loginSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Sign in</title><form><input name="user" placeholder="user name">`+
			`<input type="password" name="pw" placeholder="pass word"></form>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// refOf finds the ref of the current page's snapshot line holding label.
func refOf(t *testing.T, s *Session, label string) string {
	t.Helper()
	snap := call(t, s, "browser_snapshot", map[string]any{}).Text
	for _, line := range strings.Split(snap, "\n") {
		if m := snapRefRE.FindStringSubmatch(line); m != nil && strings.Contains(line, label) {
			return m[1]
		}
	}
	t.Fatalf("no ref for %q in:\n%s", label, snap)
	return ""
}

// checkAuditLog fails t when the session's audit log holds any of hidden,
// the secrets typed, or lacks any of shown, what was typed into ordinary
// fields: redaction must not hide everything.
func checkAuditLog(t *testing.T, s *Session, hidden, shown []string) {
	t.Helper()
	log, err := os.ReadFile(s.audit.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range hidden {
		if strings.Contains(string(log), secret) {
			t.Errorf("audit log holds %q:\n%s", secret, log)
		}
	}
	for _, plain := range shown {
		if !strings.Contains(string(log), plain) {
			t.Errorf("audit log lost %q typed into an ordinary field:\n%s", plain, log)
		}
	}
}

// TestSessionSecretTyping: text typed into a real password field never
// reaches the audit log or the approval box, and the result says so
// (Secret) for the shell's history; text typed into an ordinary field is
// still logged and shown, so redaction does not hide everything.
func TestSessionSecretTyping(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	site := loginSite(t)
	host := strings.Split(strings.TrimPrefix(site.URL, "http://"), ":")[0]
	s, person := newSharedSession(t, false, `version: 1
rules:
  - name: local-vault
    category: password-manager
    hosts: ["`+host+`"]
    paths: ["/vault*"]
    action: ask
`)
	const (
		password = "hunter2secret"
		vaultPw  = "hunter2vault"
		user     = "alice-visible"
		vaultUsr = "bob-visible"
	)
	call(t, s, "browser_open", map[string]any{"url": site.URL + "/login"})
	userRef, pwRef := refOf(t, s, "user name"), refOf(t, s, "pass word")

	type typed struct {
		Field  string
		Secret bool
	}
	var got []typed
	typeInto := func(field, ref, text string) {
		t.Helper()
		res := call(t, s, "browser_type", map[string]any{"ref": ref, "text": text})
		if res.IsError() {
			t.Fatalf("browser_type %s: %s", field, res.Text)
		}
		got = append(got, typed{field, res.Secret})
	}
	typeInto("user", userRef, user)
	typeInto("password", pwRef, password)
	// A key pressed while the password field has focus types into it too.
	if res := call(t, s, "browser_press", map[string]any{"key": "z"}); res.IsError() || !res.Secret {
		t.Errorf("browser_press in the focused password field: Secret=%v (%s), want true", res.Secret, res.Text)
	}

	// On a sensitive page the person is asked: the box shows the user name
	// but not the password.
	call(t, s, "browser_navigate", map[string]any{"url": site.URL + "/vault/login"})
	userRef, pwRef = refOf(t, s, "user name"), refOf(t, s, "pass word")
	person.will(tools.AnswerOnce, tools.AnswerOnce)
	typeInto("vault user", userRef, vaultUsr)
	typeInto("vault password", pwRef, vaultPw)

	want := []typed{{"user", false}, {"password", true}, {"vault user", false}, {"vault password", true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolResult.Secret (-want +got)\n%s", diff)
	}
	var asked []string
	for _, q := range person.questions() {
		asked = append(asked, q.Args)
	}
	wantAsked := []string{
		fmt.Sprintf(`ref=%q text=%q`, userRef, vaultUsr),
		fmt.Sprintf(`ref=%q text="[redacted]"`, pwRef),
	}
	if diff := cmp.Diff(wantAsked, asked); diff != "" {
		t.Errorf("approval box arguments (-want +got)\n%s", diff)
	}

	checkAuditLog(t, s, []string{password, vaultPw, `"key":"z"`}, []string{user, vaultUsr})
}

// lyingLoginJS is a sign-in page's script that tells the DOM's own
// properties and methods otherwise in the page's world: its password field
// says it is a text box, no field has an autocomplete, it holds no fields
// or frames at all, and once the password is typed nothing has the focus.
const lyingLoginJS = `<script>
Object.defineProperty(HTMLInputElement.prototype, 'type', {get() { return 'text' }, configurable: true});
const ga = Element.prototype.getAttribute;
Element.prototype.getAttribute = function (n) { return n === 'autocomplete' ? null : ga.call(this, n) };
// Once something is typed into the password field, nothing has the focus
// (sooner, typing's own focus check would fail).
addEventListener('input', e => e.target.name === 'pw' && Object.defineProperty(Document.prototype, 'activeElement',
  {get() { return document.body }, configurable: true}));
Element.prototype.matches = function () { return false };
Element.prototype.querySelector = function () { return null };
Document.prototype.querySelectorAll = function () { return [] };
</script>`

// TestSessionSecretPageCannotLie: whether a field is a secret one is asked
// of the DOM where the page's scripts cannot answer for it (an isolated
// world), so a sign-in page that redefines the DOM's properties in its own
// world cannot get the password the agent types into it written into the
// audit log. Before, the tab's top document was asked in the page's world:
// this page's password, its one-time code and a key pressed in the
// password field were all logged in clear.
func TestSessionSecretPageCannotLie(t *testing.T) {
	testutil.Parallel(t)
	site := newTestSite(t)
	site.page("/login", `<title>Sign in</title>`+lyingLoginJS+`<form><input name="user" placeholder="user name">`+
		`<input type="password" name="pw" placeholder="pass word"><input name="otp" autocomplete="one-time-code" placeholder="sms code"></form>`)
	s := newTestSession(t, false, "version: 1\nrules: []\n")
	call(t, s, "browser_open", map[string]any{"url": site.URL + "/login"})
	const (
		password = "hunter2lying"
		code     = "731955"
		user     = "carol-visible"
	)
	got := map[string]bool{}
	for _, f := range []struct{ field, label, text string }{
		{"user", "user name", user},
		{"code", "sms code", code},
		{"password", "pass word", password},
	} {
		res := call(t, s, "browser_type", map[string]any{"ref": refOf(t, s, f.label), "text": f.text})
		if res.IsError() {
			t.Fatalf("browser_type %s: %s", f.field, res.Text)
		}
		got[f.field] = res.Secret
	}
	// The password field has the focus: a key pressed goes into it.
	res := call(t, s, "browser_press", map[string]any{"key": "Q"})
	if res.IsError() {
		t.Fatalf("browser_press: %s", res.Text)
	}
	got["key in the password field"] = res.Secret
	if diff := cmp.Diff(map[string]bool{"user": false, "code": true, "password": true, "key in the password field": true}, got); diff != "" {
		t.Errorf("ToolResult.Secret (-want +got)\n%s", diff)
	}
	checkAuditLog(t, s, []string{password, code, `"key":"Q"`}, []string{user})
}

// TestSessionSecretMCPFill: chrome-devtools-mcp's fill names its field by a
// uid browseragent cannot resolve, so a fill on a page holding a password
// field is redacted whole, while a fill on a page without one is logged.
func TestSessionSecretMCPFill(t *testing.T) {
	testutil.Parallel(t)
	site := loginSite(t)
	plain := newTestSite(t)
	// the card form is a payment provider's, in a cross-site frame
	plain.page("/shop", `<title>Shop</title><input name="q" placeholder="search words"><iframe src="{bank}/card"></iframe>`)
	plain.page("/card", `<title>Pay</title><input name="cc" autocomplete="cc-number" placeholder="card no">`)
	// a sign-in page that lies about its fields in its own world
	plain.page("/lying", `<title>Sign in</title>`+lyingLoginJS+`<input type="password" name="pw" placeholder="pass word">`)
	plain.page("/search", `<title>Search</title><input name="q" placeholder="search words">`)
	s := newTestSession(t, true, "version: 1\nrules: []\n")
	waitMCP(t, s)
	fill := func(url, label, value string) bool {
		t.Helper()
		call(t, s, "browser_open", map[string]any{"url": url})
		id := mcpPageID(t, s, url)
		snap := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": id}).Text
		uid := ""
		for _, line := range strings.Split(snap, "\n") {
			if m := mcpUIDRE.FindStringSubmatch(line); m != nil && strings.Contains(line, label) {
				uid = m[1]
			}
		}
		if uid == "" {
			t.Fatalf("no uid for %q in:\n%s", label, snap)
		}
		res := call(t, s, "mcp__chrome-devtools__fill", map[string]any{"pageId": id, "uid": uid, "value": value})
		if res.IsError() {
			t.Fatalf("fill %s: %s", label, res.Text)
		}
		return res.Secret
	}
	got := map[string]bool{
		"password":        fill(site.URL+"/login", "pass word", "hunter2mcp"),
		"search":          fill(plain.URL+"/search", "search words", "kittens-visible"),
		"card in a frame": fill(plain.URL+"/shop", "card no", "4111222233334444"),
		"lying page":      fill(plain.URL+"/lying", "pass word", "hunter2liar"),
	}
	if diff := cmp.Diff(map[string]bool{"password": true, "search": false, "card in a frame": true, "lying page": true}, got); diff != "" {
		t.Errorf("ToolResult.Secret of fill (-want +got)\n%s", diff)
	}
	checkAuditLog(t, s, []string{"hunter2mcp", "4111222233334444", "hunter2liar"}, []string{"kittens-visible"})
}

var mcpUIDRE = regexp.MustCompile(`uid=(\S+)`)

// TestSessionSecretInFrame: a card number typed, key by key, into a payment
// provider's field inside a cross-site frame never reaches the audit log:
// the focus is in the frame, so the frame's focused field is judged, not
// the frame element of the shop's page.
func TestSessionSecretInFrame(t *testing.T) {
	testutil.Parallel(t)
	site := newTestSite(t)
	site.page("/card", `<title>Pay</title><body style="margin:0"><input autocomplete="cc-number" style="width:100%;height:100%;box-sizing:border-box"></body>`)
	site.page("/note", `<title>Note</title><body style="margin:0"><input name="note" style="width:100%;height:100%;box-sizing:border-box"></body>`)
	for _, frame := range []string{"/card", "/note"} {
		site.page("/shop"+frame, `<title>Shop</title><h1>Shop</h1><div role="button" aria-label="pay here" style="width:300px;height:40px"><iframe src="{bank}`+frame+`" style="width:300px;height:40px;border:0"></iframe></div>`)
	}
	s := newTestSession(t, false, "version: 1\nrules: []\n")
	press := func(page string) bool {
		t.Helper()
		call(t, s, "browser_open", map[string]any{"url": site.URL + page})
		call(t, s, "browser_wait", map[string]any{"text": "Shop"})
		ref := refOf(t, s, "pay here")
		secret := false
		// The frame loads after the page: a click before its field is
		// drawn focuses nothing, and the key then types nowhere.
		for range 10 {
			call(t, s, "browser_click", map[string]any{"ref": ref})
			res := call(t, s, "browser_press", map[string]any{"key": "7"})
			if res.IsError() {
				t.Fatalf("browser_press on %s: %s", page, res.Text)
			}
			if secret = res.Secret; secret {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		return secret
	}
	got := map[string]bool{"card field in a frame": press("/shop/card"), "note field in a frame": press("/shop/note")}
	if diff := cmp.Diff(map[string]bool{"card field in a frame": true, "note field in a frame": false}, got); diff != "" {
		t.Errorf("ToolResult.Secret of browser_press (-want +got)\n%s", diff)
	}
}

// shadowLoginJS defines <secure-input>, a custom element that holds its
// field in a shadow root (closed, or open with mode=open) and hands the
// focus to it (delegatesFocus): a password box when the element says
// kind=password.
const shadowLoginJS = `<script>
for (const mode of ['closed', 'open']) customElements.define(mode === 'open' ? 'open-input' : 'secure-input', class extends HTMLElement {
  connectedCallback() {
    if (this._field) return;
    const root = this.attachShadow({mode, delegatesFocus: true});
    root.innerHTML = '<span><input type="' + (this.getAttribute('kind') || 'text') + '"></span>';
    this._field = root.querySelector('input');
  }
  get value() { return this._field.value }
});
</script>`

// TestSessionSecretBehindTheElement: what is typed goes where the focus
// lands, not always into the element the ref names. A custom element whose
// shadow root (closed or open) hands the focus to a password box, and a
// label whose control is one, are secret fields: what the agent types
// there is not written into the audit log. Before, the element itself was
// judged (a <secure-input>, a <label>), and the passwords were logged in
// clear.
func TestSessionSecretBehindTheElement(t *testing.T) {
	testutil.Parallel(t)
	site := newTestSite(t)
	site.page("/login", `<title>Sign in</title>`+shadowLoginJS+
		`<secure-input role="textbox" aria-label="closed pw" kind="password"></secure-input>`+
		`<open-input role="textbox" aria-label="open pw" kind="password"></open-input>`+
		`<secure-input role="textbox" aria-label="plain box"></secure-input>`+
		`<label role="textbox" aria-label="label pw" for="pw">Pass word</label><input type="password" id="pw" placeholder="other">`)
	s := newTestSession(t, false, "version: 1\nrules: []\n")
	call(t, s, "browser_open", map[string]any{"url": site.URL + "/login"})
	got := map[string]bool{}
	for _, f := range []struct{ label, text string }{
		{"closed pw", "hunter2closed"},
		{"open pw", "hunter2open"},
		{"plain box", "carol-visible"},
		{"label pw", "hunter2label"},
	} {
		res := call(t, s, "browser_type", map[string]any{"ref": refOf(t, s, f.label), "text": f.text})
		got[f.label] = res.Secret
	}
	want := map[string]bool{"closed pw": true, "open pw": true, "plain box": false, "label pw": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolResult.Secret (-want +got)\n%s", diff)
	}
	checkAuditLog(t, s, []string{"hunter2closed", "hunter2open", "hunter2label"}, []string{"carol-visible"})
}

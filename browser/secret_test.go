package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/internal/testutil"
)

// secretPage has one field of each kind SecretField must tell apart.
const secretPage = `<title>Sign in</title>
<form>
<input name="user" placeholder="user name">
<input type="password" name="pw" placeholder="pass word">
<input name="code" autocomplete="one-time-code" placeholder="sms code">
<input name="cc" autocomplete="billing cc-number" placeholder="card no">
<input name="cvc" autocomplete="cc-csc" placeholder="sec code">
<input name="pin" placeholder="pin number">
<input name="newpw" type="text" autocomplete="new-password" placeholder="shown new">
<select name="color" aria-label="colour pick"><option>red</option></select>
</form>`

func serveHTML(t *testing.T, pages map[string]string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for path, body := range pages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) })
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestSecretField: the live page says which refs are secret fields, the
// focused element is judged for key presses, and a stale ref is an error.
func TestSecretField(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	srv := serveHTML(t, map[string]string{"/login": secretPage, "/plain": `<title>Plain</title><input placeholder="search here">`})
	mustCall(t, b, "browser_open", map[string]any{"url": srv.URL + "/login"})
	snap := mustCall(t, b, "browser_snapshot", map[string]any{}).Text
	ctx := context.Background()

	tests := []struct {
		field string
		want  bool
	}{
		{"user name", false},
		{"pass word", true},
		{"sms code", true},
		{"card no", true},
		{"sec code", true},
		{"pin number", false}, // a name alone is not markup: not guessed
		{"shown new", true},
		{"colour pick", false},
	}
	got := map[string]bool{}
	want := map[string]bool{}
	for _, tt := range tests {
		ok, err := b.SecretField(ctx, "", refFor(t, snap, tt.field))
		if err != nil {
			t.Fatalf("SecretField(%s): %v", tt.field, err)
		}
		got[tt.field], want[tt.field] = ok, tt.want
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SecretField (-want +got)\n%s", diff)
	}

	focused := func() bool {
		ok, err := b.SecretField(ctx, b.CurrentTab(), "")
		if err != nil {
			t.Fatalf("SecretField(focused): %v", err)
		}
		return ok
	}
	if focused() {
		t.Errorf("nothing focused yet, but the focused element is a secret field")
	}
	mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, "pass word")})
	if !focused() {
		t.Errorf("password field focused, but SecretField(ref \"\") = false")
	}
	if ok, err := b.PageHasSecretField(ctx, ""); err != nil || !ok {
		t.Errorf("PageHasSecretField(login) = %v, %v; want true", ok, err)
	}

	mustCall(t, b, "browser_navigate", map[string]any{"url": srv.URL + "/plain"})
	if ok, err := b.PageHasSecretField(ctx, ""); err != nil || ok {
		t.Errorf("PageHasSecretField(plain) = %v, %v; want false", ok, err)
	}
	if _, err := b.SecretField(ctx, "", "e2"); err == nil {
		t.Errorf("SecretField on a ref of the page navigated away from: no error")
	}
	if _, err := b.SecretField(ctx, "t99", "e1"); err == nil {
		t.Errorf("SecretField on a tab that does not exist: no error")
	}
}

// TestSecretFieldAfterThePageChanged: a field is judged as the page is
// when the call comes, not as the snapshot saw it. In a tab with no
// frames the ref's element is judged from what the browser reports of it
// in the round trip that finds it; this holds it to the live page: a box
// turned into a password box after the snapshot, an autocomplete added,
// a password shown as text, a shadow root holding a password box given
// to the element the ref names, a card form's frame put into the element the
// ref names (its focused card field is where the text goes), and a page
// navigated away from since.
func TestSecretFieldAfterThePageChanged(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	srv := serveHTML(t, map[string]string{"/login": secretPage + `<div role="button" aria-label="pay here" style="width:300px;height:40px"></div>`,
		"/other": secretPage + `<p>Moved on.</p>`})
	ctx := context.Background()
	tests := []struct {
		name, field, change string
		want                bool
	}{
		{"nothing changed", "user name", "", false},
		{"made a password box", "user name", `document.querySelector('[name=user]').type = 'PassWord'`, true},
		{"autocomplete added", "pin number", `document.querySelector('[name=pin]').setAttribute('autocomplete', 'off one-time-code')`, true},
		{"password shown as text", "pass word", `document.querySelector('[name=pw]').type = 'text'`, false},
		{"a closed shadow root with a password box given to it", "pay here", `document.querySelector('[role=button]').attachShadow({mode: 'closed', delegatesFocus: true}).innerHTML = '<input type=password>'`, true},
		{"an open shadow root with a text box given to it", "pay here", `document.querySelector('[role=button]').attachShadow({mode: 'open'}).innerHTML = '<input>'`, false},
		{"a card frame put in it", "pay here", `new Promise(done => {
  const f = document.createElement('iframe');
  f.srcdoc = '<input autocomplete="cc-number">';
  f.onload = () => { f.contentDocument.querySelector('input').focus(); done(true) };
  document.querySelector('[role=button]').append(f);
})`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustCall(t, b, "browser_navigate", map[string]any{"url": srv.URL + "/login"})
			ref := refFor(t, mustCall(t, b, "browser_snapshot", map[string]any{}).Text, tt.field)
			if tt.change != "" {
				mustCall(t, b, "browser_eval", map[string]any{"js": tt.change})
			}
			got, err := b.SecretField(ctx, "", ref)
			if err != nil {
				t.Fatalf("SecretField(%s): %v", tt.field, err)
			}
			if got != tt.want {
				t.Errorf("SecretField(%s) after %q = %v, want %v", tt.field, tt.change, got, tt.want)
			}
		})
	}
	t.Run("navigated away", func(t *testing.T) {
		mustCall(t, b, "browser_navigate", map[string]any{"url": srv.URL + "/login"})
		ref := refFor(t, mustCall(t, b, "browser_snapshot", map[string]any{}).Text, "user name")
		mustCall(t, b, "browser_eval", map[string]any{"js": `location.href = '/other'`})
		mustCall(t, b, "browser_wait", map[string]any{"text": "Moved on."})
		if ok, err := b.SecretField(ctx, "", ref); err == nil {
			t.Errorf("SecretField(%s) on the page navigated to = %v, no error; want a stale ref", ref, ok)
		}
	})
}

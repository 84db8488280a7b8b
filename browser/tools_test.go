package browser

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestToolsOnLocalSite drives one isolated browser through the native tools
// on the local site: article, SPA, form with dialogs and a popup, cookie
// login, a page that never loads, and screenshots.
func TestToolsOnLocalSite(t *testing.T) {
	testutil.Parallel(t)
	site := newSite(t)
	b := newTestBrowser(t, &Options{ScreenshotDir: t.TempDir(), NavTimeout: 10e9}) // a loaded machine can take seconds for a page; /slow never loads

	t.Run("article snapshot and extract", func(t *testing.T) {
		r := mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/article.html"})
		if !contains(r.Text, "Static Article") {
			t.Errorf("open: %s", r.Text)
		}
		snap := mustCall(t, b, "browser_snapshot", nil).Text
		for _, want := range []string{`heading "The Tidal Clock" [level=1]`, `link "Form" [ref=`, "paragraph: The tidal clock of Saint-Malo"} {
			if !contains(snap, want) {
				t.Errorf("snapshot lacks %q:\n%s", want, snap)
			}
		}
		again := mustCall(t, b, "browser_snapshot", nil).Text
		if refFor(t, snap, `"Form"`) != refFor(t, again, `"Form"`) {
			t.Errorf("refs changed between two snapshots of the same page")
		}
		ext := mustCall(t, b, "browser_extract", nil).Text
		if !contains(ext, "lunar tide") || contains(ext, "local test site") {
			t.Errorf("extract should keep the article and drop the footer:\n%s", ext)
		}
	})

	t.Run("spa wait click", func(t *testing.T) {
		mustCall(t, b, "browser_navigate", map[string]any{"url": site.URL + "/spa.html"})
		mustCall(t, b, "browser_wait", map[string]any{"text": "forty-two"})
		mustCall(t, b, "browser_wait", map[string]any{"selector": "#late"})
		snap := mustCall(t, b, "browser_snapshot", nil).Text
		ref := refFor(t, snap, `button "Count 0"`)
		mustCall(t, b, "browser_click", map[string]any{"ref": ref})
		snap = mustCall(t, b, "browser_snapshot", nil).Text
		if !contains(snap, `button "Count 1" [ref=`+ref+`]`) {
			t.Errorf("after click want Count 1 with the same ref %s:\n%s", ref, snap)
		}
		r := tryCall(t, b, "browser_wait", map[string]any{"text": "never there", "timeout": 1})
		if !r.IsError || !contains(r.Text, "did not appear") {
			t.Errorf("wait for missing text: %+v", r)
		}
	})

	t.Run("form type select submit", func(t *testing.T) {
		mustCall(t, b, "browser_navigate", map[string]any{"url": site.URL + "/form.html"})
		snap := mustCall(t, b, "browser_snapshot", nil).Text
		mustCall(t, b, "browser_type", map[string]any{"ref": refFor(t, snap, `textbox "Your name"`), "text": "Grace"})
		mustCall(t, b, "browser_select", map[string]any{"ref": refFor(t, snap, "combobox"), "value": "Blue"})
		mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `checkbox "Gift wrap"`)})
		r := mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `button "Send order"`)})
		if !contains(r.Text, "/result?") {
			t.Errorf("submit did not navigate: %s", r.Text)
		}
		got := mustCall(t, b, "browser_eval", map[string]any{"js": "document.body.innerText"}).Text
		if !contains(got, "name=Grace color=b gift=on") {
			t.Errorf("result page: %s", got)
		}
		r = tryCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `button "Send order"`)})
		if !r.IsError || !contains(r.Text, "take a new browser_snapshot") {
			t.Errorf("stale ref: %+v", r)
		}
	})

	t.Run("dialogs wait for browser_dialog", func(t *testing.T) {
		mustCall(t, b, "browser_navigate", map[string]any{"url": site.URL + "/form.html"})
		snap := mustCall(t, b, "browser_snapshot", nil).Text
		r := mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `"Warn me"`)})
		if !contains(r.Text, `An alert dialog is open in tab t1: "Careful!"`) {
			t.Errorf("alert not reported: %s", r.Text)
		}
		mustCall(t, b, "browser_dialog", map[string]any{"accept": true})
		mustCall(t, b, "browser_wait", map[string]any{"text": "after alert"})
		mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `"Ask me"`)})
		mustCall(t, b, "browser_dialog", map[string]any{"accept": true})
		mustCall(t, b, "browser_wait", map[string]any{"text": "confirmed"})
	})

	t.Run("popup is owned and listed", func(t *testing.T) {
		snap := mustCall(t, b, "browser_snapshot", nil).Text
		r := mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, "Article in new tab")})
		if !contains(r.Text, "Opened new tab") {
			t.Errorf("popup not reported: %s", r.Text)
		}
		tabs := b.Tabs()
		last := tabs[len(tabs)-1]
		if !last.Owned {
			t.Errorf("popup tab not owned: %+v", tabs)
		}
		mustCall(t, b, "browser_close", map[string]any{"tab": last.ID})
		if n := len(b.Tabs()); n != len(tabs)-1 {
			t.Errorf("after close %d tabs, want %d", n, len(tabs)-1)
		}
	})

	t.Run("cookie login", func(t *testing.T) {
		mustCall(t, b, "browser_navigate", map[string]any{"url": site.URL + "/login.html"})
		snap := mustCall(t, b, "browser_snapshot", nil).Text
		mustCall(t, b, "browser_type", map[string]any{"ref": refFor(t, snap, `textbox "User"`), "text": "ada"})
		mustCall(t, b, "browser_type", map[string]any{"ref": refFor(t, snap, `textbox "Password"`), "text": "secret", "submit": true})
		snap = mustCall(t, b, "browser_snapshot", nil).Text
		if !contains(snap, "Welcome back, ada") {
			t.Errorf("not logged in:\n%s", snap)
		}
		if contains(snap, "secret") {
			t.Errorf("snapshot shows the password")
		}
	})

	t.Run("page that never loads", func(t *testing.T) {
		r := tryCall(t, b, "browser_navigate", map[string]any{"url": site.URL + "/slow"})
		if !r.IsError || !contains(r.Text, "did not finish loading within 10s") {
			t.Errorf("slow page: %+v", r)
		}
		snap := mustCall(t, b, "browser_snapshot", nil).Text
		if !contains(snap, "first part") {
			t.Errorf("partial page not readable:\n%s", snap)
		}
	})

	t.Run("crashed tab", func(t *testing.T) {
		tryCall(t, b, "browser_navigate", map[string]any{"url": "chrome://crash"})
		deadline := time.Now().Add(10 * time.Second)
		r := tryCall(t, b, "browser_snapshot", nil)
		for !strings.Contains(r.Text, "crashed") && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			r = tryCall(t, b, "browser_snapshot", nil)
		}
		if !r.IsError || !strings.Contains(r.Text, "crashed") {
			t.Fatalf("crash not reported: %+v", r)
		}
		mustCall(t, b, "browser_navigate", map[string]any{"url": site.URL + "/article.html"})
		if snap := mustCall(t, b, "browser_snapshot", nil).Text; !contains(snap, "Tidal Clock") {
			t.Errorf("tab not revived:\n%s", snap)
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		mustCall(t, b, "browser_navigate", map[string]any{"url": site.URL + "/article.html"})
		r := mustCall(t, b, "browser_screenshot", map[string]any{"full_page": true, "max_width": 640})
		if len(r.Images) != 1 || r.Images[0].MIME != "image/jpeg" || len(r.Images[0].Data) < 1000 {
			t.Fatalf("screenshot result: %s %d images", r.Text, len(r.Images))
		}
		if st, err := os.Stat(r.Path); err != nil || st.Size() != int64(len(r.Images[0].Data)) {
			t.Errorf("saved file %s: %v", r.Path, err)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			args any
			want string
		}{
			{"browser_click", map[string]any{"ref": "e99999"}, "take a new browser_snapshot"},
			{"browser_press", map[string]any{"key": "Hyperdrive"}, "unknown key"},
			{"browser_select_tab", map[string]any{"tab": "t404"}, `no tab "t404"`},
			{"browser_nope", nil, "unknown browser tool"},
			{"browser_eval", map[string]any{"js": "throw new Error('boom')"}, "boom"},
			{"browser_open", map[string]any{"url": "http://127.0.0.1:1/"}, "could not load"},
		} {
			r := tryCall(t, b, tc.name, tc.args)
			if !r.IsError || !strings.Contains(r.Text, tc.want) {
				t.Errorf("%s %v: got %+v, want error with %q", tc.name, tc.args, r, tc.want)
			}
		}
	})
}

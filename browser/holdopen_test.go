package browser

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestPersonsTabStaysOpen: in the person's browser no script the agent
// runs, and no click on a page's own "close" button, closes a tab the
// person opened: window.close() in every spelling, deferred, from an
// injected <script>, through a fresh same-origin iframe's pristine close,
// and from a button's onclick. The agent's own tabs are left alone.
func TestPersonsTabStaysOpen(t *testing.T) {
	testutil.Parallel(t)
	site := newSite(t)
	person := personBrowser(t, site.URL)
	b := New(nil)
	t.Cleanup(func() { b.Close() })
	if err := b.Connect(context.Background(), Target{UserDataDir: person.Dir}); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	article := ""
	for _, tab := range b.Tabs() {
		if strings.HasSuffix(tab.URL, "/article.html") {
			article = tab.ID
		}
	}
	if article == "" {
		t.Fatalf("no article tab among %+v", b.Tabs())
	}
	mustCall(t, b, "browser_select_tab", map[string]any{"tab": article})
	scripts := []string{
		`window.close()`,
		`close()`,
		`self.close(); top.close(); window.open('', '_self').close()`,
		`new Promise(r => setTimeout(() => { window.close(); r(1) }, 50))`,
		`(() => { const s = document.createElement('script'); s.textContent = 'window.close()'; document.body.append(s); return 1 })()`,
		`(() => { const f = document.body.appendChild(document.createElement('iframe')); f.contentWindow.Window.prototype.close.call(window); return 1 })()`,
		`(() => { const f = document.body.appendChild(document.createElement('iframe')); return f.contentWindow.eval('parent.close(); 1') })()`,
		`(() => { delete Window.prototype.close; window.close(); return 1 })()`,
		`(() => { location.href = 'javascript:window.close()'; return 1 })()`,
	}
	for _, js := range scripts {
		tryCall(t, b, "browser_eval", map[string]any{"js": js})
		time.Sleep(300 * time.Millisecond)
		if !slices.ContainsFunc(person.PageURLs(), func(u string) bool { return strings.HasSuffix(u, "/article.html") }) {
			t.Fatalf("browser_eval %q closed the person's tab", js)
		}
	}

	// A page's own close button, clicked by the agent.
	tryCall(t, b, "browser_eval", map[string]any{"js": `(() => { const btn = document.createElement('button'); btn.textContent = 'Close window'; btn.onclick = () => window.close(); document.body.prepend(btn); return 1 })()`})
	snap := mustCall(t, b, "browser_snapshot", nil).Text
	mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, "Close window")})
	time.Sleep(300 * time.Millisecond)
	if !slices.ContainsFunc(person.PageURLs(), func(u string) bool { return strings.HasSuffix(u, "/article.html") }) {
		t.Fatalf("clicking the page's close button closed the person's tab")
	}

	// The agent's own tab is left as it is.
	mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/account"})
	if r := mustCall(t, b, "browser_eval", map[string]any{"js": `Object.getOwnPropertyDescriptor(window, 'close').configurable`}); r.Text != "true" {
		t.Errorf("the agent's own tab had window.close taken away: %s", r.Text)
	}
}

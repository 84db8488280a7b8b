package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// settledText opens url, waits with browser_wait for the page to settle
// and returns its text, closing the tab again.
func settledText(t *testing.T, b *Browser, url string) string {
	t.Helper()
	mustCall(t, b, "browser_open", map[string]any{"url": url})
	defer mustCall(t, b, "browser_close", nil)
	if r := mustCall(t, b, "browser_wait", map[string]any{"timeout": 30}); r.Text != "The page has settled." {
		t.Errorf("browser_wait: %q", r.Text)
	}
	return mustCall(t, b, "browser_eval", map[string]any{"js": "document.body.innerText"}).Text
}

// TestWaitSettled: browser_wait with neither text nor selector returns
// once the page a script draws after a timer, a fetch or an animation
// frame is complete, in the isolated browser and in a tab the agent opened
// in the person's browser (a background tab there, whose timers and frames
// are held back unless it is kept awake). Readiness comes from the page's
// own signals, so it holds however loaded the machine is.
func TestWaitSettled(t *testing.T) {
	testutil.Parallel(t)
	pages := testutil.NewScriptPages(12)
	t.Cleanup(pages.Close)
	isolated := newTestBrowser(t, nil)
	person := testutil.StartPersonsBrowser(t, testutil.Require(t, "chromium", FindChrome), []string{"about:blank"}, nil)
	shared := New(nil)
	t.Cleanup(func() { shared.Close() })
	if err := shared.Connect(context.Background(), Target{UserDataDir: person.Dir}); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	for name, b := range map[string]*Browser{"isolated": isolated, "shared": shared} {
		t.Run(name, func(t *testing.T) {
			for i, u := range pages.URLs() {
				if text := settledText(t, b, u); !strings.Contains(text, testutil.ScriptPageMarker(i)) {
					t.Errorf("page %d was not complete when browser_wait said it had settled: %q", i, text)
				}
			}
		})
	}
}

// TestWaitNotSettled: a page that never stops changing fails browser_wait
// at its timeout with the reason, and the page stays usable.
func TestWaitNotSettled(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	mustCall(t, b, "browser_open", map[string]any{"url": "data:text/html,<p id=n>0</p><script>setInterval(() => n.textContent = +n.textContent + 1, 50)</script>"})
	r := tryCall(t, b, "browser_wait", map[string]any{"timeout": 1})
	if !r.IsError || !strings.HasPrefix(r.Text, NotSettled+" 1s: it still changes") {
		t.Errorf("browser_wait on a ticking page: error %v %q", r.IsError, r.Text)
	}
	mustCall(t, b, "browser_eval", map[string]any{"js": "document.title"})
}

// TestOpenConcurrentTabsOwnTheirPages: browser_open calls at once each get
// a tab of their own, as a --render batch makes them: open, read, close,
// several at a time. A tab being created could be taken for the browser's
// spare blank tab by another browser_open, so two renders shared one tab
// and a URL's line held another page.
func TestOpenConcurrentTabsOwnTheirPages(t *testing.T) {
	testutil.Parallel(t)
	b := newOwnBrowser(t, nil)
	const workers, each = 8, 6
	var wg sync.WaitGroup
	var mu sync.Mutex
	var wrong []string
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range each {
				title := fmt.Sprintf("page %d.%d", w, k)
				raw, _ := json.Marshal(map[string]any{"url": "data:text/html,<title>" + title + "</title>"})
				r, err := b.run(context.Background(), "browser_open", "", raw)
				if err != nil || r.IsError {
					continue
				}
				raw, _ = json.Marshal(map[string]any{"tab": r.Tab, "js": "document.title"})
				got, err := b.run(context.Background(), "browser_eval", "", raw)
				if err == nil && got.Text != fmt.Sprintf("%q", title) {
					mu.Lock()
					wrong = append(wrong, fmt.Sprintf("%s in tab %s shows %s", title, r.Tab, got.Text))
					mu.Unlock()
				}
				raw, _ = json.Marshal(map[string]any{"tab": r.Tab})
				b.run(context.Background(), "browser_close", "", raw)
			}
		}()
	}
	wg.Wait()
	if len(wrong) > 0 {
		t.Errorf("tabs shared by two browser_open calls:\n%s", strings.Join(wrong, "\n"))
	}
}

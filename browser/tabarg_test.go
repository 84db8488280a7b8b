package browser

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestPageToolsTakeTab checks the catalogue: every page tool, and only
// those, offers the optional tab argument.
func TestPageToolsTakeTab(t *testing.T) {
	testutil.Parallel(t)
	var withTab []string
	for _, tool := range New(nil).listTools() {
		props := tool.Parameters["properties"].(map[string]any)
		req, _ := tool.Parameters["required"].([]string)
		if _, ok := props["tab"]; ok && tool.Name != "browser_select_tab" && tool.Name != "browser_close" {
			withTab = append(withTab, tool.Name)
			if contains(strings.Join(req, ","), "tab") {
				t.Errorf("%s requires tab; it must default to the current tab", tool.Name)
			}
		}
	}
	var want []string
	for _, tool := range New(nil).listTools() {
		if tool.Entry.OnPage && tool.Name != "browser_select_tab" && tool.Name != "browser_close" {
			want = append(want, tool.Name)
		}
	}
	slices.Sort(want)
	slices.Sort(withTab)
	if diff := cmp.Diff(want, withTab); diff != "" {
		t.Errorf("page tools with a tab argument (-want +got)\n%s", diff)
	}
}

func TestTabForNamedTab(t *testing.T) {
	testutil.Parallel(t)
	b := New(nil)
	for _, tool := range b.listTools() {
		name := tool.Name
		if !tool.Entry.OnPage {
			continue
		}
		if got := b.TabFor(name, "t3"); got != "t3" {
			t.Errorf("TabFor(%s, tab t3) = %q", name, got)
		}
	}
	for _, name := range []string{"browser_open", "browser_tabs"} {
		if got := b.TabFor(name, "t3"); got != "" {
			t.Errorf("TabFor(%s, tab t3) = %q, want none: it acts on no existing tab", name, got)
		}
	}
}

var loadedTabRE = regexp.MustCompile(`^Loaded tab (t\d+)`)

// TestToolsOnNamedTab works a tab that is not the current one by its id:
// each page tool acts there, the guard's view (TabFor, CurrentURL) names it,
// and the current tab stays what it was.
func TestToolsOnNamedTab(t *testing.T) {
	testutil.Parallel(t)
	site := newSite(t)
	b := newTestBrowser(t, &Options{ScreenshotDir: t.TempDir()})
	open := func(path string) string {
		r := mustCall(t, b, "browser_open", map[string]any{"url": site.URL + path})
		m := loadedTabRE.FindStringSubmatch(r.Text)
		if m == nil {
			t.Fatalf("browser_open names no tab: %s", r.Text)
		}
		return m[1]
	}
	article := open("/article.html")
	spa := open("/spa.html")
	if cur := b.CurrentTab(); cur != spa {
		t.Fatalf("current tab %q, want the last opened %q", cur, spa)
	}

	tests := []struct {
		tool string
		args map[string]any
		want string // in the result text
	}{
		{"browser_extract", map[string]any{}, "lunar tide"},
		{"browser_snapshot", map[string]any{}, `heading "The Tidal Clock"`},
		{"browser_eval", map[string]any{"js": "document.title"}, `"Static Article"`},
		{"browser_wait", map[string]any{"text": "lunar tide", "timeout": 5}, "Found"},
		{"browser_scroll", map[string]any{"direction": "bottom"}, "Scrolled bottom"},
		{"browser_screenshot", map[string]any{"max_width": 400}, "Screenshot of tab " + article},
		{"browser_navigate", map[string]any{"url": site.URL + "/article.html?again"}, "Loaded tab " + article},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			tt.args["tab"] = article
			if got := b.TabFor(tt.tool, article); got != article {
				t.Errorf("TabFor = %q, want %q", got, article)
			}
			u, err := b.CurrentURL(context.Background(), b.TargetOf(article))
			if err != nil || !strings.HasPrefix(u, site.URL+"/article.html") {
				t.Errorf("CurrentURL = %q, %v; want the article's URL", u, err)
			}
			r := mustCall(t, b, tt.tool, tt.args)
			if !contains(r.Text, tt.want) {
				t.Errorf("result lacks %q:\n%s", tt.want, r.Text)
			}
			if tt.tool == "browser_screenshot" {
				if len(r.Images) != 1 || r.Path == "" {
					t.Errorf("screenshot: %d images, path %q", len(r.Images), r.Path)
				} else if _, err := os.Stat(r.Path); err != nil {
					t.Errorf("screenshot file: %v", err)
				}
			}
			if cur := b.CurrentTab(); cur != spa {
				t.Errorf("current tab is %q after %s on tab %s, want it unchanged (%s)", cur, tt.tool, article, spa)
			}
		})
	}

	// Without tab the current tab is meant, as before.
	if r := mustCall(t, b, "browser_wait", map[string]any{"text": "forty-two"}); !contains(r.Text, "Found") {
		t.Errorf("wait on the current tab: %s", r.Text)
	}
	if r := mustCall(t, b, "browser_extract", nil); !contains(r.Text, "forty-two") || contains(r.Text, "lunar tide") {
		t.Errorf("extract without tab must read the current tab (the SPA):\n%s", r.Text)
	}

	// Two tabs read at once, each by its id.
	var wg sync.WaitGroup
	got := map[string]string{}
	var mu sync.Mutex
	for _, id := range []string{article, spa} {
		wg.Go(func() {
			raw, _ := json.Marshal(map[string]any{"tab": id})
			r, err := b.run(context.Background(), "browser_extract", "", raw)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || r.IsError {
				t.Errorf("extract tab %s: %v %+v", id, err, r)
				return
			}
			got[id] = r.Text
		})
	}
	wg.Wait()
	if !contains(got[article], "lunar tide") || !contains(got[spa], "forty-two") {
		t.Errorf("concurrent extracts crossed tabs:\n%s: %.80q\n%s: %.80q", article, got[article], spa, got[spa])
	}

	r := tryCall(t, b, "browser_extract", map[string]any{"tab": "t99"})
	if !r.IsError || !contains(r.Text, `no tab "t99"`) {
		t.Errorf("unknown tab: %+v", r)
	}
}

// TestOpenFailureNamesTab: a tab whose page could not load is still open,
// and browser_open says which it is so the caller can close it.
func TestOpenFailureNamesTab(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	r := tryCall(t, b, "browser_open", map[string]any{"url": "http://127.0.0.1:1/"})
	m := regexp.MustCompile(`\nTab (t\d+) stays open`).FindStringSubmatch(r.Text)
	if !r.IsError || m == nil {
		t.Fatalf("browser_open of a dead port: %+v", r)
	}
	mustCall(t, b, "browser_close", map[string]any{"tab": m[1]})
	for _, tab := range b.Tabs() {
		if tab.ID == m[1] {
			t.Errorf("tab %s still open after browser_close", m[1])
		}
	}
}

// TestExtractDOMIsNeverAShell: a page the browser rendered ran its scripts,
// so a short app page is not reported as a JavaScript shell.
func TestExtractDOMIsNeverAShell(t *testing.T) {
	testutil.Parallel(t)
	rendered := []byte(`<!doctype html><html><head><title>SPA</title><script src="/a.js"></script><script src="/b.js"></script></head>
<body><div id="app"><h1>Rendered by JavaScript</h1><p>The answer is forty-two.</p></div><script>boot()</script></body></html>`)
	plain, err := extract.Extract(rendered, "http://127.0.0.1/spa", nil)
	if err != nil || !plain.JSShell {
		t.Fatalf("the fixture must look like a shell to plain extraction (JSShell %v, %v)", plain.JSShell, err)
	}
	r, err := extractDOM(rendered, "http://127.0.0.1/spa", nil)
	if err != nil {
		t.Fatal(err)
	}
	type flags struct {
		JSShell bool
		Hint    string
		HasText bool
	}
	if diff := cmp.Diff(flags{HasText: true}, flags{r.JSShell, r.Hint, contains(r.Markdown(), "forty-two")}); diff != "" {
		t.Errorf("extractDOM (-want +got)\n%s", diff)
	}
}

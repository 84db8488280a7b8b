package browser

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/internal/testutil"
)

func TestParseListPages(t *testing.T) {
	testutil.Parallel(t)
	text := `# list_pages response
## Pages
1: about:blank
2: Static Article (http://127.0.0.1:4242/article.html) [selected]
3: A (weird) title (http://127.0.0.1:4242/a?x=(1)) isolatedContext=ctx1
## Opened pages
4: Popup (http://127.0.0.1:4242/popup.html)
## Console
5: not a page`
	want := []MCPPage{
		{ID: 1, URL: "about:blank"},
		{ID: 2, Title: "Static Article", URL: "http://127.0.0.1:4242/article.html", Selected: true},
		{ID: 3, Title: "A (weird) title", URL: "http://127.0.0.1:4242/a?x=(1)"},
		{ID: 4, Title: "Popup", URL: "http://127.0.0.1:4242/popup.html", Opened: true},
	}
	if diff := cmp.Diff(want, ParseListPages(text)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestMatchByURL(t *testing.T) {
	testutil.Parallel(t)
	tabs := []Tab{{ID: "t1", URL: "http://a/"}, {ID: "t2", URL: "http://b/x"}, {ID: "t3", URL: "http://a/"}, {ID: "t4", URL: "http://d/"}}
	pages := []MCPPage{{ID: 1, URL: "http://a"}, {ID: 2, URL: "http://a/"}, {ID: 3, URL: "http://b/x"}, {ID: 4, URL: "http://c/"}, {ID: 5, URL: "http://d"}, {ID: 6, URL: "http://d/"}}
	type match struct {
		Tab string
		N   int
	}
	want := []match{
		{"", 2},   // two tabs and two pages show http://a/: no guess
		{"", 2},   //
		{"t2", 1}, // unique on both sides
		{"", 0},   // not one of our tabs
		{"", 2},   // one tab, two pages: still ambiguous
		{"", 2},
	}
	var got []match
	for i := range pages {
		tab, n := matchByURL(pages, i, tabs)
		got = append(got, match{tab, n})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestParseTabID(t *testing.T) {
	testutil.Parallel(t)
	for _, tc := range []struct{ text, want string }{
		{"# get_tab_id response\nTab ID: 030F7106EF0DF201FF5AA916756A09F0", "030F7106EF0DF201FF5AA916756A09F0"},
		{"Tab ID: 030F7106EF0DF201FF5AA916756A09F0\n## Pages\n1: about:blank", "030F7106EF0DF201FF5AA916756A09F0"},
		{"Error: No page found", ""},
		{"Tab ID: undefined", ""},
	} {
		if got := ParseTabID(tc.text); got != tc.want {
			t.Errorf("ParseTabID(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestChromeDevtoolsMCP starts the pinned chrome-devtools-mcp against our
// isolated browser, tells apart two tabs showing the same URL by identity
// (get_tab_id, then TabOfTabTarget) and takes a snapshot of a page our
// native tools opened.
func TestChromeDevtoolsMCP(t *testing.T) {
	testutil.Parallel(t)
	npx := testutil.RequireProgram(t, "npx")
	site := newSite(t)
	b := newOwnBrowser(t, nil)
	mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/article.html"})
	mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/article.html"})
	mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/article.html"})
	ws, err := b.WSEndpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t.Cleanup(func() { testutil.WaitNoProcessWith(t, ws) })
	start := func() (*mcp.ClientSession, *tailBuffer, error) {
		cmd := exec.Command(npx, append([]string{"-y", "chrome-devtools-mcp@1.11.0"}, ChromeDevtoolsMCPArgs(ws)...)...)
		cmd.Env = append(os.Environ(), ChromeDevtoolsMCPEnv()...)
		stderr := &tailBuffer{max: 4096} // what npx or the server said, for a failure to start
		cmd.Stderr = stderr
		// Its own group, so the cleanup ends npx and node together, and
		// no death signal: Pdeathsig fires when the OS thread that forked
		// npx exits (golang/go#27505), and this test forks on whatever
		// thread it runs on, which a browser's locked starter goroutine
		// may take and retire (launch.go's startProcess): npx was then
		// killed before the server answered, silently, under load.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		t.Cleanup(func() {
			// npx leaves node as a child: end the whole group.
			if cmd.Process != nil {
				killGroup(cmd.Process.Pid)
			}
		})
		client := mcp.NewClient(&mcp.Implementation{Name: "browseragent-test", Version: "0"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
		return cs, stderr, err
	}
	cs, stderr, err := start()
	if err != nil {
		t.Fatalf("start chrome-devtools-mcp: %v\nstderr:\n%s", err, stderr)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_pages", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("list_pages: %v", err)
	}
	pages := ParseListPages(toolText(res))
	ids := map[int]string{}
	seen := map[string]bool{}
	pageID := -1
	for _, p := range pages {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: TabIDTool, Arguments: map[string]any{"pageId": p.ID}})
		if err != nil || r.IsError {
			t.Fatalf("%s of page %d: %v %s", TabIDTool, p.ID, err, toolText(r))
		}
		tab, err := b.TabOfTabTarget(ctx, ParseTabID(toolText(r)))
		if err != nil || tab == "" || seen[tab] {
			t.Fatalf("page %d (%s) is tab %q (%v); seen before: %v", p.ID, p.URL, tab, err, seen[tab])
		}
		seen[tab], ids[p.ID] = true, tab
		if tab == b.CurrentTab() {
			pageID = p.ID
		}
	}
	if len(seen) != 3 {
		t.Errorf("want the 3 tabs showing the same article told apart, got %v", ids)
	}
	if pageID < 0 {
		t.Fatalf("our tab %s not found among MCP pages %+v (map %v)", b.CurrentTab(), pages, ids)
	}
	if tab, err := b.TabOfTabTarget(ctx, "0123456789ABCDEF0123456789ABCDEF"); tab != "" || err != nil {
		t.Errorf("an unknown tab target: %q, %v; want \"\", nil", tab, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "select_page", Arguments: map[string]any{"pageId": pageID}}); err != nil {
		t.Fatalf("select_page: %v", err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "take_snapshot", Arguments: map[string]any{"pageId": pageID}})
	if err != nil {
		t.Fatalf("take_snapshot: %v", err)
	}
	if text := toolText(res); res.IsError || !strings.Contains(text, "The Tidal Clock") {
		t.Errorf("take_snapshot of our page:\n%s", text)
	}
}

func toolText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestParseRequestURLs(t *testing.T) {
	testutil.Parallel(t)
	text := "## Request http://127.0.0.1:1/api/me\nStatus: 200\n### Request Headers\n- cookie:<redacted>\n"
	if diff := cmp.Diff([]string{"http://127.0.0.1:1/api/me"}, ParseRequestURLs(text)); diff != "" {
		t.Errorf("get_network_request (-want +got)\n%s", diff)
	}
	list := "## Network requests\nShowing 1-2 of 2 (Page 1 of 1).\nreqid=1 GET http://127.0.0.1:1/app [success - 200]\nreqid=2 POST http://localhost:2/vault/x [failed - net::ERR]\n"
	if diff := cmp.Diff([]string{"http://127.0.0.1:1/app", "http://localhost:2/vault/x"}, ParseRequestURLs(list)); diff != "" {
		t.Errorf("list_network_requests (-want +got)\n%s", diff)
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestRenderReady (a short name: Chromium's profile, in the test's TMPDIR,
// must keep its socket's path short): one `fetch --render` batch of 100 pages a
// script draws after they load (after timers of 0 to 400 ms, after a
// fetch() of the same server and a timer, on an animation frame, in two
// steps) gives every page complete, in our own isolated browser; and a
// smaller batch in tabs opened in an attached browser (--ws-endpoint, the
// person's), where they are background tabs. Each page is taken once it
// has settled by the page's own signals (its load, its requests, its DOM
// changes on its own clock), so no machine load can make one come out
// early. The old wait (the extraction unchanged for half a second) gave 1
// of 12 such pages incomplete in the isolated browser and 4 of 6 in the
// attached one.
func TestRenderReady(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	program(t, browseragentPkg)
	pages := testutil.NewScriptPages(100)
	t.Cleanup(pages.Close)
	tests := []struct {
		name  string
		pages int
		extra func(t *testing.T) []string
	}{
		{"own", 100, func(*testing.T) []string { return nil }},
		{"attached", 24, func(t *testing.T) []string {
			p := testutil.StartPersonsBrowser(t, chrome, []string{"about:blank"}, nil)
			data, err := os.ReadFile(filepath.Join(p.Dir, "DevToolsActivePort"))
			if err != nil {
				t.Fatal(err)
			}
			port, path, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
			return []string{"--ws-endpoint", "ws://127.0.0.1:" + port + path}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := runBinEnv(t, nil)
			urls := pages.URLs()[:tc.pages]
			list := writeList(t, e.dir, urls)
			out := filepath.Join(e.dir, "out.jsonl")
			args := append([]string{"fetch", "--render", "-i", list, "--out", out}, tc.extra(t)...)
			code, _, stderr := e.runFor(t, 10*time.Minute, "", args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			lines := readBatchOut(t, out)
			if len(lines) != len(urls) {
				t.Fatalf("%d lines for %d pages: %s", len(lines), len(urls), stderr)
			}
			incomplete := 0
			for _, l := range lines {
				i := -1
				for k, u := range urls {
					if u == l.URL {
						i = k
					}
				}
				if i < 0 || l.Error != "" || !strings.Contains(l.Content, testutil.ScriptPageMarker(i)) {
					incomplete++
					t.Errorf("%s came out incomplete (error %q): %.300q", l.URL, l.Error, l.Content)
				}
			}
			t.Logf("%d of %d pages incomplete; %s", incomplete, len(urls), strings.TrimSpace(stderr))
		})
	}
}

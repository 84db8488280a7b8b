package browser

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/internal/testutil"
)

func TestFindChrome(t *testing.T) {
	testutil.Parallel(t)
	look := func(have ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			for _, h := range have {
				if h == name {
					return "/bin/" + name, nil
				}
			}
			return "", errors.New("not found")
		}
	}
	tests := []struct {
		name    string
		env     map[string]string
		have    []string
		want    string
		wantErr string
	}{
		{"env wins", map[string]string{"BROWSERAGENT_CHROME": "mychrome"}, []string{"mychrome", "chromium"}, "/bin/mychrome", ""},
		{"env not executable", map[string]string{"BROWSERAGENT_CHROME": "nope"}, []string{"chromium"}, "", "BROWSERAGENT_CHROME=nope is not an executable"},
		{"chromium first", nil, []string{"google-chrome", "chromium"}, "/bin/chromium", ""},
		{"chrome stable", nil, []string{"google-chrome-stable"}, "/bin/google-chrome-stable", ""},
		{"none", nil, nil, "", "chrome not found: install chromium or set BROWSERAGENT_CHROME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findChrome(func(k string) string { return tt.env[k] }, look(tt.have...), func(string) bool { return false }, "linux")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestChromeArgs(t *testing.T) {
	testutil.Parallel(t)
	has := func(args []string, f string) bool {
		for _, a := range args {
			if a == f {
				return true
			}
		}
		return false
	}
	tests := []struct {
		name          string
		o             LaunchOptions
		root          bool
		want, notWant []string
	}{
		{"headless user", LaunchOptions{}, false, []string{"--headless", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic", "--user-data-dir=/p", "--disable-background-timer-throttling", "--disable-renderer-backgrounding"}, []string{"--no-sandbox"}},
		{"headed root", LaunchOptions{Headed: true}, true, []string{"--no-sandbox"}, []string{"--headless"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := chromeArgs("/p", tt.o, tt.root, "")
			for _, f := range tt.want {
				if !has(args, f) {
					t.Errorf("missing %s in %v", f, args)
				}
			}
			for _, f := range tt.notWant {
				if has(args, f) {
					t.Errorf("unexpected %s in %v", f, args)
				}
			}
		})
	}
}

func TestLaunchMissingChrome(t *testing.T) {
	t.Setenv("BROWSERAGENT_CHROME", "/nonexistent/chrome")
	b := New(nil)
	_, err := b.WSEndpoint(context.Background())
	if err == nil || !strings.Contains(err.Error(), "BROWSERAGENT_CHROME") {
		t.Fatalf("err = %v, want a message naming BROWSERAGENT_CHROME", err)
	}
}

func TestLaunchAndClose(t *testing.T) {
	testutil.Parallel(t)
	b := newOwnBrowser(t, nil)
	ws, err := b.WSEndpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ws, "ws://127.0.0.1:") {
		t.Errorf("ws = %q", ws)
	}
	tabs := b.Tabs()
	if len(tabs) != 1 || !tabs[0].Owned || !tabs[0].Current {
		t.Errorf("tabs = %+v, want one owned current blank tab", tabs)
	}
}

func TestChromeFailure(t *testing.T) {
	testutil.Parallel(t)
	tests := []struct{ stderr, want string }{
		{"[1:1:1130/080000.1:ERROR:ozone_platform_x11.cc(250)] Missing X server or $DISPLAY\n[1:1:ERROR:env.cc(257)] The platform failed to initialize.  Exiting.\n",
			"no display for a headed browser: set DISPLAY, or run without --headed"},
		{"line one\n[12:34:0101/000000.000:ERROR:foo.cc(1)] something broke\n\n", "something broke"},
		{"", "it printed nothing (try running it by hand with --headless)"},
	}
	for _, tc := range tests {
		if got := chromeFailure(tc.stderr); got != tc.want {
			t.Errorf("chromeFailure(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}

// TestLaunchLeavesPersonsDirsAlone: the isolated Chromium writes nothing
// into the person's config or cache directories (Chromium keeps "Crash
// Reports" in $XDG_CONFIG_HOME/chromium whatever --user-data-dir says).
// Not parallel: it sets the environment the browser inherits.
func TestLaunchLeavesPersonsDirsAlone(t *testing.T) {
	testutil.Require(t, "chromium", FindChrome)
	home := t.TempDir()
	config, cache := filepath.Join(home, "config"), filepath.Join(home, "cache")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("XDG_CACHE_HOME", cache)
	b := newOwnBrowser(t, nil)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	var left []string
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != home {
			left = append(left, strings.TrimPrefix(p, home+"/"))
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("the isolated browser wrote into the person's home: %q", left)
	}
}

package browser

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/internal/testutil"
)

func TestParseActivePort(t *testing.T) {
	testutil.Parallel(t)
	tests := []struct {
		in, want string
		bad      bool
	}{
		{"9222\n/devtools/browser/abc-123\n", "ws://127.0.0.1:9222/devtools/browser/abc-123", false},
		{"41235\r\n/devtools/browser/x", "ws://127.0.0.1:41235/devtools/browser/x", false},
		{"9222\n", "", true},
		{"0\n/devtools/browser/x", "", true},
		{"9222\n/json", "", true},
	}
	for _, tt := range tests {
		got, err := parseActivePort(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("parseActivePort(%q) err = %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseActivePort(%q) (-want +got)\n%s", tt.in, diff)
		}
	}
}

func TestProfileDirsNewestFirst(t *testing.T) {
	testutil.Parallel(t)
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	dirs := profileDirs(func(k string) string { return env[k] }, "linux")
	want := []string{"google-chrome", "google-chrome-beta", "google-chrome-unstable", "google-chrome-canary", "chromium"}
	var got []string
	for _, d := range dirs {
		got = append(got, filepath.Base(d))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("default order (-want +got)\n%s", diff)
	}
	// chromium's port file is newer than stable's, so it comes first.
	for i, name := range []string{"google-chrome", "chromium"} {
		dir := filepath.Join(home, ".config", name)
		os.MkdirAll(dir, 0o755)
		f := filepath.Join(dir, "DevToolsActivePort")
		os.WriteFile(f, []byte("1\n/devtools/browser/x"), 0o644)
		ts := time.Now().Add(time.Duration(i-5) * time.Minute)
		os.Chtimes(f, ts, ts)
	}
	dirs = profileDirs(func(k string) string { return env[k] }, "linux")
	if filepath.Base(dirs[0]) != "chromium" || filepath.Base(dirs[1]) != "google-chrome" {
		t.Errorf("newest first: got %v", dirs)
	}
}

func TestResolveEndpointErrors(t *testing.T) {
	stale := t.TempDir()
	os.WriteFile(filepath.Join(stale, "DevToolsActivePort"), []byte("1\n/devtools/browser/gone"), 0o644)
	four04 := newSite(t) // answers 404 on /json/version, as Chrome 144+ does
	tests := []struct {
		name string
		t    Target
		want string
	}{
		{"empty profile", Target{UserDataDir: t.TempDir()}, "chrome://inspect/#remote-debugging"},
		{"stale port file", Target{UserDataDir: stale}, "not listening"},
		{"json 404", Target{BrowserURL: four04.URL}, "answered 404"},
		{"nothing listening", Target{BrowserURL: "http://127.0.0.1:1"}, "--remote-debugging-port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := resolveEndpoint(context.Background(), tt.t, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	t.Run("default dirs", func(t *testing.T) {
		t.Setenv("HOME", t.TempDir())
		t.Setenv("XDG_CONFIG_HOME", "")
		_, err := resolveEndpoint(context.Background(), Target{}, nil)
		if !errors.Is(err, ErrNotDebuggable) {
			t.Errorf("err = %v, want ErrNotDebuggable", err)
		}
	})
}

// personBrowser starts the person's browser (see testutil.PersonsBrowser),
// logged into the site in its first tab, the article in its second, and
// checks at the end that stopping it left no process behind.
func personBrowser(t *testing.T, siteURL string) *testutil.PersonsBrowser {
	t.Helper()
	chrome := testutil.Require(t, "chromium", FindChrome)
	p := testutil.StartPersonsBrowser(t, chrome, []string{siteURL + "/autologin?user=person", siteURL + "/article.html"},
		func(urls []string) bool { return len(urls) == 2 && loggedIn(urls) })
	t.Cleanup(func() { p.Close(t) })
	return p
}

func loggedIn(urls []string) bool {
	for _, u := range urls {
		if strings.HasSuffix(u, "/account") {
			return true
		}
	}
	return false
}

// TestSharedMode attaches to the person's browser through DevToolsActivePort:
// it sees the person's tabs and login, owns only what it opens, refuses to
// close the person's tabs, and leaves everything open on Disconnect.
func TestSharedMode(t *testing.T) {
	testutil.Parallel(t)
	site := newSite(t)
	person := personBrowser(t, site.URL)
	b := New(nil)
	t.Cleanup(func() { b.Close() })
	if err := b.Connect(context.Background(), Target{UserDataDir: person.Dir}); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if b.Mode() != ModeShared {
		t.Fatalf("mode = %v", b.Mode())
	}
	tabs := b.Tabs()
	if len(tabs) != 2 {
		t.Fatalf("want the person's 2 tabs, got %+v", tabs)
	}
	for _, tab := range tabs {
		if tab.Owned || tab.Current {
			t.Errorf("person's tab marked owned/current: %+v", tab)
		}
	}
	if r := tryCall(t, b, "browser_snapshot", nil); !r.IsError || !contains(r.Text, "browser_select_tab") {
		t.Errorf("with no current tab a page tool must say how to pick one: %+v", r)
	}

	// The person's logged-in page is readable once selected.
	account := ""
	for _, tab := range tabs {
		if strings.HasSuffix(tab.URL, "/account") {
			account = tab.ID
		}
	}
	mustCall(t, b, "browser_select_tab", map[string]any{"tab": account})
	if snap := mustCall(t, b, "browser_snapshot", nil).Text; !contains(snap, "Welcome back, person") {
		t.Errorf("person's page not logged in:\n%s", snap)
	}
	if u, err := b.CurrentURL(context.Background(), account); err != nil || !strings.HasSuffix(u, "/account") {
		t.Errorf("CurrentURL = %q, %v", u, err)
	}
	if r := tryCall(t, b, "browser_close", map[string]any{"tab": account}); !r.IsError || !contains(r.Text, "will not be closed") {
		t.Errorf("closing the person's tab must be refused: %+v", r)
	}

	// An agent tab shares the person's cookies and is owned.
	mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/account"})
	if snap := mustCall(t, b, "browser_snapshot", nil).Text; !contains(snap, "Welcome back, person") {
		t.Errorf("agent tab does not share the login:\n%s", snap)
	}
	agent := b.CurrentTab()
	if !b.Owned(agent) || b.Owned(account) {
		t.Errorf("ownership: agent %s owned=%v, person %s owned=%v", agent, b.Owned(agent), account, b.Owned(account))
	}
	if b.TabFor("browser_click", "") != agent {
		t.Errorf("TabFor(browser_click) = %q, want current %q", b.TabFor("browser_click", ""), agent)
	}

	// A popup opened by the agent's tab is the agent's too.
	mustCall(t, b, "browser_navigate", map[string]any{"url": site.URL + "/form.html"})
	snap := mustCall(t, b, "browser_snapshot", nil).Text
	before := len(b.Tabs())
	mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, "Article in new tab")})
	tabs = b.Tabs()
	if len(tabs) != before+1 || !tabs[len(tabs)-1].Owned {
		t.Errorf("popup of an agent tab: want a new owned tab, got %+v", tabs)
	}

	if err := b.Disconnect(); err != nil {
		t.Fatalf("Disconnect: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	urls := person.PageURLs()
	if len(urls) != 4 {
		t.Errorf("after Disconnect want the 2 person tabs plus the agent's 2 open, got %v", urls)
	}
	if !person.Running() {
		t.Errorf("person's browser exited")
	}
	if b.Mode() != ModeIsolated || b.Running() {
		t.Errorf("after Disconnect: mode %v running %v", b.Mode(), b.Running())
	}
}

package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// TestSessionBrowserStartsOnFirstUse: a started session runs no browser
// and leaves chrome-devtools-mcp idle; web_fetch does not change that; the
// first browser call says so on one notice, and chrome-devtools-mcp then
// starts against that very browser (it lists the page the native tool
// opened).
func TestSessionBrowserStartsOnFirstUse(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	site := serveSite(t)
	var mu sync.Mutex
	var notices []string
	s := openSessionWith(t, &SessionOptions{MCP: mcpclient.DefaultConfig(), OnNotice: func(m string) {
		mu.Lock()
		notices = append(notices, m)
		mu.Unlock()
	}})
	s.Start(context.Background())

	if res := call(t, s, tools.WebFetchName, map[string]any{"url": site.URL + "/plain"}); res.IsError() {
		t.Fatalf("web_fetch: %s", res.Text)
	}
	st, _ := s.MCP.ServerStatus(mcpclient.DefaultServerName)
	if st.State != mcpclient.StateIdle || st.PID != 0 || s.Browser.Running() {
		t.Fatalf("before any browser call: chrome-devtools-mcp %s (pid %d), browser running %v; want idle, no process", st.State, st.PID, s.Browser.Running())
	}

	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/first"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := waitState(ctx, s.MCP, mcpclient.DefaultServerName, mcpclient.StateReady); err != nil {
		logs, _ := s.MCP.Logs(mcpclient.DefaultServerName)
		t.Fatalf("chrome-devtools-mcp after the first browser call: %v\n%s", err, strings.Join(logs, "\n"))
	}
	list := call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{})
	if !strings.Contains(list.Text, site.URL+"/first") {
		t.Fatalf("chrome-devtools-mcp drives another browser than ours:\n%s", list.Text)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"starting the browser (Chromium and chrome-devtools) for its first use…"}
	if diff := cmp.Diff(want, notices); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}

// waitState waits, without starting anything, until server name is in
// state want.
func waitState(ctx context.Context, m *mcpclient.Manager, name string, want mcpclient.ServerState) error {
	for {
		st, err := m.ServerStatus(name)
		if err != nil {
			return err
		}
		if st.State == want {
			return nil
		}
		if st.State == mcpclient.StateError {
			return st.Err
		}
		select {
		case <-ctx.Done():
			return errors.New("still " + st.State.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestSessionNoBrowserChromeDevtoolsUnavailable: without a browser to
// launch, chrome-devtools-mcp is never started (it would drive a browser
// of its own choosing): it says unavailable and why, and no process runs.
func TestSessionNoBrowserChromeDevtoolsUnavailable(t *testing.T) {
	t.Setenv("BROWSERAGENT_CHROME", "/nonexistent")
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	s := openSessionWith(t, &SessionOptions{MCP: mcpclient.DefaultConfig()})
	s.Start(context.Background())
	st, err := s.MCP.ServerStatus(mcpclient.DefaultServerName)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != mcpclient.StateError || !errors.Is(st.Err, errBrowserUnavailable) || st.PID != 0 {
		t.Fatalf("chrome-devtools-mcp without a browser: %s %v (pid %d); want unavailable, no process", st.State, st.Err, st.PID)
	}
	const want = "unavailable: no browser to drive: BROWSERAGENT_CHROME=/nonexistent is not an executable: fix the path or unset it"
	if diff := cmp.Diff(want, st.Err.Error()); diff != "" {
		t.Errorf("reason (-want +got):\n%s", diff)
	}
	if n := len(s.Registry.Tools()); n == 0 {
		t.Fatal("no tools at all")
	}
	for _, d := range s.Registry.Tools() {
		if strings.HasPrefix(d.Name, "mcp__chrome-devtools__") {
			t.Fatalf("tool %s of an unavailable server is offered", d.Name)
		}
	}
}

func TestWithoutBrowserFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"none", []string{"-y", "chrome-devtools-mcp@1.11.0"}, []string{"-y", "chrome-devtools-mcp@1.11.0"}},
		{"value apart", []string{"x", "--browserUrl", "http://127.0.0.1:9222", "--headless"}, []string{"x", "--headless"}},
		{"value joined", []string{"x", "--wsEndpoint=ws://127.0.0.1:1/devtools/browser/a"}, []string{"x"}},
		{"boolean", []string{"x", "--autoConnect", "--isolated", "--viewport", "800x600"}, []string{"x", "--viewport", "800x600"}},
		{"short", []string{"x", "-e", "/usr/bin/google-chrome", "-u", "http://127.0.0.1:9"}, []string{"x"}},
		{"channel", []string{"x", "--channel", "canary", "--user-data-dir", "/tmp/p"}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, withoutBrowserFlags(tt.args)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

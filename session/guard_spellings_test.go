package session

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// TestRegistryJudgesSpellingsAsLoaded: chrome: spellings Chromium loads as
// its settings and password pages, and 0.0.0.0/[::] spellings of a
// loopback server a rule protects, are refused through the one registry
// path, with the real browser behind it; the protected server sees no
// request.
func TestRegistryJudgesSpellingsAsLoaded(t *testing.T) {
	testutil.Require(t, "chromium", browser.FindChrome)
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	site := newTestSite(t) // the protected loopback server
	_, port, _ := net.SplitHostPort(site.srv.Listener.Addr().String())
	local := filepath.Join(t.TempDir(), "local.yaml")
	if err := os.WriteFile(local, []byte("version: 1\nrules:\n  - name: dev-admin\n    hosts: [\"127.0.0.1:"+port+"\"]\n    action: deny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules, err := guard.LoadRules(local)
	if err != nil {
		t.Fatal(err)
	}
	s := openSessionWith(t, &SessionOptions{Rules: rules})
	tests := []struct{ tool, url, rule string }{
		{"browser_open", "chrome://%73ettings/passwords", "browser-settings"},
		{"browser_open", "chrome:password-manager/passwords", "browser-settings"},
		{"browser_open", "chrome:/settings/autofill", "browser-settings"},
		{"browser_open", `chrome:\\settings\payments`, "browser-settings"},
		{"browser_open", "http://0.0.0.0:" + port + "/", "dev-admin"},
		{"browser_open", "http://[::]:" + port + "/", "dev-admin"},
		{"web_fetch", "http://0.0.0.0:" + port + "/", "dev-admin"},
		{"web_fetch", "http://localhost:" + port + "/", "dev-admin"},
	}
	for _, tc := range tests {
		args, _ := json.Marshal(map[string]string{"url": tc.url})
		res, err := s.Registry.Call(context.Background(), tc.tool, args, tools.OriginAgent)
		if !errors.Is(err, guard.ErrDenied) {
			t.Fatalf("%s %s: err = %v, want a refusal wrapping guard.ErrDenied", tc.tool, tc.url, err)
		}
		if !res.IsError() || !strings.Contains(res.Text, `deny rule "`+tc.rule+`"`) {
			t.Errorf("%s %s ran or was refused for another reason: %q", tc.tool, tc.url, res.Text)
		}
	}
	if n := site.hits("/"); n != 0 {
		t.Errorf("the protected loopback server got %d requests", n)
	}
}

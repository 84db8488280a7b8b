package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient/oauthtest"
)

// authCLI runs browseragent with a private config/state directory and curl
// as the browser, which follows the authorization server's redirect to the
// loopback listener.
func authCLI(t *testing.T) (run func(args ...string) (int, string, string), dir string) {
	t.Helper()
	testutil.RequireProgram(t, "curl") // it plays the browser in OAuth tests
	dir = t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("BROWSER", "curl -sL -o /dev/null")
	t.Chdir(dir)
	t.Cleanup(func() { assertNoChildren(t) }) // no curl left behind
	return func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}, dir
}

// TestMCPLoginURL: 'mcp login --url URL' completes the loopback flow
// against a local authorization server; later commands reuse the stored
// token, refresh it when it has expired, and after 'mcp logout' ask for a
// login again. No token reaches the output, the audit log or any file but
// the token store.
func TestMCPLoginURL(t *testing.T) {
	run, dir := authCLI(t)
	as := oauthtest.NewAuthServer(t)
	res := oauthtest.NewResource(t, as)

	code, out, errs := run("mcp", "login", "--url", res.URL)
	if code != 0 || !strings.Contains(out, `logged in to "adhoc"`) || !strings.Contains(errs, as.URL+"/authorize?") {
		t.Fatalf("login: code %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	tokenFile := filepath.Join(dir, "config", "browseragent", "tokens", "adhoc.json")
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, %v; want mode 0600", tokenFile, fi, err)
	}

	var texts []string
	for _, args := range [][]string{
		{"mcp", "tools", "--url", res.URL},
		{"mcp", "call", "echo", `{"message":"hello"}`, "--url", res.URL},
	} {
		code, out, errs := run(args...)
		if code != 0 {
			t.Fatalf("%v: code %d\nstdout: %s\nstderr: %s", args, code, out, errs)
		}
		texts = append(texts, out, errs)
	}
	if !strings.Contains(texts[0], "mcp__adhoc__echo") || !strings.Contains(texts[2], "hello") {
		t.Errorf("tools/call output: %q", texts)
	}
	if c := as.Counts(); c.Authorizations != 1 || c.Refreshes != 0 {
		t.Errorf("after two commands: %+v, want the one login reused", c)
	}

	expireStored(t, tokenFile)
	if code, out, errs := run("mcp", "tools", "--url", res.URL); code != 0 || !strings.Contains(out, "mcp__adhoc__echo") {
		t.Fatalf("with an expired token: code %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if c := as.Counts(); c.Authorizations != 1 || c.Refreshes != 1 {
		t.Errorf("after expiry: %+v, want one refresh and no new login", c)
	}
	noTokenOutside(t, dir, tokenFile, strings.Join(texts, "\n"))
	if audit, err := os.ReadFile(filepath.Join(dir, "state", "browseragent", "audit.jsonl")); err != nil || !strings.Contains(string(audit), "mcp__adhoc__echo") {
		t.Errorf("audit log: %v; want the echo call in it (and, checked above, no token)", err)
	}

	if code, out, errs := run("mcp", "logout", "--url", res.URL); code != 0 || !strings.Contains(out, "logged out") {
		t.Fatalf("logout: code %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if _, err := os.Stat(tokenFile); err == nil {
		t.Error("token file still there after logout")
	}
	code, _, errs = run("mcp", "tools", "--url", res.URL)
	if code == 0 || !strings.Contains(errs, "browseragent mcp login --url "+res.URL) {
		t.Errorf("after logout: code %d, stderr %q; want a hint to log in", code, errs)
	}
	if code, _, errs := run("mcp", "logout", "--url", res.URL); code != 1 || !strings.Contains(errs, "no stored login") {
		t.Errorf("second logout: code %d, stderr %q", code, errs)
	}
}

// TestMCPLoginRefused: a login the authorization server refuses, or one to
// a stdio or unauthenticated server, fails with one clear line and
// stores nothing.
func TestMCPLoginRefused(t *testing.T) {
	run, dir := authCLI(t)
	as := oauthtest.NewAuthServer(t)
	res := oauthtest.NewResource(t, as)
	as.SetFail(oauthtest.FailDenied)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mcp", "login", "--url", res.URL}, 1, "browseragent: OAuth login failed for mcp server \"adhoc\": the authorization server refused: access_denied (the user said no); nothing was stored\n"},
		{[]string{"mcp", "login", "--url", as.URL + "/.well-known/oauth-authorization-server", "--name", "open"}, 1, "answered HTTP 405 without a token"},
		{[]string{"mcp", "login", "--cmd", "echo hi"}, 1, "OAuth is only for http and sse servers"},
		{[]string{"mcp", "login", "nosuch"}, 2, `unknown MCP server "nosuch"`},
	} {
		code, _, errs := run(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(errs, "browseragent: ") > 2 {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "config", "browseragent", "tokens")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(dir, "config", "browseragent", "tokens"))
		if len(entries) != 0 {
			t.Errorf("token dir has %d files after refused logins", len(entries))
		}
	}
}

// expireStored moves every stored token's expiry into the past.
func expireStored(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, l := range m {
		l["expiry"] = time.Now().Add(-time.Hour).Format(time.RFC3339)
	}
	data, _ = json.Marshal(m)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// issued matches the tokens oauthtest issues.
var issued = regexp.MustCompile(`\b(at|rt)-[A-Z2-7]{12,}`)

// noTokenOutside: tokens appear in the token file and nowhere else under
// dir (audit log, state) nor in the commands' output.
func noTokenOutside(t *testing.T, dir, tokenFile, output string) {
	t.Helper()
	if issued.MatchString(output) {
		t.Error("a token appears in the commands' output")
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == tokenFile {
			return nil
		}
		if data, _ := os.ReadFile(p); issued.Match(data) {
			t.Errorf("a token appears in %s", p)
		}
		return nil
	})
}

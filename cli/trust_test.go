package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/internal/testutil"
)

// projectWithMarker writes a project .mcp.json whose one server's command
// creates a marker file (and exits), and a user config that turns the
// built-in browser server off, so nothing else starts. It returns the
// project file and the marker's path.
func projectWithMarker(t *testing.T, dir, extraArg string) (string, string) {
	t.Helper()
	marker := filepath.Join(dir, "MARKER")
	cfg := map[string]any{"mcpServers": map[string]any{
		"marker": map[string]any{"command": "sh", "args": []string{"-c", `touch "$0"`, marker, extraArg}, "timeout": "10s"},
	}}
	data, _ := json.Marshal(cfg)
	project := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(project, data, 0o644); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "browseragent", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(`{"mcpServers":{"chrome-devtools":{"disabled":true}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return project, marker
}

func ran(marker string) bool {
	_, err := os.Stat(marker)
	return err == nil
}

// TestProjectTrust: a project's .mcp.json runs nothing until the person
// trusts that file (mcp trust, or --trust-project for one run); without a
// terminal (mcp list, run, piped shell) its servers are skipped with one
// line naming the flag and mcp trust; a changed file is untrusted again;
// mcp untrust withdraws the trust.
func TestProjectTrust(t *testing.T) {
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	dir := mcpEnv(t)
	t.Setenv("HOME", dir)
	project, marker := projectWithMarker(t, dir, "v1")
	srv := llmtest.New(t, llmtest.Rule{When: llmtest.LastUser("hello"), Reply: llmtest.Text("Hello.")})
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("BROWSERAGENT_MODEL", "test-model")
	wantNote := "browseragent: project MCP servers in " + project + " not started (marker): the file is not trusted. Start them with --trust-project, or trust the file with `browseragent mcp trust` (`browseragent mcp untrust` to undo)\n"

	untrusted := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"mcp list", "", []string{"mcp", "list"}},
		{"mcp tools", "", []string{"mcp", "tools"}},
		{"run", "", []string{"run", "--mcp-wait", "1s", "hello"}},
		{"piped shell", "/mcp\n", []string{"--mcp-wait", "1s"}},
	}
	for _, tc := range untrusted {
		_, _, stderr := runMainIn(tc.stdin, tc.args...)
		if ran(marker) {
			t.Fatalf("%s: the untrusted project's command ran", tc.name)
		}
		if strings.Count(stderr, "not started") != 1 || !strings.Contains(stderr, wantNote) {
			t.Errorf("%s: stderr lacks the one line:\n%s\nstderr:\n%s", tc.name, wantNote, stderr)
		}
	}

	// --trust-project starts them for one run, and remembers nothing.
	if code, _, stderr := runMain("mcp", "list", "--trust-project"); !ran(marker) || strings.Contains(stderr, "not started") {
		t.Fatalf("--trust-project: marker=%v exit %d stderr:\n%s", ran(marker), code, stderr)
	}
	os.Remove(marker)
	runMain("mcp", "list")
	if ran(marker) {
		t.Fatal("--trust-project was remembered")
	}

	// mcp trust lists what it trusts and remembers it.
	code, stdout, stderr := runMain("mcp", "trust")
	if code != 0 || !strings.Contains(stdout, "trusted "+project) || !strings.Contains(stdout, `marker: sh -c 'touch "$0"' `+marker+" v1") {
		t.Fatalf("mcp trust: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, stdout, _ := runMain("mcp", "trust", "--list"); !strings.Contains(stdout, project+"  (marker)") {
		t.Errorf("mcp trust --list:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "state", "browseragent", "trusted-projects.json")); err != nil {
		t.Errorf("trust file not in $XDG_STATE_HOME/browseragent: %v", err)
	}
	if _, _, stderr := runMain("mcp", "list"); !ran(marker) {
		t.Fatalf("trusted project did not start:\n%s", stderr)
	}

	// A changed file is asked about again (here: skipped, saying it changed).
	os.Remove(marker)
	projectWithMarker(t, dir, "v2")
	_, _, stderr = runMain("mcp", "list")
	if ran(marker) || !strings.Contains(stderr, "the file changed since you trusted it") {
		t.Fatalf("changed project: marker=%v stderr:\n%s", ran(marker), stderr)
	}

	// untrust withdraws it.
	runMain("mcp", "trust")
	if _, stdout, _ := runMain("mcp", "untrust"); !strings.Contains(stdout, "no longer trusted: "+project) {
		t.Errorf("mcp untrust: %s", stdout)
	}
	os.Remove(marker)
	if _, _, stderr := runMain("mcp", "list"); ran(marker) || !strings.Contains(stderr, wantNote) {
		t.Fatalf("after untrust: marker=%v stderr:\n%s", ran(marker), stderr)
	}
	if code, _, stderr := runMain("mcp", "trust", filepath.Join(dir, "nope", ".mcp.json")); code == 0 || !strings.Contains(stderr, "nope/.mcp.json") {
		t.Errorf("trusting a missing file: exit %d, %s", code, stderr)
	}
}

// TestProjectTrustUserAndAdd: the user's own mcp.json is trusted as it is;
// `mcp add --project` keeps a file the person trusted (or created) trusted,
// and leaves a file someone else wrote untrusted, saying so.
func TestProjectTrustUserAndAdd(t *testing.T) {
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	dir := mcpEnv(t)
	t.Setenv("HOME", dir)
	userMarker := filepath.Join(dir, "USER-MARKER")
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "browseragent", "mcp.json")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"chrome-devtools": map[string]any{"disabled": true},
		"mine":            map[string]any{"command": "sh", "args": []string{"-c", `touch "$0"`, userMarker}, "timeout": "10s"},
	}})
	if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, stderr := runMain("mcp", "list"); !ran(userMarker) || strings.Contains(stderr, "not started") {
		t.Fatalf("the user's own server did not start:\n%s", stderr)
	}

	added := filepath.Join(dir, "ADDED")
	if code, _, stderr := runMain("mcp", "add", "--project", "added", "--", "sh", "-c", `touch "$0"`, added); code != 0 || strings.Contains(stderr, "not trusted") {
		t.Fatalf("mcp add --project: exit %d\n%s", code, stderr)
	}
	if _, _, stderr := runMain("mcp", "list"); !ran(added) {
		t.Fatalf("a project file the person created with mcp add is not trusted:\n%s", stderr)
	}

	os.Remove(added)
	_, evil := projectWithMarker(t, dir, "theirs")
	_, _, stderr := runMain("mcp", "add", "--project", "added", "--", "sh", "-c", `touch "$0"`, added)
	if !strings.Contains(stderr, ".mcp.json is not trusted, so its servers do not start yet") {
		t.Errorf("mcp add on someone else's file does not say it is untrusted:\n%s", stderr)
	}
	runMain("mcp", "list")
	if ran(evil) || ran(added) {
		t.Fatalf("mcp add trusted a file someone else wrote: evil=%v added=%v", ran(evil), ran(added))
	}
}

// TestUntrustedProjectListedAndNamed: the servers of an untrusted project
// file are on `mcp list` as "pending approval" (not left out, with only a
// stderr line), and `mcp call NAME` says what to run instead of "unknown
// MCP server"; nothing of them runs.
func TestUntrustedProjectListedAndNamed(t *testing.T) {
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	dir := mcpEnv(t)
	t.Setenv("HOME", dir)
	project, marker := projectWithMarker(t, dir, "v1")
	code, stdout, _ := runMain("mcp", "list")
	if code != 0 {
		t.Fatalf("mcp list: exit %d", code)
	}
	var row string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "marker ") {
			row = strings.Join(strings.Fields(l), " ")
		}
	}
	if want := "marker pending approval - stdio " + project + " not trusted: check it, then run 'browseragent mcp trust' (or pass --trust-project)"; row != want {
		t.Errorf("mcp list row of the untrusted project's server:\n got %q\nwant %q\n%s", row, want, stdout)
	}
	_, stdout, _ = runMain("mcp", "list", "--json")
	if !strings.Contains(stdout, `"state": "pending approval"`) {
		t.Errorf("mcp list --json lacks the pending server:\n%s", stdout)
	}
	code, _, stderr := runMain("mcp", "call", "marker", "echo")
	if want := `MCP server "marker" is pending approval: ` + project + ` is not trusted, so nothing was started (check it, then run 'browseragent mcp trust', or pass --trust-project)`; code != exitFailed || !strings.Contains(stderr, want) {
		t.Errorf("mcp call of the pending server: exit %d, stderr %q; want %d and %q", code, stderr, exitFailed, want)
	}
	if ran(marker) {
		t.Fatal("the untrusted project's command ran")
	}
}

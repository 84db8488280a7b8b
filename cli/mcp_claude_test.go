//go:build linux

package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// everythingCmd starts the reference server from the npx cache.
var everythingCmd = []string{"npx", "-y", "@modelcontextprotocol/server-everything@2026.8.31"}

// TestMCPClaudeInterop: in one directory, with HOME a fresh temporary
// directory, a server added with `browseragent mcp add -s project` is seen
// by `claude mcp get` and `claude mcp list`, and one added by `claude mcp
// add -s project` is started and used by `browseragent mcp list/tools`
// (the real server-everything over stdio), once the person trusts the
// file Claude Code changed. Every command runs with the test's own TMPDIR:
// no process with it in its environment (a server either started) may
// outlive the test.
func TestMCPClaudeInterop(t *testing.T) {
	t.Parallel()
	claude := npmBin(t, pkgClaudeCode, "claude")
	testutil.RequireProgram(t, "npx")
	bin := program(t, browseragentPkg)
	dir := t.TempDir()
	home, work, tmp := filepath.Join(dir, "home"), filepath.Join(dir, "work"), filepath.Join(dir, "tmp")
	for _, d := range []string{home, work, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { testutil.WaitNoProcessWithEnv(t, "TMPDIR="+tmp, 10*time.Second) })
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"BROWSERAGENT_MCP_INIT_TIMEOUT=3m"}
	env = append(env, testutil.NPMCacheEnv()...)
	run := func(name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env, cmd.Dir, cmd.WaitDelay = env, work, 5*time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %q: %v\n%s", filepath.Base(name), args, err, out.String())
		}
		return out.String()
	}
	expect := func(out, re string) {
		t.Helper()
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("want /%s/ in:\n%s", re, out)
		}
	}

	run(bin, "mcp", "disable", "chrome-devtools") // this test needs no browser
	run(bin, append([]string{"mcp", "add", "-s", "project", "-e", "LOG_LEVEL=info", "ba-ev", "--"}, everythingCmd...)...)
	out := run(claude, "mcp", "get", "ba-ev")
	expect(out, `(?s)ba-ev:\n.*Scope: Project config.*Type: stdio\n.*Command: npx\n.*Args: -y @modelcontextprotocol/server-everything@2026.8.31`)
	expect(run(claude, "mcp", "list"), `(?m)^ba-ev: npx -y @modelcontextprotocol/server-everything@2026.8.31`)

	run(claude, append([]string{"mcp", "add", "-s", "project", "cl-ev", "--"}, everythingCmd...)...)
	data, err := os.ReadFile(filepath.Join(work, ".mcp.json"))
	if err != nil || !strings.Contains(string(data), `"ba-ev"`) || !strings.Contains(string(data), `"cl-ev"`) {
		t.Fatalf("claude mcp add did not keep our server in .mcp.json: %v\n%s", err, data)
	}
	// Claude Code changed the file: it starts nothing until trusted again.
	expect(run(bin, "mcp", "get", "cl-ev"), `Status: pending approval`)
	run(bin, "mcp", "trust")
	expect(run(bin, "mcp", "get", "cl-ev"), `(?s)Scope: project config \(shared via .mcp.json\).*Status: ready \(\d+ tools`)
	expect(run(bin, "mcp", "list"), `(?m)^cl-ev +ready +\d+ +stdio +`+regexp.QuoteMeta(filepath.Join(work, ".mcp.json")))
	tools := run(bin, "mcp", "tools", "cl-ev")
	expect(tools, `(?m)^mcp__cl-ev__echo  \[read-only\]$`)
	expect(run(bin, "mcp", "call", "--yes", "cl-ev", "echo", `{"message":"from claude's file"}`), `Echo: from claude's file`)
}

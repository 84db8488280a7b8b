package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestShellScriptExitCode: a script piped into the shell runs to its end
// and exits 1 when any command failed (unknown command, text without an
// LLM, a call the guard refused), with one line saying how many.
func TestShellScriptExitCode(t *testing.T) {
	runEnv(t, nil) // no LLM, temporary config and state
	page := articleServer(t)
	sites := filepath.Join(t.TempDir(), "sites.yaml")
	rule := "version: 1\nrules:\n  - name: local-vault\n    category: password-manager\n    hosts: [\"127.0.0.1\"]\n    paths: [\"/vault*\"]\n    action: deny\n"
	if err := os.WriteFile(sites, []byte(rule), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		script   string
		wantCode int
		wantOut  string // stdout contains it
		wantErr  string // stderr contains it
		wantLast string // the last line of stderr
	}{
		{"all ran", "/fetch " + page + "\n\n/clear\n", 0, "fishing fleet", "", ""},
		{"failures do not stop the script", "/nope\n/fetch " + page + "vault\nwhat is the title?\n/fetch " + page + "\n", 1,
			"fishing fleet", `matches the deny rule "local-vault"`, "browseragent: 3 of 4 commands failed"},
		{"exit ends the script", "/nope\n/exit\n/fetch " + page + "\n", 1, "", "unknown command /nope", "browseragent: 1 of 2 commands failed"},
		// --no-mcp leaves the session without a manager: the shell is told
		// there is no MCP, not handed a nil pointer in an interface.
		{"no MCP", "/mcp\n", 1, "", "error: MCP is off in this session", "browseragent: 1 of 1 command failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMainIn(tt.script, "--no-mcp", "--sites", sites)
			if code != tt.wantCode || !strings.Contains(stdout, tt.wantOut) {
				t.Errorf("exit %d (want %d), stdout (want %q):\n%s\nstderr:\n%s", code, tt.wantCode, tt.wantOut, stdout, stderr)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, stderr)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if diff := cmp.Diff(tt.wantLast, lines[len(lines)-1]); diff != "" {
				t.Errorf("last stderr line (-want +got)\n%s\nstderr:\n%s", diff, stderr)
			}
			if tt.wantCode == 0 && stderr != "" {
				t.Errorf("stderr = %q, want nothing", stderr)
			}
			if tt.name == "exit ends the script" && strings.Contains(stdout, "fishing fleet") {
				t.Errorf("the line after /exit ran:\n%s", stdout)
			}
		})
	}
	assertNoChildren(t)
}

// TestShellTerminalExitCode: at a terminal a failed command is only
// reported; /exit leaves with 0.
func TestShellTerminalExitCode(t *testing.T) {
	t.Parallel() // the binary in a tmux server of its own
	testutil.RequireProgram(t, "tmux")
	dir := t.TempDir()
	bin := program(t, browseragentPkg)
	tm := &ttySession{t: t, socket: filepath.Join(dir, "tmux.sock")}
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "30", "-c", dir, "env", "-i",
		"PATH="+os.Getenv("PATH"), "HOME="+dir, "TERM=xterm-256color",
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"sh", "-c", bin+` --no-mcp; echo "shell exit=$?"; sleep 60`)
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	tm.waitFor("/help", 30*time.Second)
	tm.keys("/nope", "Enter")
	tm.waitFor("unknown command /nope", 10*time.Second)
	tm.keys("/exit", "Enter")
	tm.waitFor("shell exit=", 10*time.Second)
	if sc := tm.screen(); !strings.Contains(sc, "shell exit=0") {
		t.Errorf("terminal shell did not exit 0:\n%s", sc)
	}
}

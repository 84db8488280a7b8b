package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestShellMCPHostInTerminal runs the real binary in tmux against
// server-everything: an elicitation form answered at the terminal, a
// progress line in the spinner, and a long call cancelled by Ctrl-C with
// the shell still up; no server process survives the shell.
func TestShellMCPHostInTerminal(t *testing.T) {
	t.Parallel() // its own tmux server, config and state; its processes are found by their directory
	testutil.RequireProgram(t, "npx")
	testutil.RequireProgram(t, "tmux")
	dir := t.TempDir()
	bin := program(t, browseragentPkg)
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers":{"everything":{"command":"npx","args":["-y","@modelcontextprotocol/server-everything@2026.8.31"]}}}`
	if err := os.WriteFile(filepath.Join(work, ".mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := &ttySession{t: t, socket: filepath.Join(dir, "tmux.sock")}
	// A clean terminal, but with what npm needs to reach the registry
	// (NODE_EXTRA_CA_CERTS, npm_config_*…): without it npm exec hangs.
	args := append([]string{"-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "50", "-c", work, "env", "-i",
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TERM=xterm-256color",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_STATE_HOME=" + filepath.Join(dir, "state")}, testutil.NodeEnv()...)
	tm.run(append(args, bin, "--yes")...)
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

	// The project's .mcp.json is asked about once, listing its command.
	tm.waitFor("Trust this file and start them?", 60*time.Second)
	if sc := tm.screen(); !strings.Contains(sc, "everything: npx -y @modelcontextprotocol/server-everything@2026.8.31") {
		t.Errorf("trust question does not show the command:\n%s", sc)
	}
	tm.keys("y", "Enter")
	tm.waitFor("everything ✓", 90*time.Second)
	tm.keys("/call mcp__everything__trigger-elicitation-request {}", "Enter")
	tm.waitFor("fill in the form? [y/n/c]", 30*time.Second)
	if sc := tm.screen(); !strings.Contains(sc, "╭─ MCP server everything asks") || !strings.Contains(sc, "name     string, required") {
		t.Errorf("form box:\n%s", sc)
	}
	tm.keys("y", "Enter")
	tm.waitFor("name*:", 10*time.Second)
	tm.keys("Enter") // required: asked again
	tm.waitFor("name is required", 10*time.Second)
	tm.keys("Ada Lovelace", "Enter")
	for i := 0; i < 12; i++ { // the 12 other fields keeps its default or stays empty
		tm.keys("Enter")
		time.Sleep(100 * time.Millisecond)
	}
	tm.waitFor("Name: Ada Lovelace", 20*time.Second)
	if sc := tm.screen(); !strings.Contains(sc, "Favorite Integer: 42") {
		t.Errorf("defaults not sent:\n%s", sc)
	}

	// Ctrl-C at the question, then at the first field: the form ends,
	// the server is told, and the prompt takes keys again.
	for i, atField := range []bool{false, true} {
		tm.keys("/call mcp__everything__trigger-elicitation-request {}", "Enter")
		tm.waitForN("fill in the form? [y/n/c]", i+2, 30*time.Second)
		if atField {
			tm.keys("y", "Enter")
			tm.waitForN("name*:", 3, 10*time.Second)
		}
		tm.keys("C-c")
		tm.waitForN("cancelled: the server is told so", i+1, 10*time.Second)
		tm.keys("/help", "Enter")
		tm.waitForN("Ctrl-C cancels what is running", i+1, 10*time.Second)
	}

	tm.keys("/call mcp__everything__trigger-long-running-operation {\"duration\":30,\"steps\":30}", "Enter")
	tm.waitFor("mcp everything: 2/30", 20*time.Second)
	tm.keys("C-c")
	tm.waitFor("cancelled", 10*time.Second)
	tm.keys("/call mcp__everything__echo {\"message\":\"still here\"}", "Enter")
	tm.waitFor("Echo: still here", 20*time.Second)

	tm.keys("C-d")
	deadline := time.Now().Add(20 * time.Second)
	for len(processesIn(work)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes still running in %s after the shell exited: %v", work, processesIn(work))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// processesIn lists live processes whose working directory is dir.
func processesIn(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && cwd == dir {
			stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && len(stat) > i+2 && stat[i+2] != 'Z' {
				out = append(out, e.Name()+" "+string(stat[:i+1]))
			}
		}
	}
	return out
}

// ttySession is a tmux server on its own socket.
type ttySession struct {
	t      *testing.T
	socket string
}

func (tm *ttySession) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (tm *ttySession) keys(keys ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", "t"}, keys...)...)
}

func (tm *ttySession) screen() string {
	out, _ := exec.Command("tmux", "-S", tm.socket, "capture-pane", "-p", "-t", "t", "-S", "-").CombinedOutput()
	return string(out)
}

// waitFor waits until the screen shows want; the timeout bounds a hang.
func (tm *ttySession) waitFor(want string, timeout time.Duration) {
	tm.t.Helper()
	tm.waitForN(want, 1, timeout)
}

// waitForN waits until the screen shows want n times.
func (tm *ttySession) waitForN(want string, n int, timeout time.Duration) {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Count(tm.screen(), want) >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.t.Fatalf("screen never showed %q %d times:\n%s", want, n, tm.screen())
}

// TestMCPListLiveInTerminal: at a terminal `mcp list` shows the table at
// once and each server's state as it arrives, in place: a server still
// starting does not hold back the others' rows, and the table is drawn
// over itself (one header), ending with every state. A pipe gets the
// table once, at the end (TestMCPAddListRemove).
func TestMCPListLiveInTerminal(t *testing.T) {
	t.Parallel() // its own tmux server, config and state
	testutil.RequireProgram(t, "tmux")
	dir := t.TempDir()
	bin, raw := program(t, browseragentPkg), rawServerBin(t)
	gate := filepath.Join(dir, "gate")
	cfg := `{"mcpServers":{"fast":{"command":"` + raw + `","args":["ok"]},"slow":{"command":"` + raw + `","args":["gate=` + gate + `"]},"chrome-devtools":{"disabled":true}}}`
	cfgFile := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := &ttySession{t: t, socket: filepath.Join(dir, "tmux.sock")}
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "150", "-y", "30", "-c", dir, "env", "-i",
		"PATH="+os.Getenv("PATH"), "HOME="+dir, "TERM=xterm-256color",
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"sh", "-c", bin+" mcp list --mcp-config "+cfgFile+"; echo listed; sleep 600")
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

	fast := regexp.MustCompile(`(?m)^fast +ready +5 `)
	slow := func(state string) *regexp.Regexp { return regexp.MustCompile(`(?m)^slow +` + state + ` `) }
	tm.waitForMatch(fast, 30*time.Second)
	if sc := tm.screen(); !slow("starting").MatchString(sc) || strings.Contains(sc, "listed") {
		t.Fatalf("with slow still starting, the screen should show it starting and fast ready:\n%s", sc)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("listed", 30*time.Second)
	sc := tm.screen()
	if !slow("ready").MatchString(sc) || !fast.MatchString(sc) || strings.Count(sc, "NAME") != 1 || slow("starting").MatchString(sc) {
		t.Errorf("the final table should be drawn over the first, every server ready:\n%s", sc)
	}
}

// waitForMatch waits until the screen matches re.
func (tm *ttySession) waitForMatch(re *regexp.Regexp, timeout time.Duration) {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if re.MatchString(tm.screen()) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.t.Fatalf("screen never matched /%s/:\n%s", re, tm.screen())
}

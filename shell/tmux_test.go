package shell

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// tmuxSession is a real terminal: a tmux server on its own socket running sh.
type tmuxSession struct {
	t      *testing.T
	tmux   string
	socket string
}

func newTmux(t *testing.T, dir string) *tmuxSession {
	tm := &tmuxSession{t: t, tmux: needTool(t, "tmux"), socket: filepath.Join(dir, "tmux.sock")}
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "110", "-y", "40", "env", "-i",
		"PATH="+os.Getenv("PATH"), "HOME="+dir, "TERM=xterm-256color", "PS1=$ ", "sh")
	t.Cleanup(func() {
		exec.Command(tm.tmux, "-S", tm.socket, "kill-server").Run()
		if exec.Command(tm.tmux, "-S", tm.socket, "has-session").Run() == nil {
			t.Errorf("tmux server %s still running after kill-server", tm.socket)
		}
	})
	return tm
}

func (tm *tmuxSession) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command(tm.tmux, append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (tm *tmuxSession) keys(keys ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", "t"}, keys...)...)
}

func (tm *tmuxSession) screen() string {
	return tm.run("capture-pane", "-p", "-t", "t", "-S", "-200")
}

// waitFor waits until the screen contains want; the timeout only bounds a
// hang, it asserts nothing about speed.
func (tm *tmuxSession) waitFor(want string) {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(tm.screen(), want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.t.Fatalf("screen never showed %q:\n%s", want, tm.screen())
}

// waitForN waits until want is on the screen n times.
func (tm *tmuxSession) waitForN(want string, n int) {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Count(tm.screen(), want) >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.t.Fatalf("screen never showed %q %d times:\n%s", want, n, tm.screen())
}

// waitForAny waits until the screen shows one of prefixes followed by want.
func (tm *tmuxSession) waitForAny(prefixes []string, want string) {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		sc := tm.screen()
		for _, p := range prefixes {
			if strings.Contains(sc, p+want) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.t.Fatalf("screen never showed %q:\n%s", want, tm.screen())
}

// testShell is shell/internal/testshell, built once per test binary (a
// link costs seconds on a loaded machine) into a directory TestMain
// removes.
var testShell struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// buildTestShell returns the path of the built testshell; dir is the
// test's own directory (its tmux socket and files), not where it is built.
func buildTestShell(t *testing.T, dir string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	testShell.once.Do(func() {
		if testShell.dir, testShell.err = os.MkdirTemp("", "shell-testshell-"); testShell.err != nil {
			return
		}
		testShell.bin = filepath.Join(testShell.dir, "testshell")
		testShell.out, testShell.err = exec.Command(goBin, "build", "-o", testShell.bin, "./internal/testshell").CombinedOutput()
	})
	if testShell.err != nil {
		t.Fatalf("build testshell: %v\n%s", testShell.err, testShell.out)
	}
	return testShell.bin
}

func TestMain(m *testing.M) {
	testutil.RaiseParallel() // the terminal tests wait on tmux side by side
	code := m.Run()
	if testShell.dir != "" {
		os.RemoveAll(testShell.dir)
	}
	os.Exit(code)
}

// startTerminal makes a terminal test's folder, the test shell for it and
// a tmux session in that folder; it skips the test when tmux is missing.
func startTerminal(t *testing.T) (dir, bin string, tm *tmuxSession) {
	t.Helper()
	needTool(t, "tmux")
	dir = t.TempDir()
	return dir, buildTestShell(t, dir), newTmux(t, dir)
}

// sameTerminal fails t unless the terminal settings saved in before and
// after (stty -a) are the same.
func sameTerminal(t *testing.T, before, after string) {
	t.Helper()
	b, _ := os.ReadFile(before)
	a, _ := os.ReadFile(after)
	if string(a) != string(b) {
		t.Errorf("terminal settings changed:\nbefore:\n%s\nafter:\n%s", b, a)
	}
}

// TestTerminal runs the shell in tmux: /help, completion, a tool command, a
// slow command cancelled by Ctrl-C with the shell still alive, a pasted
// command, background status lines, Ctrl-D; afterwards the terminal
// settings are exactly what they were before.
func TestTerminal(t *testing.T) {
	testutil.Parallel(t)
	dir, bin, tm := startTerminal(t)
	before, after := filepath.Join(dir, "before"), filepath.Join(dir, "after")
	hist := filepath.Join(dir, "history")

	tm.keys(fmt.Sprintf("stty -a > %s; TESTSHELL_MCP=1 TESTSHELL_HISTORY=%s %s; stty -a > %s; echo done-$?", before, hist, bin, after), "Enter")
	tm.waitFor("browseragent[no browser|no model]>")

	tm.keys("/help", "Enter")
	tm.waitFor("Ctrl-C cancels what is running")

	tm.keys("/scr", "Tab")
	tm.waitFor("screenshot of the page") // the popup, with its description
	tm.keys("C-c")                       // clears the line

	tm.keys("/fetch example.com --select h1", "Enter")
	tm.waitFor(`web_fetch {"select":"h1","url":"https://example.com"} (command)`)

	tm.keys("/call slow", "Enter")
	tm.waitForAny(spinFrames, " slow ") // the spinner
	tm.keys("C-c")
	tm.waitFor("cancelled")
	tm.keys(`/call echo {"alive":1}`, "Enter")
	tm.waitFor(`echo {"alive":1} (command)`)

	// Ctrl-C typed right behind Enter reaches the program while the
	// terminal is still raw: it must still cancel, not be lost.
	tm.keys("/call slow", "Enter", "C-c")
	tm.keys(`/call echo {"alive":2}`, "Enter")
	tm.waitFor(`echo {"alive":2} (command)`)

	paste := filepath.Join(dir, "paste")
	os.WriteFile(paste, []byte("/call echo {\"pasted\":1}\n"), 0o600)
	tm.run("load-buffer", paste)
	tm.run("paste-buffer", "-p", "-t", "t")
	tm.waitFor(`echo {"pasted":1} (command)`)

	os.WriteFile(paste, []byte("first line\nsecond line\n"), 0o600)
	tm.run("load-buffer", paste)
	tm.run("paste-buffer", "-p", "-t", "t")
	tm.waitFor("[pasted text #1, 2 lines]") // one message, not two commands
	tm.keys("Enter")
	tm.waitFor("error: no LLM configured")

	tm.keys("/call approve {}", "Enter")
	tm.waitFor("approve? [y/t/s/n]")
	tm.keys("s", "Enter")
	tm.waitFor("answer: server")
	tm.keys("/call approve {}", "Enter")
	tm.waitForN("approve? [y/t/s/n]", 2)
	tm.keys("C-c") // Ctrl-C at the question: no, and the command ends
	tm.waitFor("not approved")

	tm.waitFor("mcp: alpha ✓ 3 tools · beta ✗ error") // background status, drawn above the prompt

	tm.keys("C-d")
	tm.waitFor("done-0")

	b, _ := os.ReadFile(before)
	a, err := os.ReadFile(after)
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"icanon", "echo", "isig"} {
		if !strings.Contains(" "+strings.Join(strings.Fields(string(a)), " ")+" ", " "+flag+" ") {
			t.Errorf("after the shell, stty -a lacks %s:\n%s", flag, a)
		}
	}
	if string(a) != string(b) {
		t.Errorf("terminal settings changed:\nbefore:\n%s\nafter:\n%s", b, a)
	}
	h, _ := os.ReadFile(hist)
	if !strings.Contains(string(h), "/call slow\n") {
		t.Errorf("history = %q, want it to hold the typed lines", h)
	}
}

// TestTerminalSIGTERM: SIGTERM at the prompt ends the shell and leaves the
// terminal as it was.
func TestTerminalSIGTERM(t *testing.T) {
	testutil.Parallel(t)
	dir, bin, tm := startTerminal(t)
	before, after := filepath.Join(dir, "before"), filepath.Join(dir, "after")
	pidFile := filepath.Join(dir, "pid")
	tm.keys(fmt.Sprintf("stty -a > %s; sh -c 'echo $$ > %s; exec %s'; stty -a > %s; echo done-$?", before, pidFile, bin, after), "Enter")
	tm.waitFor("browseragent[")
	tm.keys("half a line") // raw mode, mid-edit
	tm.waitFor("half a line")
	var pid int
	b, _ := os.ReadFile(pidFile)
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("done-0")
	sameTerminal(t, before, after)
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("testshell %d still running after SIGTERM", pid)
	}
}

// TestTerminalPanic: a panic in a command still leaves the terminal as it was.
func TestTerminalPanic(t *testing.T) {
	testutil.Parallel(t)
	dir, bin, tm := startTerminal(t)
	before, after := filepath.Join(dir, "before"), filepath.Join(dir, "after")
	tm.keys(fmt.Sprintf("stty -a > %s; %s 2>/dev/null; echo exit-$?; stty -a > %s; echo done", before, bin, after), "Enter")
	tm.waitFor("browseragent[")
	tm.keys("/call panic", "Enter")
	tm.waitFor("exit-2")
	tm.waitFor("done")
	sameTerminal(t, before, after)
}

// TestTerminalClear: `clear` at the prompt wipes the screen instead of
// going to the agent as a task, and so does Ctrl-L, keeping the line being
// typed.
func TestTerminalClear(t *testing.T) {
	testutil.Parallel(t)
	_, bin, tm := startTerminal(t)
	tm.keys(bin+"; echo done-$?", "Enter")
	tm.waitFor("browseragent[no browser|no model]>")

	tm.keys("/mode", "Enter")
	tm.waitFor("no browser")
	tm.keys("clear", "Enter")
	tm.waitVisible(func(sc string) bool {
		return sc == "browseragent[no browser|no model]>\n"
	}, "only the prompt, at the top, after clear")
	if sc := tm.screen(); strings.Contains(sc, "no LLM configured") || strings.Contains(sc, "/mode") {
		t.Errorf("after clear the screen (or its scrollback) still shows what was before, or clear went to the agent:\n%s", sc)
	}

	tm.keys("/mode", "Enter")
	tm.waitFor("/mode")
	tm.keys("half typed")
	tm.waitFor("half typed")
	tm.keys("C-l")
	tm.waitVisible(func(sc string) bool {
		return strings.HasPrefix(sc, "browseragent[no browser|no model]> half typed\n")
	}, "the prompt and the half-typed line, at the top, after Ctrl-L")
	tm.keys("C-u", "C-d")
	tm.waitFor("done-0")
}

// waitVisible waits until ok holds for the visible screen (no scrollback),
// its trailing blank lines trimmed to one newline.
func (tm *tmuxSession) waitVisible(ok func(string) bool, what string) {
	tm.t.Helper()
	var sc string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		sc = strings.TrimRight(tm.run("capture-pane", "-p", "-t", "t"), "\n") + "\n"
		if ok(sc) {
			return
		}
	}
	tm.t.Fatalf("the screen never showed %s:\n%s", what, sc)
}

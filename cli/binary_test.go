package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/internal/testutil"
)

// binEnv runs the built binary as a child with a config, state, TMPDIR and
// working directory of the test's own, and the rest of this process's
// environment (PATH, the person's HOME with its warmed npm cache). Main in
// this process reads the process-wide environment, which t.Setenv changes
// only for a test that runs alone; a test that runs the binary through a
// binEnv can run in parallel.
type binEnv struct {
	dir string   // the test's directory: the working directory, config/, state/, tmp/
	tmp string   // TMPDIR: each Chromium's profile names it, every child's environment holds it
	env []string // the extra variables, as KEY=VALUE
}

// newBinEnv makes the directories and, in a cleanup, fails t when any
// process with the test's TMPDIR in its environment (everything the binary
// started, however deep) still runs 10 s after the test.
func newBinEnv(t *testing.T, extra ...string) *binEnv {
	t.Helper()
	e := &binEnv{dir: t.TempDir()}
	e.tmp = filepath.Join(e.dir, "tmp")
	for _, d := range []string{e.tmp, filepath.Join(e.dir, "config"), filepath.Join(e.dir, "state")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The npm cache stays the warmed one whatever HOME a test gives.
	e.env = append(append([]string{"TMPDIR=" + e.tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(e.dir, "config"), "XDG_STATE_HOME=" + filepath.Join(e.dir, "state")},
		testutil.NPMCacheEnv()...), extra...)
	t.Cleanup(func() { testutil.WaitNoProcessWithEnv(t, "TMPDIR="+e.tmp, 10*time.Second) })
	return e
}

// run runs the binary with args and stdin, to its end (3 minutes at most).
func (e *binEnv) run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return e.runFor(t, 3*time.Minute, stdin, args...)
}

// runFor is run with another limit, for a long batch.
func (e *binEnv) runFor(t *testing.T, limit time.Duration, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(program(t, browseragentPkg), args...)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), e.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("browseragent %q: %v", args, err)
		}
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("browseragent %q did not end within %s\nstderr:\n%s", args, limit, errb.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// npxInit gives an npx server (a node process, started by npm, itself node)
// three minutes to initialize, as TestDocExamples and TestMCPClaudeInterop
// do: the default minute is for a person's machine, and on this shared one,
// with the package's other tests running beside it, npx alone can take
// that long. No test here is about the initialize timeout.
const npxInit = "BROWSERAGENT_MCP_INIT_TIMEOUT=3m"

// runBinEnv is runEnv for a test that runs the binary: the scripted LLM
// srv (none when nil), and a home, config and state of the test's own.
func runBinEnv(t *testing.T, srv *llmtest.Server) *binEnv {
	t.Helper()
	extra := []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "BROWSERAGENT_MODEL=test-model", "BROWSERAGENT_PROVIDER=",
		"BROWSERAGENT_DISCOVER=0"} // "no LLM" must not find a server someone runs here
	if srv != nil {
		extra = append(extra, "OPENAI_BASE_URL="+srv.URL)
	}
	e := newBinEnv(t, extra...)
	e.env = append(e.env, "HOME="+e.dir)
	return e
}

// atTerminal runs the binary with a terminal (a pseudo-terminal) as its
// standard input and output, as a person in their own terminal does, and
// types answer once it asks "Allow?". It returns the exit code and what
// the terminal showed.
func (e *binEnv) atTerminal(t *testing.T, answer string, args ...string) (code int, screen string) {
	t.Helper()
	cmd := exec.Command(program(t, browseragentPkg), args...)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), e.env...)
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var shown bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		typed := false
		for {
			n, err := tty.Read(buf)
			shown.Write(buf[:n])
			if !typed && strings.Contains(shown.String(), "Allow?") {
				typed = true
				tty.Write([]byte(answer + "\r"))
			}
			if err != nil { // EIO once the command has ended
				return
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("browseragent %q at a terminal did not end within 3 minutes", args)
	}
	<-read
	return cmd.ProcessState.ExitCode(), shown.String()
}

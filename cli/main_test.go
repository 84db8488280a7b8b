package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/browseragent/browseragent/browsercli/wire"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestMain keeps every test of the command off the person's own files: a
// Session opened by any test (fetch --render, run, the shell) writes its
// audit log under XDG_STATE_HOME and reads rules and config under
// XDG_CONFIG_HOME, so both point into a temporary directory unless a test
// sets its own.
func TestMain(m *testing.M) {
	if id := os.Getenv(selfConfirmEnv); id != "" {
		os.Exit(selfConfirm(id))
	}
	dir, err := os.MkdirTemp("", "browseragent-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testRoot = dir
	if pkgDir, err = os.Getwd(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	// The parallel tests wait on child processes (Chromium, npx servers,
	// hosts, the conformance suite), not on this process's CPU.
	testutil.RaiseParallel()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// selfConfirmEnv makes the test binary a client that confirms pending
// call ID by answering its own question, as a program told to wait might
// try (selfConfirm).
const selfConfirmEnv = "BROWSERAGENT_TEST_SELF_CONFIRM"

// selfConfirm sends `browser confirm id` claiming a terminal and answers
// "once" to whatever it is asked, with no terminal at all: a client that
// lies. It exits with the command's exit code.
func selfConfirm(id string) int {
	resp, err := wire.Do(context.Background(), &wire.Request{Command: "confirm", Args: []string{id}},
		&wire.ClientOptions{Ask: func(context.Context, wire.Ask) (string, error) { return "once", nil }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(os.Stderr, resp.Error)
	return resp.Exit
}

// testRoot is the package's temporary directory, removed when the tests
// end; pkgDir is this package's source directory, where builds run even
// after a test changed directory.
var testRoot, pkgDir string

var (
	programsMu sync.Mutex
	programs   = map[string]*builtProgram{}
)

type builtProgram struct {
	once sync.Once
	path string
	err  error
}

// browseragentPkg is the command the tests of the built binary run.
const browseragentPkg = "github.com/browseragent/browseragent/cmd/browseragent"

// program builds the Go command at pkg (browseragentPkg, or a test
// server) once per test binary and returns its path; a test that runs it
// as a child process shares the build.
func program(t testing.TB, pkg string) string {
	t.Helper()
	if testing.Short() {
		// A test of the built binary is no unit test: building it costs
		// most of a -short run on a loaded machine.
		t.Skip("skipping under -short: runs the built binary")
	}
	programsMu.Lock()
	p := programs[pkg]
	if p == nil {
		p = &builtProgram{}
		programs[pkg] = p
	}
	programsMu.Unlock()
	p.once.Do(func() {
		name := path.Base(pkg)
		p.path = filepath.Join(testRoot, "bin-"+name, name)
		cmd := exec.Command("go", "build", "-o", p.path, pkg)
		cmd.Dir = pkgDir
		if out, err := cmd.CombinedOutput(); err != nil {
			p.err = fmt.Errorf("build %s: %v\n%s", pkg, err, out)
		}
	})
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.path
}

func TestStateAndConfigAreTemporary(t *testing.T) {
	for _, k := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
		if v := os.Getenv(k); !strings.HasPrefix(v, os.TempDir()) || !strings.Contains(v, "browseragent-cmd-test-") {
			t.Errorf("%s = %q: tests would write to the person's own files", k, v)
		}
	}
}

//go:build unix

package testutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SharedBrowser is one headless Chromium that every test of a package's
// test binary shares, as chromedp's own tests share one allocator: starting
// Chromium costs seconds on a loaded machine, a browser context costs
// milliseconds. Tests point browser.LaunchOptions.Host at Endpoint, so each
// gets a fresh browser context of its own there (cookies, storage, tabs),
// disposed of when the test's browser closes; nothing leaks between tests.
//
// It starts on the first Endpoint call, so a package run whose selected
// tests need no browser starts none, and Main stops it after the last test.
// Its processes do not count as left behind (see Descendants): they are the
// package's, not a test's, and Close checks that they are gone.
type SharedBrowser struct {
	find func() (string, error)
	args func(profile string) []string

	once sync.Once
	err  error // why it could not start
	ws   string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// NewSharedBrowser returns the package's shared browser, not started yet:
// find locates Chromium (browser.FindChrome) and args gives its command
// line for a profile directory (browser.LaunchArgs), so it runs exactly as
// the Chromium browseragent launches itself.
func NewSharedBrowser(find func() (string, error), args func(profile string) []string) *SharedBrowser {
	return &SharedBrowser{find: find, args: args}
}

// Endpoint returns the shared Chromium's DevTools websocket URL, starting
// it on first use. Like Require it skips t when Chromium is missing (fails
// it under BROWSERAGENT_REQUIRE_BROWSER=1); it fails t when the browser
// does not start.
func (b *SharedBrowser) Endpoint(t testing.TB) string {
	t.Helper()
	chrome := Require(t, "chromium", b.find)
	b.once.Do(func() { b.err = b.start(chrome) })
	if b.err != nil {
		t.Fatalf("start the package's shared browser: %v", b.err)
	}
	return b.ws
}

// Pid is the shared Chromium's process id, or 0 while it has not started.
func (b *SharedBrowser) Pid() int {
	if b.cmd == nil || b.cmd.Process == nil {
		return 0
	}
	return b.cmd.Process.Pid
}

func (b *SharedBrowser) start(chrome string) error {
	dir, err := os.MkdirTemp("", "browseragent-shared-chrome-")
	if err != nil {
		return err
	}
	b.dir, b.done = dir, make(chan struct{})
	b.cmd = exec.Command(chrome, b.args(dir)...)
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := startProcess(b.cmd, b.done); err != nil {
		os.RemoveAll(dir)
		return err
	}
	exclude(b.cmd.Process.Pid)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil {
			if port, path, ok := strings.Cut(strings.TrimSpace(string(data)), "\n"); ok {
				b.ws = "ws://127.0.0.1:" + port + path
				return nil
			}
		}
		select {
		case <-b.done:
			return fmt.Errorf("%s exited before it opened its debugging port", chrome)
		default:
		}
		if time.Now().After(deadline) {
			b.Close()
			return fmt.Errorf("%s did not open its debugging port within 30 s", chrome)
		}
	}
}

// Close stops the shared Chromium (SIGTERM to its process group, SIGKILL
// after 3 s) and removes its profile. It fails when a process of it (one
// naming its profile, or one below it) still runs 5 s later. It does
// nothing when the browser never started.
func (b *SharedBrowser) Close() error {
	if b.cmd == nil || b.cmd.Process == nil {
		return nil
	}
	pid := b.cmd.Process.Pid
	syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(3 * time.Second):
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	<-b.done
	var left []int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left = append(ProcessesWith(b.dir), below(pid)...)
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	unexclude(pid)
	var errs []error
	if len(left) > 0 {
		errs = append(errs, fmt.Errorf("the shared browser left processes behind: %v", left))
	}
	if err := os.RemoveAll(b.dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Main runs the package's tests, then closes each shared browser; a browser
// that leaves a process behind fails the run, and so does any process
// still below the test binary 10 s after the last test (parallel tests
// check only their own, see Parallel). Call it from TestMain. It raises
// the parallelism of the tests that call t.Parallel first (RaiseParallel).
func Main(m *testing.M, browsers ...*SharedBrowser) {
	RaiseParallel()
	code := m.Run()
	for _, b := range browsers {
		if err := b.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			code = 1
		}
	}
	if err := NoneLeft(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		code = 1
	}
	os.Exit(code)
}

// NoneLeft fails when a process is still below the test binary 10 s after
// the call (the shared browsers left out, see Descendants). Main calls it
// after the last test; a TestMain of its own calls it after m.Run.
func NoneLeft() error {
	var left []int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if left = Descendants(); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("processes left behind by the tests: %v", left)
	}
	return nil
}

// excluded holds the pids of the shared browsers: they and the processes
// below them are no test's leftovers.
var excluded = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

func exclude(pid int) {
	excluded.Lock()
	excluded.pids[pid] = true
	excluded.Unlock()
}

func unexclude(pid int) {
	excluded.Lock()
	delete(excluded.pids, pid)
	excluded.Unlock()
}

func isExcluded(pid int) bool {
	excluded.Lock()
	defer excluded.Unlock()
	return excluded.pids[pid]
}

package mcpclient

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// requireNode skips when npx is missing, unless BROWSERAGENT_REQUIRE_BROWSER=1
// (CI), where a missing Node is a failure.
func requireNode(t testing.TB) {
	t.Helper()
	testutil.RequireProgram(t, "npx")
}

var (
	rawOnce sync.Once
	rawPath string
	rawErr  error
)

// rawServer builds internal/testservers/rawserver once per test binary.
func rawServer(t testing.TB) string {
	t.Helper()
	rawOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpclient-rawserver")
		if err != nil {
			rawErr = err
			return
		}
		rawPath = filepath.Join(dir, "rawserver")
		out, err := exec.Command("go", "build", "-o", rawPath, "./internal/testservers/rawserver").CombinedOutput()
		if err != nil {
			rawErr = err
			rawPath = string(out)
		}
	})
	if rawErr != nil {
		t.Fatalf("build rawserver: %v\n%s", rawErr, rawPath)
	}
	return rawPath
}

// TestMain runs the tests, stops the servers they shared and then checks,
// for the whole binary, what assertNoProcesses cannot check while parallel
// tests run beside each other: that no child process of this test binary
// is left at all.
func TestMain(m *testing.M) {
	testutil.RaiseParallel()
	code := m.Run()
	if err := stopSharedEverything(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		code = 1
	}
	var kids []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if kids = liveChildren(os.Getpid()); len(kids) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(kids) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: child processes left behind by the tests: %v\n", kids)
		code = 1
	}
	if rawPath != "" {
		os.RemoveAll(filepath.Dir(rawPath))
	}
	os.Exit(code)
}

// parallelRunning counts the tests running now that called parallel.
var parallelRunning atomic.Int32

// parallel marks t as one that runs beside the other parallel tests: the
// slow ones that mostly wait for a Node server. Such a test must not touch
// package variables (PromptInput, healBaseDelay), and while one runs the
// whole-binary check of assertNoProcesses is left to TestMain.
func parallel(t *testing.T) {
	t.Parallel()
	parallelRunning.Add(1)
	t.Cleanup(func() { parallelRunning.Add(-1) }) // registered first: runs after the test's own checks
}

// rawConfig is a config with one rawserver per mode, named after it.
func rawConfig(t testing.TB, modes ...string) *Config {
	bin := rawServer(t)
	cfg := &Config{Servers: map[string]*ServerConfig{}}
	for _, mode := range modes {
		name := strings.NewReplacer("=", "-", ".", "-").Replace(mode)
		cfg.Servers[name] = &ServerConfig{Name: name, Command: bin, Args: []string{mode}, Source: "test"}
	}
	return cfg
}

// startManager starts cfg and closes the manager at the end of the test,
// then asserts that none of its processes remain.
func startManager(t *testing.T, cfg *Config, opts *Options) *Manager {
	t.Helper()
	m := NewManager(cfg, opts)
	m.Start(context.Background())
	pgids := map[int]bool{}
	var mu sync.Mutex
	record := func() {
		mu.Lock()
		defer mu.Unlock()
		for _, st := range m.Status() {
			if st.PID != 0 {
				pgids[st.PID] = true
			}
		}
	}
	done := make(chan struct{})
	go func() { // remember every process group the manager ever had
		for {
			record()
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() {
		record()
		close(done)
		m.Close()
		mu.Lock()
		defer mu.Unlock()
		assertNoProcesses(t, pgids)
	})
	return m
}

// assertNoProcesses fails if a live member of one of pgids remains, or a
// live child of this test process. The second check reads the whole
// binary's children, so it is made only while no parallel test runs (their
// servers are theirs); TestMain makes it once more after the last test.
func assertNoProcesses(t testing.TB, pgids map[int]bool) {
	t.Helper()
	for pgid := range pgids {
		if live := liveGroupMembers(pgid); len(live) > 0 {
			t.Errorf("processes %v of server group %d still alive after Close", live, pgid)
		}
	}
	if parallelRunning.Load() > 0 {
		return
	}
	var kids []string
	for _, k := range liveChildren(os.Getpid()) {
		if pid, _ := strconv.Atoi(strings.Fields(k)[0]); !isTestOwned(pid) {
			kids = append(kids, k)
		}
	}
	if len(kids) > 0 {
		t.Errorf("child processes %v still alive after Close", kids)
	}
}

// testOwned are child processes a test started itself (an HTTP server
// under test), which the manager is not expected to stop; tests register
// them before starting a manager and stop them in their own cleanup (the
// shared server-everything in TestMain).
var testOwned = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

func setTestOwned(pid int, owned bool) {
	testOwned.Lock()
	defer testOwned.Unlock()
	if owned {
		testOwned.pids[pid] = true
	} else {
		delete(testOwned.pids, pid)
	}
}

func isTestOwned(pid int) bool {
	testOwned.Lock()
	defer testOwned.Unlock()
	return testOwned.pids[pid]
}

// liveChildren lists non-zombie processes whose parent is pid.
func liveChildren(pid int) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if f[1] == strconv.Itoa(pid) {
			out = append(out, e.Name()+" "+s[strings.IndexByte(s, '(')+1:i])
		}
	}
	return out
}

func waitReady(t *testing.T, m *Manager, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := m.WaitReady(ctx, name); err != nil {
		t.Fatalf("WaitReady(%s): %v\nstderr:\n%s", name, err, strings.Join(must(m.Logs(name)), "\n"))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

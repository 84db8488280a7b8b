package testutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These checks read /proc themselves rather than asking the code under test
// which processes it started, so a leak cannot hide behind that code's own
// bookkeeping. Where there is no /proc (not Linux) they find nothing.

// ProcessesWith lists the running processes, this test binary excepted,
// whose command line contains marker: a temporary directory the test gave
// what it started (a browser profile, or TMPDIR), which only those
// processes name.
func ProcessesWith(marker string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// WaitNoProcessWith fails t when a process whose command line contains
// marker still runs 5 s after the call. It waits because Chromium's helper
// processes exit a moment after the browser does.
func WaitNoProcessWith(t testing.TB, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := ProcessesWith(marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes still running with %q in their command line: %v", marker, pids)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Descendants lists the live processes below this test process: its
// children, their children and so on. Zombies do not count, nor does a
// package's shared browser (SharedBrowser) with the processes below it:
// it belongs to the whole test binary, and its Close checks it is gone.
func Descendants() []int {
	parent := parents()
	me := os.Getpid()
	var out []int
	for pid := range parent {
		if isExcluded(pid) {
			continue
		}
		for p := parent[pid]; p > 1 && !isExcluded(p); p = parent[p] {
			if p == me {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// below lists the live processes below root.
func below(root int) []int {
	parent := parents()
	var out []int
	for pid := range parent {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// parents maps each live process, zombies left out, to its parent.
func parents() map[int]int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[0] != "Z" {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	return parent
}

// WaitNoDescendants fails t when a process below this test still runs 10 s
// after the call. It suits tests that start browsers and MCP servers through
// the code under test, whose command lines hold no marker of the test's:
// closing that code must have ended every one of them.
//
// In a test that runs in parallel (Parallel) it judges only the processes
// the test owns (Owns), since the others below the binary are other tests';
// Main checks after the last test that none at all is left.
func WaitNoDescendants(t testing.TB) {
	t.Helper()
	if isParallel(t) {
		waitOwnedGone(t)
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(Descendants()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if pids := Descendants(); len(pids) > 0 {
		t.Errorf("child processes left behind: %v", pids)
	}
}

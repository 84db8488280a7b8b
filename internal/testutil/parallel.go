package testutil

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tests that start browsers and MCP servers mostly wait (for Chromium, for
// Node, for a page), so they run beside each other (Parallel). Then
// Descendants no longer tells whose a process is: every test's are below
// the one test binary. A parallel test says instead what it started (Owns):
// the processes a function names, such as a manager's MCP servers, or the
// ones whose command line holds a marker of the test's, with everything in
// their process groups and below them. One sampler reads /proc while such a
// test runs and remembers each process it saw of it, so WaitNoDescendants
// can tell whether one is still alive at the end, even one that was
// reparented away from the test binary. Main checks, after the last test,
// that no descendant of the binary is left at all, owned or not.

// sampleEvery is how often the sampler reads /proc while a parallel test
// that owns processes runs: what it must see (a Chromium, an MCP server)
// lives for seconds, so a few samples a second see every one of them, and
// the check at the end samples once more.
const sampleEvery = 250 * time.Millisecond

// proc is one process as /proc/<pid>/stat shows it; start (clock ticks
// since boot) tells a pid's reuse from the process first seen with it.
type proc struct {
	pid, ppid, pgrp int
	start           uint64
	zombie          bool
}

// owner is what one parallel test owns.
type owner struct {
	markers []string
	pids    []func() []int
	seen    map[proc]bool // every process of it the sampler saw
}

var watch = struct {
	sync.Mutex
	parallel map[string]bool   // tests (by t.Name) running in parallel
	owners   map[string]*owner // tests in parallel ones that own processes
	cmdlines map[proc][]byte   // cache: a process's command line does not change (after its exec)
	running  bool              // the sampler goroutine runs
}{parallel: map[string]bool{}, owners: map[string]*owner{}, cmdlines: map[proc][]byte{}}

// inParallel reports whether the test named name, or one it is a subtest
// of, called Parallel; watch must be locked.
func inParallel(name string) bool {
	for {
		if watch.parallel[name] {
			return true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return false
		}
		name = name[:i]
	}
}

// within reports whether the test named name is test or one of its
// subtests.
func within(name, test string) bool {
	return name == test || strings.HasPrefix(name, test+"/")
}

// Parallel runs t beside the package's other parallel tests (t.Parallel)
// and makes WaitNoDescendants check, for t and its subtests, only the
// processes they own (see Owns). Call it first in the test, before any
// cleanup is registered, and never in a test that changes the environment
// or a package variable.
func Parallel(t *testing.T) {
	t.Helper()
	t.Parallel()
	name := t.Name()
	watch.Lock()
	watch.parallel[name] = true
	watch.Unlock()
	t.Cleanup(func() { // registered first: runs after the test's own checks
		watch.Lock()
		delete(watch.parallel, name)
		for n := range watch.owners {
			if within(n, name) {
				delete(watch.owners, n)
			}
		}
		watch.Unlock()
	})
}

// Owns tells the process checks of a parallel test (Parallel, or a
// subtest of one) which processes are t's: any whose command line contains
// marker (when not ""), the ones pids returns (asked every sample until
// the parallel test ends; nil for none), and every process in the process
// group of one of those or below one. What a subtest owns its parent owns
// too. In a test that does not run in parallel it does nothing: there
// WaitNoDescendants judges every process below the test binary.
func Owns(t testing.TB, marker string, pids func() []int) {
	name := t.Name()
	watch.Lock()
	defer watch.Unlock()
	if !inParallel(name) {
		return
	}
	o := watch.owners[name]
	if o == nil {
		o = &owner{seen: map[proc]bool{}}
		watch.owners[name] = o
	}
	if marker != "" {
		o.markers = append(o.markers, marker)
	}
	if pids != nil {
		o.pids = append(o.pids, pids)
	}
	if !watch.running && !o.empty() {
		watch.running = true
		go sampler()
	}
}

// empty reports whether o names no process: a test whose browser is a
// context in the shared Chromium owns nothing, and needs no sampling.
func (o *owner) empty() bool { return len(o.markers) == 0 && len(o.pids) == 0 }

// sampler samples until no parallel test owns processes any more.
func sampler() {
	for {
		time.Sleep(sampleEvery)
		watch.Lock()
		busy := false
		for _, o := range watch.owners {
			busy = busy || !o.empty()
		}
		if !busy {
			watch.running = false
			watch.Unlock()
			return
		}
		watch.Unlock()
		sample()
	}
}

// sample reads /proc once and adds what each owner owns to what it saw.
func sample() {
	watch.Lock()
	owners := make([]*owner, 0, len(watch.owners))
	for _, o := range watch.owners {
		if !o.empty() {
			owners = append(owners, o)
		}
	}
	watch.Unlock()
	if len(owners) == 0 {
		return
	}
	procs := readProcs()
	for _, o := range owners {
		watch.Lock()
		funcs := slices.Clone(o.pids)
		watch.Unlock()
		var roots []int
		for _, f := range funcs { // outside the lock: f may take the code under test's locks
			roots = append(roots, f()...)
		}
		watch.Lock()
		o.add(procs, roots)
		watch.Unlock()
	}
}

// add records the processes of procs that o owns, given the pids its
// functions named; watch must be locked.
func (o *owner) add(procs map[int]proc, roots []int) {
	root := map[int]bool{}
	for _, pid := range roots {
		if pid > 0 {
			root[pid] = true
		}
	}
	for _, p := range procs {
		if len(o.markers) > 0 {
			cmd := cmdline(p)
			for _, m := range o.markers {
				if bytes.Contains(cmd, []byte(m)) {
					root[p.pid] = true
				}
			}
		}
	}
	for _, p := range procs {
		if p.zombie {
			continue
		}
		for q := p; ; {
			if root[q.pid] || root[q.pgrp] {
				o.seen[p] = true
				break
			}
			next, ok := procs[q.ppid]
			if !ok || next.pid <= 1 {
				break
			}
			q = next
		}
	}
}

// cmdline is p's command line, read once; watch must be locked.
func cmdline(p proc) []byte {
	if b, ok := watch.cmdlines[p]; ok {
		return b
	}
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "cmdline"))
	if len(b) > 0 { // empty while the process is still being made
		if len(watch.cmdlines) > 20000 {
			clear(watch.cmdlines)
		}
		watch.cmdlines[p] = b
	}
	return b
}

// readProcs reads every process's stat, this test binary left out.
func readProcs() map[int]proc {
	out := map[int]proc{}
	entries, _ := os.ReadDir("/proc")
	me := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == me {
			continue
		}
		if p, ok := readProc(pid); ok {
			out[pid] = p
		}
	}
	return out
}

// readProc reads /proc/<pid>/stat.
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return proc{}, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return proc{}, false
	}
	// After the command: state ppid pgrp session tty_nr tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime priority nice
	// num_threads itrealvalue starttime.
	p := proc{pid: pid, zombie: f[0] == "Z" || f[0] == "X"}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgrp, _ = strconv.Atoi(f[2])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	return p, true
}

// ownedLeft samples once more and returns the processes that t and its
// subtests own, as the sampler saw them, that are still alive (the same
// process, not a reuse of its pid), and false when they own nothing.
func ownedLeft(t testing.TB) ([]string, bool) {
	name := t.Name()
	watch.Lock()
	var owners []*owner
	for n, o := range watch.owners {
		if within(n, name) {
			owners = append(owners, o)
		}
	}
	watch.Unlock()
	if len(owners) == 0 {
		return nil, false
	}
	sample()
	watch.Lock()
	defer watch.Unlock()
	seen := map[proc]bool{}
	for _, o := range owners {
		maps.Copy(seen, o.seen)
	}
	var left []string
	for p := range seen {
		if now, ok := readProc(p.pid); ok && now.start == p.start && !now.zombie {
			left = append(left, fmt.Sprintf("%d %.120s", p.pid, bytes.ReplaceAll(cmdline(p), []byte{0}, []byte{' '})))
		}
	}
	slices.Sort(left)
	return left, true
}

// isParallel reports whether t is or belongs to a test that called
// Parallel.
func isParallel(t testing.TB) bool {
	watch.Lock()
	defer watch.Unlock()
	return inParallel(t.Name())
}

// waitOwnedGone is WaitNoDescendants for a parallel test.
func waitOwnedGone(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left, ok := ownedLeft(t)
		if !ok {
			if !t.Skipped() && !t.Failed() { // a test that ended before it started anything owns nothing
				t.Errorf("a parallel test that checks for processes left behind must say which are its own (testutil.Owns)")
			}
			return
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of the test left behind:\n%s", strings.Join(left, "\n"))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

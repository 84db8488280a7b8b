package testutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorder is a testing.TB that records what Require and the process
// checks report instead of ending the test. Like testing's, its Fatalf and
// Skipf end the goroutine, so it must run in one of its own (see in).
type recorder struct {
	testing.TB
	fatal, skip, errs string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = fmt.Sprintf(f, a...); runtime.Goexit() }
func (r *recorder) Skipf(f string, a ...any)  { r.skip = fmt.Sprintf(f, a...); runtime.Goexit() }
func (r *recorder) Errorf(f string, a ...any) { r.errs = fmt.Sprintf(f, a...) }

// in runs f with r in a goroutine of its own and waits for it.
func (r *recorder) in(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

func TestRequire(t *testing.T) {
	missing := func() (string, error) { return "", errors.New("chrome not found") }
	found := func() (string, error) { return "/usr/bin/chromium", nil }
	tests := []struct {
		name    string
		env     string
		find    func() (string, error)
		want    recorder
		wantOut string
	}{
		{"missing skips", "", missing, recorder{skip: "skipping: chromium not found: chrome not found"}, ""},
		{"missing with the variable at 0 skips", "0", missing, recorder{skip: "skipping: chromium not found: chrome not found"}, ""},
		{"missing in CI fails", "1", missing, recorder{fatal: "BROWSERAGENT_REQUIRE_BROWSER=1 but chromium is missing: chrome not found"}, ""},
		{"found", "1", found, recorder{}, "/usr/bin/chromium"},
		{"-short skips, also in CI", "1", found, recorder{skip: "skipping under -short: needs chromium"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(RequireEnv, tt.env)
			isShort := strings.HasPrefix(tt.name, "-short")
			short = func() bool { return isShort }
			t.Cleanup(func() { short = testing.Short })
			r := &recorder{}
			var got string
			r.in(func() { got = Require(r, "chromium", tt.find) })
			if diff := cmp.Diff(tt.want, *r, cmp.AllowUnexported(recorder{})); diff != "" {
				t.Errorf("reported (-want +got)\n%s", diff)
			}
			if tt.wantOut != "" && got != tt.wantOut {
				t.Errorf("Require = %q, want %q", got, tt.wantOut)
			}
		})
	}
}

// TestProcessChecks starts a process whose command line names a temporary
// directory and checks that the process checks see it while it runs and
// not once it has ended.
func TestProcessChecks(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skipf("no /proc here, so the checks find nothing: %v", err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("sleep not found: %v", err)
	}
	marker := t.TempDir()
	bin := filepath.Join(marker, "sleep") // argv[0] holds the marker
	if err := os.Symlink(sleep, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if got := ProcessesWith(marker); !cmp.Equal(got, []int{pid}) {
		t.Errorf("ProcessesWith = %v, want [%d]", got, pid)
	}
	if got := Descendants(); !slices.Contains(got, pid) {
		t.Errorf("Descendants = %v, want it to hold %d", got, pid)
	}
	r := &recorder{}
	r.in(func() { WaitNoProcessWith(r, marker) })
	if r.errs == "" {
		t.Errorf("WaitNoProcessWith reported nothing while %d runs", pid)
	}

	cmd.Process.Kill()
	cmd.Wait()
	WaitNoProcessWith(t, marker)
	WaitNoDescendants(t)
}

// TestSharedBrowser starts a shared Chromium and checks what the browser
// tests rely on: it starts on the first Endpoint, once; its processes are
// not a test's leftovers (Descendants leaves them out) yet do not escape the
// marker check; and Close ends every one of them and removes the profile.
func TestSharedBrowser(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skipf("no /proc here, so the checks find nothing: %v", err)
	}
	find := func() (string, error) {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				return p, nil
			}
		}
		return "", errors.New("no chromium on PATH")
	}
	args := func(dir string) []string {
		a := []string{"--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "--user-data-dir=" + dir,
			"--headless", "--no-first-run", "--disable-background-networking", "about:blank"}
		if os.Geteuid() == 0 {
			a = append(a, "--no-sandbox")
		}
		return a
	}
	b := NewSharedBrowser(find, args)
	if b.Pid() != 0 {
		t.Fatalf("Pid = %d before the first Endpoint: it must start lazily", b.Pid())
	}
	ws := b.Endpoint(t)
	if !strings.HasPrefix(ws, "ws://127.0.0.1:") || !strings.Contains(ws, "/devtools/browser/") {
		t.Errorf("Endpoint = %q, want a loopback browser websocket URL", ws)
	}
	if again := b.Endpoint(t); again != ws {
		t.Errorf("second Endpoint = %q, want the same browser %q", again, ws)
	}
	pid, dir := b.Pid(), b.dir
	if len(ProcessesWith(dir)) == 0 {
		t.Fatalf("no process names the shared profile %s", dir)
	}
	if got := Descendants(); slices.Contains(got, pid) {
		t.Errorf("Descendants = %v holds the shared browser %d", got, pid)
	}
	for _, p := range below(pid) {
		if slices.Contains(Descendants(), p) {
			t.Errorf("Descendants holds %d, a process of the shared browser", p)
		}
	}
	WaitNoDescendants(t)
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if left := ProcessesWith(dir); len(left) > 0 {
		t.Errorf("processes of the shared browser after Close: %v", left)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("profile %s still exists after Close", dir)
	}
	if isExcluded(pid) {
		t.Errorf("pid %d is still left out of Descendants after Close", pid)
	}
}

// TestParallelOwns: in a parallel test the process checks judge what the
// test owns: a process whose command line holds its marker, and one its
// function names with that one's process group, even a member reparented
// away from the test binary when its parent died; not another test's
// process, which runs on after WaitNoDescendants passed.
func TestParallelOwns(t *testing.T) {
	Parallel(t)
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skipf("no /proc here, so the checks find nothing: %v", err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("sleep not found: %v", err)
	}
	marker := t.TempDir()
	bin := filepath.Join(marker, "sleep")
	if err := os.Symlink(sleep, bin); err != nil {
		t.Fatal(err)
	}
	byMarker := exec.Command(bin, "60")
	group := exec.Command("sh", "-c", "sleep 60 & echo $!; exec sleep 60") // a leader and its child
	group.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := group.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	other := exec.Command(sleep, "60")
	for _, c := range []*exec.Cmd{byMarker, group, other} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	var child int
	if _, err := fmt.Fscan(out, &child); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	leader := group.Process.Pid
	Owns(t, marker, nil)
	Owns(t, "", func() []int { return []int{leader} })

	pids := func() []int {
		left, ok := ownedLeft(t)
		if !ok {
			t.Fatal("Owns did not register the test's processes")
		}
		var pids []int
		for _, l := range left {
			pid, _ := strconv.Atoi(strings.Fields(l)[0])
			pids = append(pids, pid)
		}
		slices.Sort(pids)
		return pids
	}
	want := []int{byMarker.Process.Pid, leader, child}
	slices.Sort(want)
	if diff := cmp.Diff(want, pids()); diff != "" {
		t.Errorf("owned processes (-want +got)\n%s", diff)
	}
	group.Process.Kill() // the leader only: its child is reparented
	group.Wait()
	if got := pids(); !slices.Contains(got, child) {
		t.Errorf("owned processes %v lost the leader's orphaned child %d", got, child)
	}
	byMarker.Process.Kill()
	byMarker.Wait()
	syscall.Kill(child, syscall.SIGKILL)
	WaitNoDescendants(t) // passes while other, not the test's, runs
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Errorf("the other process should still run: %v", err)
	}
}

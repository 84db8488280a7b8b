package testutil

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProcessesWithEnv: a child and its grandchild, started with the
// test's variable, are found by it, a process with another value of the
// same variable is not, and once they end the wait passes.
func TestProcessesWithEnv(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skipf("no /proc here, so the checks find nothing: %v", err)
	}
	kv := "TESTUTIL_MARK=" + t.TempDir()
	start := func(env string) *exec.Cmd {
		// sh waits for its sleep, so there is a child and a grandchild.
		cmd := exec.Command("sh", "-c", "sleep 60; true")
		cmd.Env = append(os.Environ(), env)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	mine, other := start(kv), start(kv+"-other")
	var got []int
	for deadline := time.Now().Add(10 * time.Second); len(got) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got = ProcessesWithEnv(kv)
	}
	if len(got) != 2 || !slices.Contains(got, mine.Process.Pid) || slices.Contains(got, other.Process.Pid) {
		t.Errorf("ProcessesWithEnv = %v, want sh %d and its sleep, not %d", got, mine.Process.Pid, other.Process.Pid)
	}
	r := &recorder{}
	r.in(func() { WaitNoProcessWithEnv(r, kv, 100*time.Millisecond) })
	if r.errs == "" {
		t.Errorf("WaitNoProcessWithEnv reported nothing while %v run", got)
	}
	// Killing the group's sh leaves its sleep: kill both.
	for _, pid := range got {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
	mine.Wait()
	WaitNoProcessWithEnv(t, kv, 10*time.Second)
}

// TestNodeEnv: the variables npm and Node need pass through, nothing else.
func TestNodeEnv(t *testing.T) {
	t.Setenv("NODE_EXTRA_CA_CERTS", "/etc/ssl/proxy.pem")
	t.Setenv("npm_config_registry", "http://127.0.0.1:4873/")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
	t.Setenv("BROWSERAGENT_MODEL", "not-for-npm")
	got := NodeEnv()
	for _, want := range []string{"NODE_EXTRA_CA_CERTS=/etc/ssl/proxy.pem", "npm_config_registry=http://127.0.0.1:4873/", "HTTPS_PROXY=http://127.0.0.1:3128"} {
		if !slices.Contains(got, want) {
			t.Errorf("NodeEnv() lacks %q: %q", want, got)
		}
	}
	if slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "BROWSERAGENT_") || strings.HasPrefix(kv, "PATH=") }) {
		t.Errorf("NodeEnv() passes more than npm needs: %q", got)
	}
}

package browser

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// requireChrome returns the browser to test with, or skips the test with the
// reason; with BROWSERAGENT_REQUIRE_BROWSER=1 a missing browser fails it.
func requireChrome(t *testing.T) string {
	t.Helper()
	p, err := FindChrome()
	if err != nil {
		if os.Getenv("BROWSERAGENT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("BROWSERAGENT_REQUIRE_BROWSER=1 but: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	return p
}

// requireNpx is requireChrome for Node's npx.
func requireNpx(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("npx")
	if err != nil {
		if os.Getenv("BROWSERAGENT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("BROWSERAGENT_REQUIRE_BROWSER=1 but npx is missing: %v", err)
		}
		t.Skipf("skipping: npx not found: %v", err)
	}
	return p
}

// assertNoProcess fails the test when a process whose command line contains
// marker is still running shortly after cleanup.
func assertNoProcess(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := pidsUsing(marker)
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

// newTestBrowser starts an isolated browser for one test and checks at the
// end that it left no process and no profile behind.
func newTestBrowser(t *testing.T, o *Options) *Browser {
	t.Helper()
	requireChrome(t)
	b := New(o)
	if _, err := b.WSEndpoint(context.Background()); err != nil {
		t.Fatalf("start browser: %v", err)
	}
	dir := b.s.proc.dir
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		assertNoProcess(t, dir)
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("profile %s still exists after Close", dir)
		}
	})
	return b
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain keeps every test of the command off the person's own files: a
// Session opened by any test (fetch --render, run, the shell) writes its
// audit log under XDG_STATE_HOME and reads rules and config under
// XDG_CONFIG_HOME, so both point into a temporary directory unless a test
// sets its own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "browseragent-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestStateAndConfigAreTemporary(t *testing.T) {
	for _, k := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
		if v := os.Getenv(k); !strings.HasPrefix(v, os.TempDir()) || !strings.Contains(v, "browseragent-cmd-test-") {
			t.Errorf("%s = %q: tests would write to the person's own files", k, v)
		}
	}
}

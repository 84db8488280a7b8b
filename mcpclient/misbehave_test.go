package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMisbehavingServers runs each bad server next to a good one: the bad
// one ends in the expected state with a useful reason, the good one keeps
// working, and no process survives Close. Only the hanging server gets a
// short start allowance (its 1 s is what it checks); the others get the
// default, so a loaded machine (stderrflood writes 100 000 lines before
// it answers) cannot fail a start the test does not mean to time out.
func TestMisbehavingServers(t *testing.T) {
	parallel(t)
	tests := []struct {
		name      string
		mode      string
		wantState ServerState
		wantErr   []string      // substrings of the reason
		timeout   time.Duration // the bad server's start allowance; 0 means the default
		check     func(t *testing.T, m *Manager, name string)
	}{
		{name: "crash", mode: "crash", wantState: StateError, wantErr: []string{"exited during startup", "exit status 3", "cannot open config file"}},
		{name: "hang-in-initialize", mode: "hang", wantState: StateError, wantErr: []string{"did not initialize within 1s"}, timeout: time.Second},
		{name: "garbage-on-stdout", mode: "garbage", wantState: StateReady, check: checkGarbage},
		{name: "stderr-flood", mode: "stderrflood", wantState: StateReady, check: checkStderrFlood},
		{name: "die-mid-call", mode: "ok", wantState: StateReady, check: checkDieMidCall},
		{name: "50MB-result", mode: "ok", wantState: StateReady, check: checkBigResult},
		{name: "10000-notifications", mode: "ok", wantState: StateReady, check: checkNotificationFlood},
		{name: "npx-like-grandchild", mode: "grandchild", wantState: StateReady},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && (tc.name == "50MB-result" || tc.name == "10000-notifications") {
				t.Skip("skipping under -short: a load test, not a unit test")
			}
			cfg := rawConfig(t, tc.mode)
			good := rawConfig(t, "ok").Servers["ok"]
			good.Name = "good"
			cfg.Servers["good"] = good
			cfg.Servers[tc.mode].Timeout = Duration(tc.timeout)
			m := startManager(t, cfg, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := m.WaitAll(ctx); err != nil {
				t.Fatal(err)
			}
			st := must(m.ServerStatus(tc.mode))
			if st.State != tc.wantState {
				t.Fatalf("state = %s (%v), want %s", st.State, st.Err, tc.wantState)
			}
			for _, w := range tc.wantErr {
				if st.Err == nil || !strings.Contains(st.Err.Error(), w) {
					t.Errorf("reason %v does not contain %q", st.Err, w)
				}
			}
			if tc.check != nil {
				tc.check(t, m, tc.mode)
			}
			assertEcho(t, m, "good")
		})
	}
}

func assertEcho(t *testing.T, m *Manager, server string) {
	t.Helper()
	r, err := m.CallTool(context.Background(), toolName(server, "echo"), json.RawMessage(`{"message":"still here"}`))
	if err != nil {
		t.Fatalf("echo on %s: %v", server, err)
	}
	if r.Text != "still here" || r.IsError {
		t.Errorf("echo on %s = %+v", server, r)
	}
}

func checkGarbage(t *testing.T, m *Manager, name string) {
	assertEcho(t, m, name)
	logs := strings.Join(must(m.Logs(name)), "\n")
	for _, want := range []string{"[stdout, not JSON-RPC] Server is running", `"msg":"a JSON log line, not JSON-RPC"`,
		`[stdout, not JSON-RPC] {"level":"info","msg":"handled a \"jsonrpc\" request"}`, `[stdout, not JSON-RPC] [{"jsonrpc":"2.0", "id": 1, broken`,
		"[stdout, not JSON-RPC] Loading..."} {
		if !strings.Contains(logs, want) {
			t.Errorf("garbage stdout %q not kept in logs:\n%s", want, logs)
		}
	}
}

func checkStderrFlood(t *testing.T, m *Manager, name string) {
	logs := must(m.Logs(name))
	if len(logs) != defaultStderrLines {
		t.Fatalf("kept %d stderr lines, want %d", len(logs), defaultStderrLines)
	}
	if got, want := logs[len(logs)-1], "flood line 99999"; got != want {
		t.Errorf("last stderr line = %q, want %q", got, want)
	}
}

func checkDieMidCall(t *testing.T, m *Manager, name string) {
	_, err := m.CallTool(context.Background(), toolName(name, "die"), nil)
	if err == nil {
		t.Fatal("call to a dying server succeeded")
	}
	if !strings.Contains(err.Error(), "simulated crash") {
		t.Errorf("call error %q does not carry the server's stderr", err)
	}
	werr := must(m.ServerStatus(name)).Err
	for _, w := range []string{"server exited", "exit status 2", "simulated crash"} {
		if werr == nil || !strings.Contains(werr.Error(), w) {
			t.Errorf("state reason %v does not contain %q", werr, w)
		}
	}
	if _, err := m.CallTool(context.Background(), toolName(name, "echo"), nil); !errors.Is(err, errNotReady) && !errors.Is(err, errUnknownTool) {
		t.Errorf("call after death: err = %v, want errNotReady or errUnknownTool", err)
	}
	if err := m.Restart(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, name)
	assertEcho(t, m, name)
}

func checkBigResult(t *testing.T, m *Manager, name string) {
	_, err := m.CallTool(context.Background(), toolName(name, "big"), nil)
	if err == nil || !strings.Contains(err.Error(), "exceeds the 16777216-byte limit") {
		t.Fatalf("50 MB result: err = %v, want the size limit", err)
	}
	assertEcho(t, m, name) // the server survives
}

func checkNotificationFlood(t *testing.T, m *Manager, name string) {
	r, err := m.CallTool(context.Background(), toolName(name, "flood"), nil)
	if err != nil || r.Text != "flooded" {
		t.Fatalf("flood = %+v, %v", r, err)
	}
	assertEcho(t, m, name)
	// The 10 000 list_changed notifications are coalesced into a few
	// tools/list requests (1 is the initial listing).
	deadline := time.Now().Add(10 * time.Second)
	var calls int
	for {
		r, err := m.CallTool(context.Background(), toolName(name, "stats"), nil)
		if err != nil {
			t.Fatal(err)
		}
		calls, _ = strconv.Atoi(r.Text)
		prev := calls
		time.Sleep(200 * time.Millisecond)
		r, _ = m.CallTool(context.Background(), toolName(name, "stats"), nil)
		if calls, _ = strconv.Atoi(r.Text); calls == prev || time.Now().After(deadline) {
			break
		}
	}
	if calls < 2 || calls > 200 {
		t.Errorf("tools/list requests after 10000 notifications = %d, want a coalesced few (2..200)", calls)
	}
	if n := len(must(m.ServerTools(name))); n != 5 {
		t.Errorf("tools after flood = %d, want 5", n)
	}
}

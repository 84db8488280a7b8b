package mcpclient

import (
	"strings"
	"testing"
	"time"
)

// TestStopServerAskingLate: a stdio server that sends a request after its
// stdin was closed (server-everything asks for roots 350 ms after
// initialize; a one-shot command has often closed by then) can never get
// its answer and, like Node, does not exit while it waits. Stopping it
// does not wait out the stdin grace: the request ends it (the grace is
// set to an hour here, so without that the test would hang), and the log
// says why it was sent SIGTERM. A server that exits on its own at the
// end of stdin gets no such note.
func TestStopServerAskingLate(t *testing.T) {
	defer func(d time.Duration) { stdinGrace = d }(stdinGrace)
	stdinGrace = time.Hour
	for _, tc := range []struct {
		mode string
		note bool
	}{{"asklate", true}, {"ok", false}} {
		t.Run(tc.mode, func(t *testing.T) {
			m := NewManager(rawConfig(t, tc.mode), nil)
			m.Start(t.Context())
			waitReady(t, m, tc.mode)
			m.Close()
			logs := strings.Join(must(m.Logs(tc.mode)), "\n")
			if got := strings.Contains(logs, "sent a request after its input was closed"); got != tc.note {
				t.Errorf("note on the stop in the log = %v, want %v:\n%s", got, tc.note, logs)
			}
		})
	}
}

// BenchmarkCloseEverything times Close of a Manager right after the
// reference server (stdio, through node as npx runs it) is ready, which
// is what a one-shot `mcp tools` does; the start is not timed.
func BenchmarkCloseEverything(b *testing.B) {
	requireNode(b)
	for b.Loop() {
		b.StopTimer()
		cfg := &Config{Servers: map[string]*ServerConfig{"everything": {Name: "everything", Command: "npx", Args: []string{"-y", EverythingPackage}}}}
		m := NewManager(cfg, nil)
		m.Start(b.Context())
		if err := m.WaitReady(b.Context(), "everything"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		m.Close()
	}
}

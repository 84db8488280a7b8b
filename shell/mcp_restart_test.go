package shell

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestScriptRestartWaits: in a script, /mcp restart NAME waits until the
// server is ready again before the next line, so a /call right after it
// finds the tool; the server (a go-sdk server over in-memory transports)
// takes 300 ms to start the second time.
func TestScriptRestartWaits(t *testing.T) {
	var dials atomic.Int32
	sess, hooks := slowMCPSession(t, func(n int32) {
		dials.Store(n)
		if n > 1 {
			time.Sleep(300 * time.Millisecond) // slow to come back
		}
	})
	defer sess.Close()
	opts := &Options{Tools: sess.Registry, MCP: sess.MCP, Hooks: hooks}
	out, errb := scriptIO(opts, "/mcp restart slow\n/call mcp__slow__echo {}\n")
	if n := failures(t, New(opts).Run(context.Background())); n != 0 || !strings.Contains(out.String(), "echo: hi") {
		t.Errorf("failed %d\nstdout:\n%s\nstderr:\n%s", n, out.String(), errb.String())
	}
	if got := dials.Load(); got != 2 {
		t.Errorf("dialled %d times, want 2 (start, restart)", got)
	}
}

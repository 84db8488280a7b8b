package wire

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCommandAfterDaemonEnded: a command that comes while the session's
// daemon is ending (its socket gone, its lock still held: another
// build's daemon closing its browser) waits for it to let go and then
// goes on as with no daemon, instead of waiting out the start timeout
// for a socket that never comes.
func TestCommandAfterDaemonEnded(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	p, err := PathsOf("ending")
	if err != nil {
		t.Fatal(err)
	}
	lock, ok, err := p.TakeLock()
	if err != nil || !ok {
		t.Fatalf("take the lock: %v %v", ok, err)
	}
	released := make(chan struct{})
	go func() {
		// The daemon ends a moment after the command came (the command
		// finds the lock held and no socket).
		time.Sleep(300 * time.Millisecond)
		lock.Close()
		close(released)
	}()
	resp, err := Do(context.Background(), &Request{Command: "pending"}, &ClientOptions{Session: "ending"})
	<-released
	if err != nil || resp.Exit != ExitOK || !strings.Contains(resp.Text, "is not running") {
		t.Fatalf("after the daemon ended: %+v %v", resp, err)
	}
}

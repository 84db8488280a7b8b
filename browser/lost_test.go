//go:build unix

package browser

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestSharedLostOnce: when the person's browser dies, the Browser goes back
// to isolated mode by itself (no call needed), tells OnLost once, the next
// tool call reports the loss in one sentence, WSEndpoint (chrome-devtools-
// mcp's restart) does not swallow that report, and the call after works in
// a fresh isolated browser that Close stops.
func TestSharedLostOnce(t *testing.T) {
	testutil.Parallel(t)
	site := newSite(t)
	person := personBrowser(t, site.URL)
	var lost atomic.Int32
	b := New(&Options{OnLost: func() { lost.Add(1) }})
	ctx := context.Background()
	if err := b.Connect(ctx, Target{UserDataDir: person.Dir}); err != nil {
		t.Fatal(err)
	}
	mustCall(t, b, "browser_tabs", nil)

	person.Kill()
	for deadline := time.Now().Add(10 * time.Second); b.Mode() == ModeShared && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if b.Mode() != ModeIsolated || lost.Load() != 1 {
		t.Fatalf("without any call after the loss: mode %v, OnLost called %d times; want isolated, 1", b.Mode(), lost.Load())
	}
	if _, err := b.WSEndpoint(ctx); err != nil {
		t.Fatalf("WSEndpoint after the loss: %v", err)
	}
	dir := b.s.proc.dir

	_, err := b.run(ctx, "browser_tabs", "", nil)
	if !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), "person's Chrome") || strings.Count(err.Error(), "\n") > 0 {
		t.Fatalf("first call after the loss: err = %v, want the one-line loss of the person's Chrome", err)
	}
	r := mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/article.html"})
	if !strings.Contains(r.Text, "Static Article") {
		t.Errorf("call after the reported loss: %s", r.Text)
	}
	if got := b.s.proc.dir; got != dir {
		t.Errorf("the call used browser %s, not the isolated one WSEndpoint launched (%s)", got, dir)
	}
	if n := lost.Load(); n != 1 {
		t.Errorf("OnLost called %d times, want 1", n)
	}
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	testutil.WaitNoProcessWith(t, dir)
}

package shell

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// TestHooksKeepWhatCameFirst: events and notices sent before the shell
// exists are shown once it runs, in the order they came.
func TestHooksKeepWhatCameFirst(t *testing.T) {
	hooks := &Hooks{}
	hooks.Notice("first")
	hooks.MCPEvent(mcpclient.Event{Server: "alpha", Kind: mcpclient.EventState, State: mcpclient.StateError, Err: errors.New("exited with status 1")})
	hooks.Notice("third")
	hooks.MCPEvent(mcpclient.Event{Server: "alpha", Kind: mcpclient.EventResourceUpdated, URI: "test://a"})
	opts := &Options{Tools: newFakeTools(), Hooks: hooks}
	_, errb := scriptIO(opts, "")
	hooks.Notice("fifth") // after New, before Run: kept too
	failures(t, New(opts).Run(context.Background()))
	want := "first\n" +
		"mcp alpha: exited with status 1 (/mcp logs alpha)\n" +
		"third\n" +
		"mcp alpha: resource updated: test://a\n" +
		"fifth\n"
	if diff := cmp.Diff(want, errb.String()); diff != "" {
		t.Errorf("stderr (-want +got)\n%s", diff)
	}
	hooks.Notice("after the end") // dropped, not kept for nobody
	if got := errb.String(); strings.Contains(got, "after the end") {
		t.Errorf("a notice after Run was printed:\n%s", got)
	}
}

// TestHooksApprovalWaitsForTheShell: an approval asked before the shell
// runs waits for it and is the shell's to answer; when its ctx ends first,
// or once the shell has ended, it is refused. Nothing is approved for the
// person by default.
func TestHooksApprovalWaitsForTheShell(t *testing.T) {
	ordinary := tools.ApprovalRequest{Tool: "browser_click", PageURL: "https://shop.test/", Args: "ref=e1"}
	sensitive := tools.ApprovalRequest{Tool: "browser_click", PageURL: "https://bank.test/pay", Rule: "banking", Sensitive: true, Args: "ref=e4"}
	type answer struct {
		a   tools.Answer
		err error
	}
	ask := func(h *Hooks, ctx context.Context, req tools.ApprovalRequest) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			a, err := h.Approve(ctx, req)
			ch <- answer{a, err}
		}()
		return ch
	}
	notYet := func(t *testing.T, ch <-chan answer) {
		t.Helper()
		select {
		case got := <-ch:
			t.Fatalf("answered %v (%v) before the shell ran", got.a, got.err)
		case <-time.After(100 * time.Millisecond):
		}
	}

	t.Run("the shell asks", func(t *testing.T) {
		hooks := &Hooks{}
		ch := ask(hooks, context.Background(), sensitive)
		notYet(t, ch)
		opts := &Options{Tools: newFakeTools(), Hooks: hooks, Yes: true} // --yes never covers a sensitive page
		out, _ := scriptIO(opts, "")
		failures(t, New(opts).Run(context.Background()))
		got := <-ch
		if got.a != tools.AnswerNone || got.err != nil {
			t.Errorf("answer = %v, %v; want %v (the script had no answer)", got.a, got.err, tools.AnswerNone)
		}
		for _, line := range []string{"│ page    https://bank.test/pay", "approve? [y/n] "} {
			if !strings.Contains(out.String(), line) {
				t.Errorf("the shell did not ask (%q missing):\n%s", line, out.String())
			}
		}
	})
	t.Run("the shell's --yes", func(t *testing.T) {
		hooks := &Hooks{}
		ch := ask(hooks, context.Background(), ordinary)
		notYet(t, ch)
		opts := &Options{Tools: newFakeTools(), Hooks: hooks, Yes: true}
		out, _ := scriptIO(opts, "")
		failures(t, New(opts).Run(context.Background()))
		if got := <-ch; got.a != tools.AnswerOnce || got.err != nil {
			t.Errorf("answer = %v, %v; want %v by the shell's --yes", got.a, got.err, tools.AnswerOnce)
		}
		if !strings.Contains(out.String(), "approved by --yes: browser_click https://shop.test/") {
			t.Errorf("the shell did not say it approved:\n%s", out.String())
		}
	})
	t.Run("ctx ends first", func(t *testing.T) {
		hooks := &Hooks{}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		got := <-ask(hooks, ctx, ordinary)
		if got.a != tools.AnswerDeny || !errors.Is(got.err, context.DeadlineExceeded) {
			t.Errorf("answer = %v, %v; want %v with the deadline", got.a, got.err, tools.AnswerDeny)
		}
	})
	t.Run("after the shell ended", func(t *testing.T) {
		hooks := &Hooks{}
		opts := &Options{Tools: newFakeTools(), Hooks: hooks, Yes: true}
		scriptIO(opts, "")
		failures(t, New(opts).Run(context.Background()))
		got := <-ask(hooks, context.Background(), ordinary)
		if got.a != tools.AnswerDeny || !errors.Is(got.err, errShellEnded) {
			t.Errorf("answer = %v, %v; want %v: the shell has ended", got.a, got.err, tools.AnswerDeny)
		}
	})
}

// TestHooksServeOneShell: one Hooks cannot be bound to two shells, which
// would answer each other's questions.
func TestHooksServeOneShell(t *testing.T) {
	hooks := &Hooks{}
	New(&Options{Hooks: hooks})
	defer func() {
		if recover() == nil {
			t.Error("a second New with the same Hooks did not panic")
		}
	}()
	New(&Options{Hooks: hooks})
}

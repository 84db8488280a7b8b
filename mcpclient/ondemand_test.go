package mcpclient

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOnDemandServer: a server named by OnDemand stays idle through Start
// (no transport dialled), starts on the first call that needs it, and Idle
// returns it there; an Adjust that sets Err fails the start instead of
// running the server with a config it refused.
func TestOnDemandServer(t *testing.T) {
	f := newFixture()
	var dials atomic.Int32
	refuse := atomic.Bool{}
	opts := &Options{
		OnDemand: func(name string) bool { return name == "lazy" },
		Adjust: func(name string, sc *ServerConfig) {
			if refuse.Load() {
				sc.Err = errors.New("unavailable: no browser")
			}
		},
		Dial: func(name string, sc *ServerConfig) (mcp.Transport, error) {
			dials.Add(1)
			return f.dial(name, sc)
		},
	}
	cfg := &Config{Servers: map[string]*ServerConfig{
		"lazy":  {Name: "lazy", Command: "x"},
		"eager": {Name: "eager", Command: "x"},
	}}
	m := startManager(t, cfg, opts)
	waitReady(t, m, "eager")
	if st := must(m.ServerStatus("lazy")); st.State != StateIdle || dials.Load() != 1 {
		t.Fatalf("after Start: lazy is %s with %d dials, want idle and only eager dialled", st.State, dials.Load())
	}
	if err := m.WaitAll(context.Background()); err != nil {
		t.Fatalf("WaitAll waits for an idle server: %v", err)
	}
	if n := len(must(m.ServerTools("lazy"))); n != 0 {
		t.Fatalf("an idle server lists %d tools", n)
	}
	if r := call(t, m, "mcp__lazy__echo", `{"message":"hi"}`); r.Text != "hi" {
		t.Fatalf("echo = %q", r.Text)
	}
	if st := must(m.ServerStatus("lazy")); st.State != StateReady {
		t.Fatalf("after a call: %s, want ready", st.State)
	}
	if err := m.Idle(context.Background(), "lazy"); err != nil {
		t.Fatal(err)
	}
	if st := must(m.ServerStatus("lazy")); st.State != StateIdle || st.Tools != 0 {
		t.Fatalf("after Idle: %s with %d tools", st.State, st.Tools)
	}
	refuse.Store(true)
	before := dials.Load()
	err := m.WaitReady(context.Background(), "lazy")
	if err == nil || !strings.Contains(err.Error(), "unavailable: no browser") || dials.Load() != before {
		t.Fatalf("start refused by Adjust: %v after %d more dials; want the refusal, nothing dialled", err, dials.Load()-before)
	}
}

package mcpclient

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browseragent/browseragent/mcpclient/internal/faultproxy"
)

// healFixture is server-everything in mode behind a fault proxy, and a
// manager connected through it that records every state it reports.
type healFixture struct {
	proxy *faultproxy.Proxy
	m     *Manager
	mu    sync.Mutex
	errs  []string // EventState errors: a healing server must report none
}

func newHealFixture(t *testing.T, mode string) *healFixture {
	t.Helper()
	requireNode(t)
	var base string
	if mode == "sse" {
		base = startEverything(t, mode)
	} else {
		base = sharedEverything(t)
	}
	p, err := faultproxy.New(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	f := &healFixture{proxy: p}
	sc := &ServerConfig{Name: "everything", URL: p.URL + "/mcp"}
	if mode == "sse" {
		sc.Type, sc.URL = TypeSSE, p.URL+"/sse"
	}
	opts := &Options{OnEvent: func(e Event) {
		if e.Kind == EventState && e.State == StateError {
			f.mu.Lock()
			f.errs = append(f.errs, e.Err.Error())
			f.mu.Unlock()
		}
	}}
	f.m = startManager(t, &Config{Servers: map[string]*ServerConfig{"everything": sc}}, opts)
	waitReady(t, f.m, "everything")
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.errs) > 0 {
			t.Errorf("the server went to error while healing: %q", f.errs)
		}
	})
	return f
}

func (f *healFixture) echo(t *testing.T, text string) {
	t.Helper()
	r := call(t, f.m, "mcp__everything__echo", `{"message":"`+text+`"}`)
	if r.Text != "Echo: "+text {
		t.Fatalf("echo = %q", r.Text)
	}
}

// waitStatus waits for the server's status to satisfy ok.
func (f *healFixture) waitStatus(t *testing.T, what string, ok func(Status) bool) Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := must(f.m.ServerStatus("everything"))
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			reqs := f.proxy.Requests()
			t.Fatalf("status never became %s: %+v\nlast requests: %+v", what, st, reqs[max(0, len(reqs)-10):])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func shorterBackoff(t *testing.T) {
	base, maxd := healBaseDelay, healMaxDelay
	healBaseDelay, healMaxDelay = 50*time.Millisecond, 400*time.Millisecond
	t.Cleanup(func() { healBaseDelay, healMaxDelay = base, maxd })
}

// TestHealSessionExpired: when the server answers 404 for the session, the
// call is sent again on a new session and succeeds; the person sees no
// error. Before: the server was "error" until /mcp restart.
func TestHealSessionExpired(t *testing.T) {
	parallel(t)
	f := newHealFixture(t, "streamableHttp")
	f.echo(t, "before")
	inits := f.proxy.Count(func(r faultproxy.Request) bool { return r.RPCMethod == "initialize" })
	f.proxy.ExpireAll()
	f.echo(t, "after") // the first POST gets 404, the retry works
	if n := f.proxy.Count(func(r faultproxy.Request) bool { return r.RPCMethod == "initialize" }); n != inits+1 {
		t.Errorf("initialize sent %d times after the expiry, want 1 more than %d", n, inits)
	}
	calls := 0
	for _, r := range f.proxy.Requests() {
		if r.RPCMethod == "tools/call" {
			calls++
		}
	}
	if calls != 3 { // before, the expired one (404), its retry
		t.Errorf("tools/call sent %d times, want 3: %+v", calls, f.proxy.Requests())
	}
	if st := must(f.m.ServerStatus("everything")); st.State != StateReady || st.Reconnecting != 0 {
		t.Errorf("status after healing = %s %v", st.StateText(), st.Err)
	}
	// The healed session is a full one: lists refresh and the GET stream
	// is open on the new session.
	f.echo(t, "again")
}

// TestHealInFlightCallSaysItMayHaveRun: a call whose session ends while it
// runs is answered plainly (it may have run), not retried, and the next
// call works.
func TestHealInFlightCallSaysItMayHaveRun(t *testing.T) {
	parallel(t)
	f := newHealFixture(t, "streamableHttp")
	done := make(chan error, 1)
	go func() {
		_, err := f.m.CallTool(context.Background(), "mcp__everything__trigger-long-running-operation", json.RawMessage(`{"duration":3,"steps":3}`))
		done <- err
	}()
	time.Sleep(700 * time.Millisecond) // the call's stream is open
	f.proxy.ExpireAll()
	f.proxy.DropStreams()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "may have run") {
			t.Errorf("in-flight call: %v, want an error saying it may have run", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the in-flight call never returned")
	}
	f.echo(t, "next")
}

// TestHeal500Once: a 500 fails that one call, saying so, and the server
// stays up; a 500 on the GET stream is retried.
func TestHeal500Once(t *testing.T) {
	parallel(t)
	f := newHealFixture(t, "streamableHttp")
	f.proxy.Fail500("tools/call", 1)
	_, err := f.m.CallTool(context.Background(), "mcp__everything__echo", json.RawMessage(`{"message":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "Internal Server Error") {
		t.Errorf("call answered 500: %v, want the status in the error", err)
	}
	f.echo(t, "after the 500")
	f.proxy.Fail500("GET", 1)
	f.proxy.DropStreams()
	f.waitStatus(t, "stream back", func(Status) bool {
		return f.proxy.Count(func(r faultproxy.Request) bool { return r.Method == "GET" && r.Status == 200 }) >= 2
	})
	f.echo(t, "after the GET 500")
}

// TestHealIdleStream: a proxy that cuts idle streams cuts the GET stream
// again and again; it is reopened each time (more than the SDK's 5
// attempts) and the server stays ready. While GETs are refused, /mcp says
// "reconnecting (n)", and the count starts again once one works.
func TestHealIdleStream(t *testing.T) {
	shorterBackoff(t)
	f := newHealFixture(t, "streamableHttp")
	gets := func() int {
		return f.proxy.Count(func(r faultproxy.Request) bool { return r.Method == "GET" && r.Status == 200 })
	}
	f.proxy.SetIdleTimeout(150 * time.Millisecond)
	f.proxy.DropStreams() // the open one started without the timeout
	deadline := time.Now().Add(60 * time.Second)
	for gets() < 9 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("only %d GET streams opened: %+v\n%s", gets(), f.proxy.Requests(), buf)
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.proxy.SetIdleTimeout(0)
	f.echo(t, "still here")

	f.proxy.RefuseStreams(true)
	f.proxy.DropStreams()
	st := f.waitStatus(t, "reconnecting (3)", func(st Status) bool { return st.Reconnecting >= 3 })
	if st.State != StateReady || !strings.HasPrefix(st.StateText(), "reconnecting (") {
		t.Errorf("while refused: %s (%v)", st.StateText(), st.Err)
	}
	f.echo(t, "calls work while the stream heals")
	f.proxy.RefuseStreams(false)
	f.waitStatus(t, "whole again", func(st Status) bool { return st.Reconnecting == 0 })
}

// TestHealLegacySSE: legacy SSE has no resumption; each drop of its
// stream makes a new session, and calls go on working. Before: the first
// drop ended the server ("connection closed: <nil>").
func TestHealLegacySSE(t *testing.T) {
	parallel(t)
	f := newHealFixture(t, "sse")
	f.echo(t, "first")
	for i := range 3 {
		if n := f.proxy.DropStreams(); n == 0 {
			t.Fatalf("drop %d: no stream to drop", i)
		}
		f.waitStatus(t, "whole", func(st Status) bool {
			return st.Reconnecting == 0 && f.proxy.Count(func(r faultproxy.Request) bool { return r.RPCMethod == "initialize" }) == i+2
		})
		f.echo(t, "after drop")
	}
}

// TestBackoff: capped exponential with jitter in [d/2, d].
func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 7: 30 * time.Second, 1000: 30 * time.Second} {
		for range 50 {
			if d := backoff(n); d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %s, want in [%s, %s]", n, d, want/2, want)
			}
		}
	}
}

// TestResourceReadAlwaysReads: two reads of a dynamic resource a second
// apart send two resources/read and no resources/subscribe, and see two
// timestamps. Before: the first read subscribed and the second was served
// from the cache. A watched resource is kept until resources/updated.
func TestResourceReadAlwaysReads(t *testing.T) {
	parallel(t)
	f := newHealFixture(t, "streamableHttp")
	ctx := context.Background()
	count := func(method string) int {
		return f.proxy.Count(func(r faultproxy.Request) bool { return r.RPCMethod == method })
	}
	const uri = "demo://resource/dynamic/text/1"
	first := must(f.m.ReadResource(ctx, "everything", uri)).Text
	time.Sleep(1100 * time.Millisecond) // its timestamp has seconds
	second := must(f.m.ReadResource(ctx, "everything", uri)).Text
	if first == second {
		t.Errorf("two reads a second apart returned the same content: %q", first)
	}
	if n := count("resources/read"); n != 2 {
		t.Errorf("resources/read sent %d times, want 2", n)
	}
	if n := count("resources/subscribe"); n != 0 {
		t.Errorf("a read subscribed (%d resources/subscribe)", n)
	}

	// Watched: kept between updates, read again after one.
	if err := f.m.Subscribe(ctx, "everything", uri); err != nil {
		t.Fatal(err)
	}
	a := must(f.m.ReadResource(ctx, "everything", uri)).Text
	time.Sleep(1100 * time.Millisecond)
	if b := must(f.m.ReadResource(ctx, "everything", uri)).Text; b != a {
		t.Errorf("a watched resource with no update was read again: %q then %q", a, b)
	}
	reads := count("resources/read")
	call(t, f.m, "mcp__everything__toggle-subscriber-updates", `{}`) // sends an update now, then every 5 s
	defer call(t, f.m, "mcp__everything__toggle-subscriber-updates", `{}`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c := must(f.m.ReadResource(ctx, "everything", uri)).Text
		if c != a && count("resources/read") > reads {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the update never made the next read fetch the resource again")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

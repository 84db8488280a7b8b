package mcpclient

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEverythingHostStdio and TestEverythingHostHTTP run the reference
// server's elicitation, sampling, roots, progress, logging and
// subscription tools over both transports.
func TestEverythingHostStdio(t *testing.T) {
	parallel(t)
	requireNode(t)
	hk := &hostHooks{}
	cfg := &Config{Servers: map[string]*ServerConfig{
		"everything": {Name: "everything", Command: "npx", Args: []string{"-y", EverythingPackage}},
	}}
	m := startManager(t, cfg, hk.options(t, &Options{InitTimeout: 120 * time.Second}))
	waitReady(t, m, "everything")
	exerciseHost(t, m, hk)
}

func TestEverythingHostHTTP(t *testing.T) {
	parallel(t)
	requireNode(t)
	url := startEverythingHTTP(t)
	hk := &hostHooks{}
	cfg := &Config{Servers: map[string]*ServerConfig{"everything": {Name: "everything", URL: url}}}
	m := startManager(t, cfg, hk.options(t, &Options{}))
	waitReady(t, m, "everything")
	exerciseHost(t, m, hk)
}

// hostHooks records what the manager's hooks saw; elicit decides answers.
type hostHooks struct {
	mu       sync.Mutex
	elicit   func(*Elicitation) (*mcp.ElicitResult, error)
	elicited []*Elicitation
	sampled  []*SampleRequest
	progress []Progress
	logs     *logSink
	updates  chan string
	root     string
}

func (h *hostHooks) options(t *testing.T, o *Options) *Options {
	h.logs = newLogSink()
	h.updates = make(chan string, 16)
	h.root = t.TempDir()
	o.Roots = []string{h.root}
	o.OnLog = h.logs.add
	o.Elicit = func(_ context.Context, e *Elicitation) (*mcp.ElicitResult, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.elicited = append(h.elicited, e)
		return h.elicit(e)
	}
	o.Sample = func(_ context.Context, r *SampleRequest) (*mcp.CreateMessageResult, error) {
		h.mu.Lock()
		h.sampled = append(h.sampled, r)
		h.mu.Unlock()
		return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "sampled answer"}, Model: "test-model", Role: "assistant"}, nil
	}
	o.OnProgress = func(p Progress) {
		h.mu.Lock()
		h.progress = append(h.progress, p)
		h.mu.Unlock()
	}
	o.OnEvent = func(e Event) {
		if e.Kind == EventResourceUpdated {
			h.updates <- e.URI
		}
	}
	return o
}

func (h *hostHooks) setElicit(fn func(*Elicitation) (*mcp.ElicitResult, error)) {
	h.mu.Lock()
	h.elicit = fn
	h.mu.Unlock()
}

func exerciseHost(t *testing.T, m *Manager, h *hostHooks) {
	ctx := context.Background()
	have := map[string]bool{}
	for _, tool := range must(m.ServerTools("everything")) {
		have[tool.RawName] = true
	}
	for _, want := range []string{"trigger-elicitation-request", "trigger-sampling-request", "get-roots-list", "trigger-long-running-operation", "toggle-simulated-logging", "toggle-subscriber-updates", "trigger-url-elicitation"} {
		if !have[want] {
			t.Fatalf("tool %s missing (the server registers some only for clients that offer the feature): %v", want, have)
		}
	}
	raw := func(tool, args string) *Result {
		t.Helper()
		r, err := m.CallServerTool(ctx, "everything", tool, []byte(args))
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return r
	}

	t.Run("elicitation", func(t *testing.T) {
		auto := AutoElicit(true)
		h.setElicit(func(e *Elicitation) (*mcp.ElicitResult, error) { return auto(ctx, e) })
		if r := raw("trigger-elicitation-request", `{}`); !strings.Contains(r.Text, "declined") {
			t.Errorf("accept with a required field and no default: %q", r.Text)
		}
		h.logs.wait(t, "name have no default")
		h.setElicit(func(e *Elicitation) (*mcp.ElicitResult, error) {
			content := map[string]any{"name": "Ada"}
			for _, f := range e.Fields {
				if f.Default != nil {
					content[f.Name] = f.Default
				}
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		})
		r := raw("trigger-elicitation-request", `{}`)
		for _, want := range []string{"User provided the requested information", "Name: Ada", "Favorite Integer: 42"} {
			if !strings.Contains(r.Text, want) {
				t.Errorf("accepted form: %q lacks %q", r.Text, want)
			}
		}
		h.mu.Lock()
		e := h.elicited[len(h.elicited)-1]
		h.mu.Unlock()
		if e.Mode != "form" || len(e.Fields) < 10 || e.Fields[0].Name != "name" || !e.Fields[0].Required {
			t.Errorf("elicitation as seen by the hook: mode %q, %d fields, first %+v", e.Mode, len(e.Fields), e.Fields[0])
		}
	})

	t.Run("URL elicitation", func(t *testing.T) {
		args := `{"url":"https://example.test/authorize","message":"Authorize the demo"}`
		auto := AutoElicit(true)
		h.setElicit(func(e *Elicitation) (*mcp.ElicitResult, error) { return auto(ctx, e) })
		if r := raw("trigger-url-elicitation", args); !strings.Contains(r.Text, "declined to open the URL") {
			t.Errorf("URL mode without a person: %q", r.Text)
		}
		h.logs.wait(t, "needs a person to open it")
		var seen *Elicitation
		h.setElicit(func(e *Elicitation) (*mcp.ElicitResult, error) {
			seen = e
			return &mcp.ElicitResult{Action: "accept"}, nil
		})
		if r := raw("trigger-url-elicitation", args); !strings.Contains(r.Text, "User completed the URL elicitation flow") {
			t.Errorf("URL mode accepted: %q", r.Text)
		}
		if seen == nil || seen.Mode != "url" || seen.URL != "https://example.test/authorize" || seen.ID == "" || seen.Message != "Authorize the demo" {
			t.Errorf("URL elicitation as seen by the hook: %+v", seen)
		}
	})

	t.Run("sampling", func(t *testing.T) {
		r := raw("trigger-sampling-request", `{"prompt":"say hi","maxTokens":5}`)
		if !strings.Contains(r.Text, "sampled answer") {
			t.Errorf("sampling: %q", r.Text)
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(h.sampled) != 1 || !strings.Contains(SampleText(h.sampled[0].Params), "say hi") {
			t.Errorf("sampled: %+v", h.sampled)
		}
	})

	t.Run("roots", func(t *testing.T) {
		want := must(RootsFor([]string{h.root}))[0].URI
		if r := raw("get-roots-list", `{}`); !strings.Contains(r.Text, want) {
			t.Errorf("roots: %q lacks %q", r.Text, want)
		}
		other := t.TempDir()
		if err := m.setRoots([]string{h.root, other}); err != nil {
			t.Fatal(err)
		}
		otherURI := must(RootsFor([]string{other}))[0].URI
		deadline := time.Now().Add(10 * time.Second)
		for r := raw("get-roots-list", `{}`); !strings.Contains(r.Text, otherURI); r = raw("get-roots-list", `{}`) {
			if time.Now().After(deadline) {
				t.Fatalf("after SetRoots: %q lacks %q", r.Text, otherURI)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("progress", func(t *testing.T) {
		r := raw("trigger-long-running-operation", `{"duration":0.6,"steps":3}`)
		if !strings.Contains(r.Text, "Long running operation completed") {
			t.Errorf("long-running: %q", r.Text)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			h.mu.Lock()
			got := fmt.Sprint(h.progress)
			n := len(h.progress)
			h.mu.Unlock()
			if n >= 3 {
				if !strings.Contains(got, "3 3") {
					t.Errorf("progress events: %s", got)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("progress events: %s", got)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		h.mu.Lock()
		before := len(h.progress)
		h.mu.Unlock()
		errc := make(chan error, 1)
		go func() {
			_, err := m.CallServerTool(cctx, "everything", "trigger-long-running-operation", []byte(`{"duration":30,"steps":60}`))
			errc <- err
		}()
		// The call is under way once its first progress arrives.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			h.mu.Lock()
			n := len(h.progress)
			h.mu.Unlock()
			if n > before {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the long-running call reported no progress")
			}
		}
		cancel()
		select {
		case err := <-errc:
			if err == nil || !strings.Contains(err.Error(), "canceled") {
				t.Errorf("cancelled call: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("cancelled call did not return")
		}
		if r := raw("echo", `{"message":"still here"}`); r.Text != "Echo: still here" {
			t.Errorf("after cancel: %q", r.Text)
		}
	})

	t.Run("logging", func(t *testing.T) {
		if err := m.SetLogLevel(ctx, "everything", "debug"); err != nil {
			t.Fatal(err)
		}
		n := h.logs.count()
		raw("toggle-simulated-logging", `{}`)
		msg := h.logs.waitServer(t, n, "message") // "Debug-level message", "Alert level-message"…
		raw("toggle-simulated-logging", `{}`)
		if !contains(LogLevels, msg.Level) || msg.Server != "everything" {
			t.Errorf("log message %+v", msg)
		}
		if lines := strings.Join(must(m.Logs("everything")), "\n"); !strings.Contains(lines, "[log ") {
			t.Errorf("logs lack the server's messages:\n%s", lines)
		}
	})

	t.Run("subscription", func(t *testing.T) {
		resources, _ := must2(m.Resources("everything"))
		uri := resources[0].URI
		if err := m.Subscribe(ctx, "everything", uri); err != nil {
			t.Fatal(err)
		}
		raw("toggle-subscriber-updates", `{}`)
		defer raw("toggle-subscriber-updates", `{}`)
		select {
		case got := <-h.updates:
			if got != uri {
				t.Errorf("updated %q, want %q", got, uri)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("no resources/updated after subscribe")
		}
		if err := m.Unsubscribe(ctx, "everything", uri); err != nil {
			t.Error(err)
		}
	})
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostServer is an in-process go-sdk server whose tools make requests of
// the client: elicitation, sampling, roots, progress and logging.
type hostServer struct {
	srv          *mcp.Server
	rootsChanged chan struct{}
}

func newHostServer() *hostServer {
	h := &hostServer{rootsChanged: make(chan struct{}, 8)}
	h.srv = mcp.NewServer(&mcp.Implementation{Name: "host-fixture", Version: "1"}, &mcp.ServerOptions{
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) { h.rootsChanged <- struct{}{} },
		CompletionHandler: func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			var vals []string
			for _, c := range []string{"Paris", "Perth", "Oslo"} {
				if strings.HasPrefix(c, r.Params.Argument.Value) {
					vals = append(vals, c)
				}
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: vals}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	tool := func(name string, fn func(context.Context, *mcp.CallToolRequest, map[string]any) (string, error)) {
		h.srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(r.Params.Arguments, &args)
			out, err := fn(ctx, r, args)
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			return text(out), nil
		})
	}
	tool("ask", func(ctx context.Context, r *mcp.CallToolRequest, args map[string]any) (string, error) {
		res, err := r.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Tell me", RequestedSchema: args["schema"]})
		if err != nil {
			return "", err
		}
		b, _ := json.Marshal(res.Content)
		return res.Action + " " + string(b), nil
	})
	tool("sample", func(ctx context.Context, r *mcp.CallToolRequest, args map[string]any) (string, error) {
		var msgs []*mcp.SamplingMessage
		if args["text"] != nil {
			msgs = append(msgs, &mcp.SamplingMessage{Role: "user", Content: &mcp.TextContent{Text: args["text"].(string)}})
		}
		res, err := r.Session.CreateMessage(ctx, &mcp.CreateMessageParams{Messages: msgs, MaxTokens: 10})
		if err != nil {
			return "", err
		}
		return ContentText(res.Content), nil
	})
	tool("roots", func(ctx context.Context, r *mcp.CallToolRequest, _ map[string]any) (string, error) {
		res, err := r.Session.ListRoots(ctx, nil)
		if err != nil {
			return "", err
		}
		var uris []string
		for _, root := range res.Roots {
			uris = append(uris, root.URI)
		}
		return strings.Join(uris, " "), nil
	})
	tool("work", func(ctx context.Context, r *mcp.CallToolRequest, _ map[string]any) (string, error) {
		// A stray token first: the client must ignore it.
		_ = r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "not-ours", Progress: 99})
		_ = r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: 12345, Progress: 98})
		tok := r.Params.GetProgressToken()
		for i := 1; i <= 3; i++ {
			_ = r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3, Message: "step"})
		}
		return fmt.Sprint(tok), nil
	})
	tool("log", func(ctx context.Context, r *mcp.CallToolRequest, _ map[string]any) (string, error) {
		_ = r.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Data: "debug detail"})
		_ = r.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Logger: "db", Data: map[string]any{"code": 7}})
		return "logged", nil
	})
	h.srv.AddResource(&mcp.Resource{URI: "test://clock", Name: "clock"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://clock", Text: time.Now().String()}}}, nil
	})
	h.srv.AddPrompt(&mcp.Prompt{Name: "weather", Arguments: []*mcp.PromptArgument{{Name: "city"}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	return h
}

// hostManager runs one hostServer as server "h" with opts.
func hostManager(t *testing.T, opts *Options) (*Manager, *hostServer) {
	t.Helper()
	h := newHostServer()
	opts.Dial = func(string, *ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := h.srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	m := startManager(t, &Config{Servers: map[string]*ServerConfig{"h": {Name: "h", Command: "unused"}}}, opts)
	waitReady(t, m, "h")
	return m, h
}

// logSink collects OnLog messages.
type logSink struct {
	mu   sync.Mutex
	msgs []LogMessage
	got  chan struct{}
}

func newLogSink() *logSink { return &logSink{got: make(chan struct{}, 100)} }

func (l *logSink) add(m LogMessage) {
	l.mu.Lock()
	l.msgs = append(l.msgs, m)
	l.mu.Unlock()
	l.got <- struct{}{}
}

// wait returns the messages once one contains want, or fails after 10s.
func (l *logSink) wait(t *testing.T, want string) []LogMessage {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		msgs := append([]LogMessage(nil), l.msgs...)
		l.mu.Unlock()
		for _, m := range msgs {
			if strings.Contains(m.Text, want) {
				return msgs
			}
		}
		select {
		case <-l.got:
		case <-deadline:
			t.Fatalf("no log message containing %q in %+v", want, msgs)
		}
	}
}

// count is how many messages arrived so far.
func (l *logSink) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.msgs)
}

// waitServer waits for a message from the server itself (not the host),
// after the first n, containing want.
func (l *logSink) waitServer(t *testing.T, n int, want string) LogMessage {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		l.mu.Lock()
		msgs := append([]LogMessage(nil), l.msgs...)
		l.mu.Unlock()
		for _, m := range msgs[min(n, len(msgs)):] {
			if m.Logger != HostLogger && strings.Contains(m.Text, want) {
				return m
			}
		}
		select {
		case <-l.got:
		case <-deadline:
			t.Fatalf("no server log message containing %q after the first %d in %+v", want, n, msgs)
		}
	}
}

func callText(t *testing.T, m *Manager, tool string, args any) *Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	r, err := m.CallServerTool(context.Background(), "h", tool, raw)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return r
}

func TestElicitation(t *testing.T) {
	withDefaults := map[string]any{"type": "object", "required": []any{"city"}, "properties": map[string]any{
		"city":  map[string]any{"type": "string", "default": "Paris"},
		"count": map[string]any{"type": "integer", "default": 3, "minimum": 1},
		"ok":    map[string]any{"type": "boolean", "default": true},
		"size":  map[string]any{"type": "string", "enum": []any{"s", "m"}, "default": "m"},
		"note":  map[string]any{"type": "string"},
	}}
	noDefault := map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{"name": map[string]any{"type": "string"}}}
	for _, tc := range []struct {
		name       string
		accept     bool
		schema     any
		want       string
		wantNotice string
	}{
		{"accept fills defaults", true, withDefaults, `accept {"city":"Paris","count":3,"ok":true,"size":"m"}`, ""},
		{"decline by default", false, withDefaults, "decline null", "non-interactive"},
		{"required without default", true, noDefault, "decline null", "name have no default"},
		{"no type object", true, map[string]any{"properties": map[string]any{}}, "decline null", `"type": "object"`},
		{"enum of numbers", true, map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "string", "enum": []any{1, 2}}}}, "decline null", "enum values must be strings"},
		{"default out of range", true, map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 5, "default": 1}}}, "decline null", "at least 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := newLogSink()
			m, _ := hostManager(t, &Options{Elicit: AutoElicit(tc.accept), OnLog: logs.add})
			r := callText(t, m, "ask", map[string]any{"schema": tc.schema})
			if r.Text != tc.want || r.IsError {
				t.Errorf("ask = %q (isError %v), want %q", r.Text, r.IsError, tc.want)
			}
			if tc.wantNotice != "" {
				msgs := logs.wait(t, tc.wantNotice)
				if msgs[0].Logger != HostLogger {
					t.Errorf("notice %+v not from the host", msgs[0])
				}
				if lines := strings.Join(must(m.Logs("h")), "\n"); !strings.Contains(lines, tc.wantNotice) {
					t.Errorf("logs lack the notice: %s", lines)
				}
			}
		})
	}
}

func TestElicitationNestedSchemaRefused(t *testing.T) {
	called := false
	m, _ := hostManager(t, &Options{Elicit: func(context.Context, *Elicitation) (*mcp.ElicitResult, error) {
		called = true
		return &mcp.ElicitResult{Action: "accept"}, nil
	}})
	nested := map[string]any{"type": "object", "properties": map[string]any{"addr": map[string]any{"type": "object", "properties": map[string]any{"zip": map[string]any{"type": "string"}}}}}
	r := callText(t, m, "ask", map[string]any{"schema": nested})
	if !r.IsError && !strings.HasPrefix(r.Text, "decline") {
		t.Errorf("nested schema answered %q", r.Text)
	}
	if called {
		t.Error("the hook saw an invalid schema")
	}
	if r := callText(t, m, "ask", map[string]any{"schema": map[string]any{"type": "object", "properties": map[string]any{}}}); r.Text != "accept null" {
		t.Errorf("after a bad request the host answers %q", r.Text)
	}
}

func TestElicitationNotOffered(t *testing.T) {
	m, _ := hostManager(t, &Options{})
	r := callText(t, m, "ask", map[string]any{"schema": map[string]any{"type": "object"}})
	if !r.IsError || !strings.Contains(r.Text, "does not support elicitation") {
		t.Errorf("ask without Elicit = %+v", r)
	}
}

func TestSampling(t *testing.T) {
	var got []*SampleRequest
	var mu sync.Mutex
	logs := newLogSink()
	m, _ := hostManager(t, &Options{OnLog: logs.add, Sample: func(_ context.Context, r *SampleRequest) (*mcp.CreateMessageResult, error) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
		if SampleText(r.Params) == "user: no" {
			return nil, fmt.Errorf("%w: the person said no", ErrDeclined)
		}
		return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "answer"}, Model: "m", Role: "assistant"}, nil
	}})
	for _, tc := range []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"answered", map[string]any{"text": "question"}, "answer", false},
		{"declined", map[string]any{"text": "no"}, "rejected: declined: the person said no", true},
		{"no messages", map[string]any{}, "needs at least one message", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := callText(t, m, "sample", tc.args)
			if r.IsError != tc.isError || !strings.Contains(r.Text, tc.want) {
				t.Errorf("sample = %q (isError %v), want %q", r.Text, r.IsError, tc.want)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].Server != "h" {
		t.Errorf("hook saw %d requests; the empty one must not reach it", len(got))
	}
	logs.wait(t, "no messages")
}

func TestProgress(t *testing.T) {
	var mu sync.Mutex
	var got []Progress
	done := make(chan struct{})
	m, _ := hostManager(t, &Options{OnProgress: func(p Progress) {
		mu.Lock()
		got = append(got, p)
		n := len(got)
		mu.Unlock()
		if n == 3 {
			close(done)
		}
	}})
	ctx := context.Background()
	r, err := m.CallServerTool(ctx, "h", "work", nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("progress not delivered")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []Progress{
		{Server: "h", Token: r.Text, Progress: 1, Total: 3, Message: "step"},
		{Server: "h", Token: r.Text, Progress: 2, Total: 3, Message: "step"},
		{Server: "h", Token: r.Text, Progress: 3, Total: 3, Message: "step"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("OnProgress (-want +got):\n%s", d)
	}
	if n := m.host.ignored.Load(); n != 2 {
		t.Errorf("%d notifications ignored, want 2 (unknown tokens)", n)
	}
	if s := want[1].String(); s != "step 2/3" {
		t.Errorf("String = %q", s)
	}
}

func TestRoots(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	m, h := hostManager(t, &Options{Roots: []string{a}})
	uri := func(d string) string { return must(RootsFor([]string{d}))[0].URI }
	if got := callText(t, m, "roots", nil).Text; got != uri(a) {
		t.Errorf("roots = %q, want %q", got, uri(a))
	}
	if err := m.setRoots([]string{a, b}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.rootsChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no roots/list_changed after SetRoots")
	}
	if got := callText(t, m, "roots", nil).Text; got != uri(a)+" "+uri(b) {
		t.Errorf("roots after SetRoots = %q", got)
	}
	if err := m.setRoots([]string{a, "/no/such/dir"}); err == nil || !strings.Contains(err.Error(), "/no/such/dir") {
		t.Errorf("SetRoots with a missing dir: %v", err)
	}
	if !strings.HasPrefix(uri(a), "file:///") {
		t.Errorf("root URI %q", uri(a))
	}
}

func TestRootsDefaultToWorkingDir(t *testing.T) {
	m, _ := hostManager(t, &Options{})
	wd, _ := os.Getwd()
	if got, want := callText(t, m, "roots", nil).Text, must(RootsFor([]string{wd}))[0].URI; got != want {
		t.Errorf("roots = %q, want %q", got, want)
	}
}

func TestLogLevelAndMessages(t *testing.T) {
	logs := newLogSink()
	m, _ := hostManager(t, &Options{OnLog: logs.add})
	ctx := context.Background()
	if err := m.SetLogLevel(ctx, "h", "loud"); err == nil || !strings.Contains(err.Error(), "debug, info") {
		t.Errorf("bad level: %v", err)
	}
	if err := m.SetLogLevel(ctx, "h", "ERROR"); err != nil {
		t.Fatal(err)
	}
	callText(t, m, "log", nil)
	logs.wait(t, `{"code":7}`)
	if err := m.SetLogLevel(ctx, "h", "debug"); err != nil {
		t.Fatal(err)
	}
	callText(t, m, "log", nil)
	msgs := logs.wait(t, "debug detail")
	if d := cmp.Diff(LogMessage{Server: "h", Level: "error", Logger: "db", Text: `{"code":7}`}, msgs[0]); d != "" {
		t.Errorf("first message (-want +got):\n%s", d)
	}
	lines := strings.Join(must(m.Logs("h")), "\n")
	for _, want := range []string{`[log error db] {"code":7}`, "[log debug] debug detail"} {
		if !strings.Contains(lines, want) {
			t.Errorf("logs lack %q:\n%s", want, lines)
		}
	}
	if strings.Count(lines, "debug detail") != 1 {
		t.Errorf("debug message sent below the level, or twice:\n%s", lines)
	}
}

func TestComplete(t *testing.T) {
	m, _ := hostManager(t, &Options{})
	got, err := m.Complete(context.Background(), "h", PromptRef("weather"), "city", "P", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Paris", "Perth"}, got); d != "" {
		t.Errorf("complete (-want +got):\n%s", d)
	}
	if _, err := m.Complete(context.Background(), "nope", PromptRef("weather"), "city", "P", nil); !errors.Is(err, errUnknownServer) {
		t.Errorf("unknown server: %v", err)
	}
}

func TestSubscribe(t *testing.T) {
	events := make(chan Event, 16)
	m, h := hostManager(t, &Options{OnEvent: func(e Event) {
		if e.Kind == EventResourceUpdated {
			events <- e
		}
	}})
	ctx := context.Background()
	if err := m.Subscribe(ctx, "h", "test://clock"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"test://clock"}, m.Watched("h")); d != "" {
		t.Errorf("watched (-want +got):\n%s", d)
	}
	first := must(m.ReadResource(ctx, "h", "test://clock")).Text
	if again := must(m.ReadResource(ctx, "h", "test://clock")).Text; again != first {
		t.Errorf("watched resource not cached: %q then %q", first, again)
	}
	_ = h.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://clock"})
	select {
	case e := <-events:
		if e.Server != "h" || e.URI != "test://clock" {
			t.Errorf("event %+v", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no resource-updated event")
	}
	select {
	case e := <-events:
		t.Errorf("second event for one update: %+v", e)
	case <-time.After(200 * time.Millisecond):
	}
	if after := must(m.ReadResource(ctx, "h", "test://clock")).Text; after == first {
		t.Error("cache not invalidated by resources/updated")
	}
	if err := m.Unsubscribe(ctx, "h", "test://clock"); err != nil {
		t.Fatal(err)
	}
	if w := m.Watched("h"); len(w) != 0 {
		t.Errorf("still watched: %v", w)
	}
}

package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browseragent/browseragent/media"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixture is an in-process go-sdk server with one of each content kind.
type fixture struct {
	srv       *mcp.Server
	mu        sync.Mutex
	hello     string
	cancelled chan struct{}
}

func newFixture() *fixture {
	f := &fixture{hello: "hello v1", cancelled: make(chan struct{}, 1)}
	f.srv = mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, &mcp.ServerOptions{
		PageSize:           3, // lists come in several pages: the client must follow cursors
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	type echoIn struct {
		Message string `json:"message" jsonschema:"what to echo"`
	}
	ro, destructive := true, true
	mcp.AddTool(f.srv, &mcp.Tool{Name: "echo", Description: "Echo", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ro}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	f.raw("delete_all", &mcp.ToolAnnotations{DestructiveHint: &destructive}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("deleted"), nil
	})
	f.raw("image", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a pixel"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG")}}}, nil
	})
	f.raw("fail", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such page: 7"}}}, nil
	})
	f.raw("structured", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"n": 3}}, nil
	})
	f.raw("embed", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://doc", MIMEType: "text/plain", Text: "doc body"}},
			&mcp.ResourceLink{URI: "test://other", Name: "other", MIMEType: "text/html"},
		}}, nil
	})
	f.raw("slow", nil, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		f.cancelled <- struct{}{}
		return nil, ctx.Err()
	})
	f.raw("add_tool", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.raw("added", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("I am new"), nil })
		return text("ok"), nil
	})
	f.srv.AddResource(&mcp.Resource{URI: "test://hello", Name: "hello", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://hello", MIMEType: "text/plain", Text: f.hello}}}, nil
		})
	f.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "item " + strings.TrimPrefix(r.Params.URI, "test://items/")}}}, nil
		})
	f.srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + r.Params.Arguments["name"]}}}}, nil
		})
	return f
}

func (f *fixture) raw(name string, ann *mcp.ToolAnnotations, h mcp.ToolHandler) {
	f.srv.AddTool(&mcp.Tool{Name: name, Description: name, InputSchema: map[string]any{"type": "object"}, Annotations: ann}, h)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func (f *fixture) setHello(ctx context.Context, s string) {
	f.mu.Lock()
	f.hello = s
	f.mu.Unlock()
	_ = f.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://hello"})
}

// dial connects every server name in cfg to f over in-memory transports.
func (f *fixture) dial(name string, sc *ServerConfig) (mcp.Transport, error) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := f.srv.Connect(context.Background(), st, nil); err != nil {
		return nil, err
	}
	return ct, nil
}

func fixtureManager(t *testing.T, opts *Options, servers ...*ServerConfig) (*Manager, *fixture) {
	t.Helper()
	f := newFixture()
	cfg := &Config{Servers: map[string]*ServerConfig{}}
	if len(servers) == 0 {
		servers = []*ServerConfig{{Command: "unused"}}
	}
	for _, sc := range servers {
		if sc.Name == "" {
			sc.Name = "fx"
		}
		cfg.Servers[sc.Name] = sc
	}
	if opts == nil {
		opts = &Options{}
	}
	opts.Dial = f.dial
	m := startManager(t, cfg, opts)
	for _, sc := range servers {
		if !sc.Disabled && sc.Err == nil {
			waitReady(t, m, sc.Name)
		}
	}
	return m, f
}

func call(t *testing.T, m *Manager, tool, args string) *Result {
	t.Helper()
	r, err := m.CallTool(context.Background(), tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return r
}

func TestToolsAndResults(t *testing.T) {
	m, _ := fixtureManager(t, nil)
	var names []string
	for _, tool := range m.Tools() {
		names = append(names, tool.Name)
	}
	want := []string{"mcp__fx__add_tool", "mcp__fx__delete_all", "mcp__fx__echo", "mcp__fx__embed", "mcp__fx__fail",
		"mcp__fx__image", "mcp__fx__slow", "mcp__fx__structured", "mcp__fx__list_resources", "mcp__fx__read_resource"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	echo, _ := m.lookup("mcp__fx__echo")
	if echo.ReadOnlyHint == nil || !*echo.ReadOnlyHint || echo.DestructiveHint != nil {
		t.Errorf("echo hints = %v %v, want readOnly true, destructive unset", echo.ReadOnlyHint, echo.DestructiveHint)
	}
	del, _ := m.lookup("mcp__fx__delete_all")
	if del.DestructiveHint == nil || !*del.DestructiveHint {
		t.Errorf("delete_all destructive hint = %v", del.DestructiveHint)
	}
	if props := echo.InputSchema["properties"].(map[string]any); props["message"] == nil {
		t.Errorf("echo schema = %v", echo.InputSchema)
	}

	tests := []struct {
		tool, args string
		want       Result
	}{
		{"mcp__fx__echo", `{"message":"hi"}`, Result{Text: "hi"}},
		{"mcp__fx__image", ``, Result{Text: "a pixel", Images: []media.Image{{MIME: "image/png", Data: []byte("\x89PNG")}}}},
		{"mcp__fx__fail", `{}`, Result{Text: "no such page: 7", IsError: true}},
		{"mcp__fx__structured", `{}`, Result{Text: `{"n":3}`, Structured: json.RawMessage(`{"n":3}`)}},
		{"mcp__fx__embed", `{}`, Result{
			Text:  "<resource uri=\"test://doc\" mime=\"text/plain\">doc body</resource>\nResources:\n- other <test://other> (text/html)",
			Links: []Link{{URI: "test://other", Name: "other", MIME: "text/html"}},
		}},
	}
	for _, tc := range tests {
		got := call(t, m, tc.tool, tc.args)
		tc.want.Server, tc.want.Tool = "fx", strings.TrimPrefix(tc.tool, "mcp__fx__")
		if diff := cmp.Diff(&tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.tool, diff)
		}
	}
	if _, err := m.CallTool(context.Background(), "mcp__fx__nope", nil); !errors.Is(err, errUnknownTool) {
		t.Errorf("unknown tool: err = %v", err)
	}
	if _, err := m.CallTool(context.Background(), "mcp__fx__echo", json.RawMessage(`[1]`)); err == nil {
		t.Error("non-object arguments accepted")
	}
}

func TestCallCancelAndTimeout(t *testing.T) {
	m, f := fixtureManager(t, nil, &ServerConfig{Name: "fx", Command: "x"}, &ServerConfig{Name: "quick", Command: "x", CallTimeout: Duration(50 * time.Millisecond)})

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, "mcp__fx__slow", nil)
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: err = %v, want context.Canceled", err)
	}
	<-f.cancelled // the server saw notifications/cancelled

	_, err := m.CallTool(context.Background(), "mcp__quick__slow", nil)
	if !errors.Is(err, errCallTimeout) || !strings.Contains(err.Error(), "callTimeout") {
		t.Errorf("timed-out call: err = %v, want errCallTimeout with a hint", err)
	}
	<-f.cancelled
	if r := call(t, m, "mcp__fx__echo", `{"message":"after"}`); r.Text != "after" {
		t.Errorf("echo after cancel = %q", r.Text)
	}
}

// TestListChangedReentrant: a tools/list_changed notification refreshes
// the list, and an OnEvent handler that calls back into the same server
// while handling that event does not deadlock.
func TestListChangedReentrant(t *testing.T) {
	got := make(chan string, 1)
	var m *Manager
	var once sync.Once
	opts := &Options{OnEvent: func(ev Event) {
		if ev.Kind != EventToolsChanged {
			return
		}
		if _, ok := m.lookup("mcp__fx__added"); !ok {
			return
		}
		once.Do(func() {
			r, err := m.CallTool(context.Background(), "mcp__fx__added", nil)
			if err != nil {
				got <- err.Error()
				return
			}
			got <- r.Text
		})
	}}
	m, _ = fixtureManager(t, opts)
	if r := call(t, m, "mcp__fx__add_tool", ""); r.Text != "ok" {
		t.Fatalf("add_tool = %q", r.Text)
	}
	select {
	case s := <-got:
		if s != "I am new" {
			t.Errorf("new tool answered %q", s)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no tools-changed event with the new tool: deadlock or lost notification")
	}
}

func TestResourcesAndMentions(t *testing.T) {
	updated := make(chan string, 10)
	m, f := fixtureManager(t, &Options{OnEvent: func(ev Event) {
		if ev.Kind == EventResourceUpdated {
			updated <- ev.URI
		}
	}})
	list := call(t, m, "mcp__fx__list_resources", "")
	for _, w := range []string{"test://hello (hello) [text/plain]", "test://items/{id}"} {
		if !strings.Contains(list.Text, w) {
			t.Errorf("list_resources = %q, missing %q", list.Text, w)
		}
	}
	read := call(t, m, "mcp__fx__read_resource", `{"uri":"test://hello"}`)
	if want := `<resource server="fx" uri="test://hello" mime="text/plain">hello v1</resource>`; read.Text != want {
		t.Errorf("read_resource = %q, want %q", read.Text, want)
	}
	if r := call(t, m, "mcp__fx__read_resource", `{}`); !r.IsError {
		t.Errorf("read_resource without uri = %+v, want IsError", r)
	}

	// A watched resource is kept; an update invalidates the kept copy.
	if err := m.Subscribe(context.Background(), "fx", "test://hello"); err != nil {
		t.Fatal(err)
	}
	f.setHello(context.Background(), "hello v2")
	select {
	case uri := <-updated:
		if uri != "test://hello" {
			t.Errorf("updated %q", uri)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no resources/updated event")
	}
	if r := call(t, m, "mcp__fx__read_resource", `{"uri":"test://hello"}`); !strings.Contains(r.Text, "hello v2") {
		t.Errorf("after update: %q", r.Text)
	}

	msg, err := m.ExpandMentions(context.Background(), "Summarise @fx:test://items/7.")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Summarise @fx:test://items/7.\n\n<resource server=\"fx\" uri=\"test://items/7\">item 7</resource>"; msg != want {
		t.Errorf("ExpandMentions = %q, want %q", msg, want)
	}
	for _, bad := range []string{"see @nosuch:test://x", "see @fx:test://missing"} {
		if _, err := m.ExpandMentions(context.Background(), bad); err == nil {
			t.Errorf("ExpandMentions(%q) succeeded", bad)
		}
	}
	if msg, err := m.ExpandMentions(context.Background(), "mail me@example.com please"); err != nil || msg != "mail me@example.com please" {
		t.Errorf("e-mail address treated as mention: %q, %v", msg, err)
	}
}

func TestPrompts(t *testing.T) {
	m, _ := fixtureManager(t, nil)
	prompts := must(m.Prompts("fx"))
	if len(prompts) != 1 || prompts[0].Name != "greet" || !prompts[0].Arguments[0].Required {
		t.Fatalf("prompts = %+v", prompts)
	}
	r, err := m.GetPrompt(context.Background(), "fx", "greet", map[string]string{"name": "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := PromptText(r), "user: Say hello to Ada"; got != want {
		t.Errorf("prompt = %q, want %q", got, want)
	}
}

func TestStatesFiltersAndAdjust(t *testing.T) {
	var mu sync.Mutex
	adjusted := map[string][]string{}
	opts := &Options{Adjust: func(name string, sc *ServerConfig) {
		sc.Args = append(sc.Args, "--wsEndpoint=ws://127.0.0.1:1/x")
		mu.Lock()
		adjusted[name] = sc.Args
		mu.Unlock()
	}}
	m, _ := fixtureManager(t, opts,
		&ServerConfig{Name: "filtered", Command: "x", Args: []string{"a"}, IncludeTools: []string{"e*", "fail"}, ExcludeTools: []string{"embed"}},
		&ServerConfig{Name: "off", Command: "x", Disabled: true},
		&ServerConfig{Name: "broken", Command: "x", Err: errors.New("f.json: server \"broken\": both command and url are set")},
	)
	var names []string
	for _, tool := range must(m.ServerTools("filtered")) {
		if !tool.Virtual {
			names = append(names, tool.RawName)
		}
	}
	if diff := cmp.Diff([]string{"echo", "fail"}, names); diff != "" {
		t.Errorf("filtered tools (-want +got):\n%s", diff)
	}
	type row struct {
		Name, State, Err string
	}
	var got []row
	for _, st := range m.Status() {
		r := row{Name: st.Name, State: st.State.String()}
		if st.Err != nil {
			r.Err = st.Err.Error()
		}
		got = append(got, r)
	}
	want := []row{
		{"broken", "error", "f.json: server \"broken\": both command and url are set"},
		{"filtered", "ready", ""},
		{"off", "disabled", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if _, err := m.CallTool(context.Background(), "mcp__off__echo", nil); !errors.Is(err, errNotReady) || !strings.Contains(err.Error(), `"off" is disabled`) {
		t.Errorf("call on a disabled server: %v, want errNotReady saying it is disabled", err)
	}
	if err := m.WaitReady(context.Background(), "off"); err == nil {
		t.Error("WaitReady on a disabled server returned nil")
	}
	mu.Lock()
	if diff := cmp.Diff(map[string][]string{"filtered": {"a", "--wsEndpoint=ws://127.0.0.1:1/x"}}, adjusted); diff != "" {
		t.Errorf("Adjust saw (-want +got):\n%s", diff)
	}
	mu.Unlock()

	// Restart runs Adjust again on a fresh copy of the configuration.
	if err := m.Restart(context.Background(), "filtered"); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, "filtered")
	mu.Lock()
	if n := len(adjusted["filtered"]); n != 2 {
		t.Errorf("after restart args = %v, want Adjust applied once to the original", adjusted["filtered"])
	}
	mu.Unlock()
	if err := m.Disable(context.Background(), "filtered"); err != nil {
		t.Fatal(err)
	}
	if st := must(m.ServerStatus("filtered")); st.State != StateDisabled || len(must(m.ServerTools("filtered"))) != 0 {
		t.Errorf("after Disable: %s with tools", st.State)
	}
	if err := m.Enable(context.Background(), "filtered"); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, "filtered")
	if err := m.replace(context.Background(), &ServerConfig{Name: "off", Command: "y"}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, "off")
	if _, err := m.ServerStatus("nosuch"); !errors.Is(err, errUnknownServer) {
		t.Errorf("unknown server: %v", err)
	}
}

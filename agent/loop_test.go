package agent

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/media"
	"github.com/browseragent/browseragent/tools"
)

// testCaller is the tool side of these loop tests: a tiny Caller whose
// tools answer from a function. End-to-end tests with the real Registry,
// browser and web_fetch live with the Session.
type testCaller struct {
	mu       sync.Mutex
	toolList []tools.ToolDef
	do       func(ctx context.Context, name string, args json.RawMessage) (*tools.ToolResult, error)
	calls    []string // "name args" per call
}

func (c *testCaller) Tools() []tools.ToolDef {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]tools.ToolDef(nil), c.toolList...)
}

func (c *testCaller) Call(ctx context.Context, name string, args json.RawMessage, origin tools.Origin) (*tools.ToolResult, error) {
	c.mu.Lock()
	c.calls = append(c.calls, name+" "+string(args))
	do := c.do
	c.mu.Unlock()
	if origin != tools.OriginAgent {
		return nil, errors.New("origin is not agent")
	}
	if do == nil {
		return &tools.ToolResult{Text: "ok"}, nil
	}
	return do(ctx, name, args)
}

func (c *testCaller) Calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

func webFetchDef() tools.ToolDef {
	return tools.ToolDef{
		Name: "web_fetch", Description: "Fetch a URL and return its main content as markdown.", Source: tools.SourceBuiltin,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string"}}, "required": []any{"url"}},
	}
}

// newTestAgent returns an agent talking to srv whose retries do not sleep
// but record what they would have waited.
func newTestAgent(t *testing.T, srv *llmtest.Server, c tools.Caller, edit func(*Settings)) (*Agent, *[]time.Duration) {
	t.Helper()
	s := ResolveSettings(Overrides{BaseURL: srv.URL, Model: "test-model"}, func(string) string { return "" }, nil)
	if edit != nil {
		edit(&s)
	}
	a, err := New(s, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	slept := &[]time.Duration{}
	a.tr.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*slept = append(*slept, d)
		mu.Unlock()
		return ctx.Err()
	}
	return a, slept
}

// recorder keeps a turn's events.
type recorder struct{ events []Event }

func (r *recorder) Event(e Event) { r.events = append(r.events, e) }

func (r *recorder) kinds() []string {
	var out []string
	for _, e := range r.events {
		if e.Kind == EventText {
			continue // text pieces depend on chunking
		}
		out = append(out, e.Kind.String())
	}
	return out
}

func (r *recorder) notices() []string {
	var out []string
	for _, e := range r.events {
		if e.Kind == EventNotice {
			out = append(out, e.Text)
		}
	}
	return out
}

// checkConsistent fails when a request breaks the Chat Completions rules the
// providers enforce: every assistant tool call answered by a tool message
// before anything else, and such assistant messages carrying "content".
func checkConsistent(t *testing.T, req llmtest.Request) {
	t.Helper()
	msgs := req.Messages
	if len(msgs) == 0 || msgs[0].Role != "system" {
		t.Fatalf("first message is not the system prompt: %+v", msgs)
	}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if len(m.ToolCalls) == 0 {
			continue
		}
		if !m.HasContent {
			t.Errorf("message %d: assistant message with tool calls has no content field", i)
		}
		for j, c := range m.ToolCalls {
			k := i + 1 + j
			if k >= len(msgs) || msgs[k].Role != "tool" || msgs[k].ToolCallID != c.ID {
				t.Fatalf("message %d: tool call %s (%s) not answered in order; messages: %+v", i, c.ID, c.Name, msgs)
			}
		}
	}
}

func TestTurnAssemblesStreamedToolCalls(t *testing.T) {
	tests := []struct {
		name      string
		reply     llmtest.Reply
		wantCalls []string
	}{
		{
			name:      "one call split in 3-byte chunks",
			reply:     llmtest.Reply{Calls: []llmtest.ToolCall{{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/a"}`}}, ChunkSize: 3},
			wantCalls: []string{`web_fetch {"url":"http://127.0.0.1/a"}`},
		},
		{
			name: "two calls with text first",
			reply: llmtest.Reply{Text: "Let me look.", Calls: []llmtest.ToolCall{
				{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/a"}`},
				{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/b"}`},
			}},
			wantCalls: []string{`web_fetch {"url":"http://127.0.0.1/a"}`, `web_fetch {"url":"http://127.0.0.1/b"}`},
		},
		{
			name: "provider without index",
			reply: llmtest.Reply{OmitIndex: true, Calls: []llmtest.ToolCall{
				{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/a"}`},
				{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/b"}`},
			}},
			wantCalls: []string{`web_fetch {"url":"http://127.0.0.1/a"}`, `web_fetch {"url":"http://127.0.0.1/b"}`},
		},
		{
			name:      "call without arguments",
			reply:     llmtest.Call("web_fetch", ""),
			wantCalls: []string{`web_fetch {}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Rule{When: llmtest.LastUser("title"), Reply: tt.reply},
				llmtest.Rule{When: llmtest.LastTool("Example Domain"), Reply: llmtest.Text("The title is Example Domain.")},
			)
			rec := &recorder{}
			reqs := titleTurn(t, srv, rec, tt.wantCalls)
			if diff := cmp.Diff([]string{"web_fetch"}, reqs[0].Tools); diff != "" {
				t.Errorf("tools offered (-want +got):\n%s", diff)
			}
			var want []string
			want = append(want, "step")
			for range tt.wantCalls {
				want = append(want, "tool_call", "tool_result")
			}
			want = append(want, "step")
			if diff := cmp.Diff(want, rec.kinds()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTurnStreamsText(t *testing.T) {
	srv := llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Reply{Text: "Hello, wörld — ünïcode", ChunkSize: 1}})
	a, _ := newTestAgent(t, srv, &testCaller{}, nil)
	rec := &recorder{}
	got, err := a.Turn(context.Background(), "hi", rec)
	if err != nil {
		t.Fatal(err)
	}
	var streamed strings.Builder
	pieces := 0
	for _, e := range rec.events {
		if e.Kind == EventText {
			streamed.WriteString(e.Text)
			pieces++
		}
	}
	if got != "Hello, wörld — ünïcode" || streamed.String() != got || pieces < 10 {
		t.Errorf("answer %q, streamed %q in %d pieces", got, streamed.String(), pieces)
	}
}

func TestTurnRetries(t *testing.T) {
	tests := []struct {
		name      string
		errs      []llmtest.Reply
		wantSlept func([]time.Duration) bool
	}{
		{"429 with Retry-After", []llmtest.Reply{llmtest.Error(429, "2", "rate limited")},
			func(d []time.Duration) bool { return len(d) == 1 && d[0] == 2*time.Second }},
		{"503 then 502 with backoff", []llmtest.Reply{llmtest.Error(503, "", "overloaded"), llmtest.Error(502, "", "bad gateway")},
			func(d []time.Duration) bool { return len(d) == 2 && d[0] >= time.Second && d[1] >= 2*time.Second }},
		{"stream cut before any answer", []llmtest.Reply{{Cut: true}},
			func(d []time.Duration) bool { return len(d) == 1 && d[0] == time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rules []llmtest.Rule
			for _, e := range tt.errs {
				rules = append(rules, llmtest.Rule{When: llmtest.Any(), Reply: e, Times: 1})
			}
			rules = append(rules, llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("done")})
			srv := llmtest.New(t, rules...)
			a, slept := newTestAgent(t, srv, &testCaller{}, nil)
			rec := &recorder{}
			got, err := a.Turn(context.Background(), "go", rec)
			if err != nil || got != "done" {
				t.Fatalf("Turn = %q, %v", got, err)
			}
			if !tt.wantSlept(*slept) {
				t.Errorf("waited %v", *slept)
			}
			if n := len(rec.notices()); n != len(tt.errs) {
				t.Errorf("notices = %q, want %d", rec.notices(), len(tt.errs))
			}
			if n := len(srv.Requests()); n != len(tt.errs)+1 {
				t.Errorf("requests = %d", n)
			}
		})
	}
}

func TestTurnGivesUpOnPersistent429(t *testing.T) {
	srv := llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Error(429, "1", "quota exceeded")})
	a, slept := newTestAgent(t, srv, &testCaller{}, nil)
	_, err := a.Turn(context.Background(), "go", nil)
	if err == nil || !strings.Contains(err.Error(), "rate limiting") {
		t.Fatalf("err = %v", err)
	}
	if len(*slept) != maxRetries {
		t.Errorf("retries = %d, want %d", len(*slept), maxRetries)
	}
}

func TestTurnNobodyListening(t *testing.T) {
	srv := llmtest.New(t)
	a, slept := newTestAgent(t, srv, &testCaller{}, nil)
	a.client = newClient(ResolveSettings(Overrides{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, envOf(), nil), a.tr)
	_, err := a.Turn(context.Background(), "hi", nil)
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("err = %v", err)
	}
	if len(*slept) != 0 {
		t.Errorf("retried a refused connection: %v", *slept)
	}
}

func TestTurnStepLimitLeavesUsableConversation(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("thanks"), Reply: llmtest.Text("You're welcome.")},
		llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Call("web_fetch", `{"url":"http://127.0.0.1/"}`)},
	)
	c := &testCaller{toolList: []tools.ToolDef{webFetchDef()}}
	a, _ := newTestAgent(t, srv, c, func(s *Settings) { s.MaxSteps = 3 })
	rec := &recorder{}
	_, err := a.Turn(context.Background(), "loop forever", rec)
	if !errors.Is(err, ErrStepLimit) || !strings.Contains(err.Error(), "3 steps") {
		t.Fatalf("err = %v, want step limit", err)
	}
	if len(c.Calls()) != 3 || len(srv.Requests()) != 3 {
		t.Errorf("calls %d, requests %d, want 3 and 3", len(c.Calls()), len(srv.Requests()))
	}
	got, err := a.Turn(context.Background(), "thanks", nil)
	if err != nil || got != "You're welcome." {
		t.Fatalf("next turn = %q, %v", got, err)
	}
	reqs := srv.Requests()
	checkConsistent(t, reqs[len(reqs)-1])
}

func TestTurnCancel(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		// cancelOn cancels when it returns true for an event
		cancelOn  func(Event) bool
		toolBlock bool
	}{
		{
			name:     "while the model streams",
			reply:    llmtest.Reply{Text: "Working on it", Hang: true},
			cancelOn: func(e Event) bool { return e.Kind == EventText },
		},
		{
			name: "while a tool runs",
			reply: llmtest.Calls(
				llmtest.ToolCall{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/slow"}`},
				llmtest.ToolCall{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/never"}`},
			),
			cancelOn:  func(e Event) bool { return e.Kind == EventToolCall },
			toolBlock: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Rule{When: llmtest.LastUser("start"), Reply: tt.reply},
				llmtest.Rule{When: llmtest.LastUser("still there?"), Reply: llmtest.Text("Yes.")},
			)
			c := &testCaller{toolList: []tools.ToolDef{webFetchDef()}, do: func(ctx context.Context, _ string, _ json.RawMessage) (*tools.ToolResult, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}}
			a, _ := newTestAgent(t, srv, c, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := a.Turn(ctx, "start", EventsFunc(func(e Event) {
				if tt.cancelOn(e) {
					cancel()
				}
			}))
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			got, err := a.Turn(context.Background(), "still there?", nil)
			if err != nil || got != "Yes." {
				t.Fatalf("turn after cancel = %q, %v", got, err)
			}
			reqs := srv.Requests()
			checkConsistent(t, reqs[len(reqs)-1])
			if tt.toolBlock && len(c.Calls()) != 1 {
				t.Errorf("tool calls after cancel = %q, want only the first", c.Calls())
			}
		})
	}
}

func pngImage(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x += 7 {
		for y := 0; y < h; y += 5 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodeDataURL(t *testing.T, url string) (string, image.Config) {
	t.Helper()
	mime, b64, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ";base64,")
	if !ok {
		t.Fatalf("not a base64 data URL: %.60s", url)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return mime, cfg
}

func screenshotCaller(img []byte) *testCaller {
	return &testCaller{
		toolList: []tools.ToolDef{{Name: "browser_screenshot", Source: tools.SourceBrowser, Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}},
		do: func(context.Context, string, json.RawMessage) (*tools.ToolResult, error) {
			return &tools.ToolResult{Text: "screenshot of http://127.0.0.1/", Images: []media.Image{{MIME: "image/png", Data: img}}}, nil
		},
	}
}

func TestImageResultReachesModelAsUserPart(t *testing.T) {
	tests := []struct {
		name         string
		w, h         int
		wantMIME     string
		wantW, wantH int
	}{
		{"large screenshot is downscaled to JPEG", 3136, 1000, "image/jpeg", 1568, 500},
		{"small image is sent as is", 200, 100, "image/png", 200, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Rule{When: llmtest.LastUser("look"), Reply: llmtest.Call("browser_screenshot", `{}`)},
				llmtest.Rule{When: llmtest.LastTool("screenshot of"), Reply: llmtest.Text("I see a page.")},
			)
			a, _ := newTestAgent(t, srv, screenshotCaller(pngImage(t, tt.w, tt.h)), nil)
			if _, err := a.Turn(context.Background(), "look at the page", nil); err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[1]
			checkConsistent(t, req)
			n := len(req.Messages)
			tool, user := req.Messages[n-2], req.Messages[n-1]
			if tool.Role != "tool" || user.Role != "user" {
				t.Fatalf("last two messages are %s, %s; want tool, user", tool.Role, user.Role)
			}
			imgs := user.Images()
			if len(imgs) != 1 {
				t.Fatalf("user message has %d images", len(imgs))
			}
			mime, cfg := decodeDataURL(t, imgs[0].ImageURL)
			if diff := cmp.Diff([]any{tt.wantMIME, tt.wantW, tt.wantH}, []any{mime, cfg.Width, cfg.Height}); diff != "" {
				t.Errorf("image (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImagesRejectedFallsBackToText(t *testing.T) {
	hasImages := func(r llmtest.Request) bool {
		for _, m := range r.Messages {
			if len(m.Images()) > 0 {
				return true
			}
		}
		return false
	}
	srv := llmtest.New(t,
		llmtest.Rule{When: hasImages, Reply: llmtest.Error(400, "", "Invalid content: image_url is not supported by this model")},
		llmtest.Rule{When: llmtest.LastUser("look"), Reply: llmtest.Call("browser_screenshot", `{}`)},
		llmtest.Rule{When: llmtest.LastTool("screenshot of"), Reply: llmtest.Text("Seen.")},
	)
	a, _ := newTestAgent(t, srv, screenshotCaller(pngImage(t, 64, 64)), nil)
	rec := &recorder{}
	if got, err := a.Turn(context.Background(), "look", rec); err != nil || got != "Seen." {
		t.Fatalf("Turn = %q, %v", got, err)
	}
	if got, err := a.Turn(context.Background(), "look again", rec); err != nil || got != "Seen." {
		t.Fatalf("second Turn = %q, %v", got, err)
	}
	var images []string
	for _, n := range rec.notices() {
		if strings.Contains(n, "image") {
			images = append(images, n)
		}
	}
	if len(images) != 1 {
		t.Errorf("image notices = %q, want exactly one", images)
	}
	reqs := srv.Requests()
	// look → call; with image → 400; retried without → answer; look again → call; tool → answer
	if len(reqs) != 5 {
		t.Fatalf("requests = %d, want 5", len(reqs))
	}
	last := reqs[4]
	checkConsistent(t, last)
	if hasImages(last) {
		t.Error("images still sent after the model refused them")
	}
	if tool := last.Last(); !strings.Contains(tool.Content, "does not accept images") {
		t.Errorf("tool message does not tell the model about images: %q", tool.Content)
	}
}

func TestToolResultsForModel(t *testing.T) {
	long := strings.Repeat("word ", 10_000)
	tests := []struct {
		name    string
		res     *tools.ToolResult
		err     error
		args    string
		want    []string // substrings of the tool message
		notWant string
	}{
		{name: "long text is capped with a note", res: &tools.ToolResult{Text: long}, args: `{}`,
			want: []string{"[Result cut: showing the first 20000 of 50000 characters", "CSS selector"}},
		{name: "browseragent's note follows the text", res: &tools.ToolResult{Text: "<<<UNTRUSTED x>>>\nshell\n<<<END x UNTRUSTED>>>", Note: "This page is a JavaScript app shell: use the browser."}, args: `{}`,
			want: []string{"UNTRUSTED>>>\n\nThis page is a JavaScript app shell"}},
		{name: "tool error is marked", res: &tools.ToolResult{Text: "404 Not Found: try the site's search", Outcome: tools.Failed, Failure: tools.ToolError}, args: `{}`,
			want: []string{"Error: 404 Not Found"}},
		{name: "infrastructure failure goes back as a tool error", err: errors.New("mcp server \"x\" crashed"), args: `{}`,
			want: []string{"Tool call failed: mcp server \"x\" crashed", "try another tool"}},
		{name: "unknown tool", err: fmt.Errorf("%w %q", tools.ErrUnknownTool, "web_fetc"), args: `{}`,
			want: []string{"unknown tool \"web_fetc\"", "Use only the tools you were given"}},
		{name: "bad JSON arguments are not executed", args: `{"url": `,
			want: []string{"not valid JSON"}, notWant: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Rule{When: llmtest.LastUser("go"), Reply: llmtest.Call("web_fetch", tt.args)},
				llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("ok")},
			)
			c := &testCaller{toolList: []tools.ToolDef{webFetchDef()}, do: func(context.Context, string, json.RawMessage) (*tools.ToolResult, error) {
				return tt.res, tt.err
			}}
			a, _ := newTestAgent(t, srv, c, nil)
			if _, err := a.Turn(context.Background(), "go", nil); err != nil {
				t.Fatal(err)
			}
			msg := srv.Requests()[1].Last()
			for _, w := range tt.want {
				if !strings.Contains(msg.Content, w) {
					t.Errorf("tool message lacks %q:\n%.300s", w, msg.Content)
				}
			}
			if tt.notWant != "" && len(c.Calls()) > 0 {
				t.Errorf("tool was called with bad arguments: %q", c.Calls())
			}
			if len(msg.Content) > defaultMaxResultChars+400 {
				t.Errorf("tool message is %d bytes", len(msg.Content))
			}
		})
	}
}

func TestToolsRefreshedEachStep(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("go"), Reply: llmtest.Call("web_fetch", `{"url":"http://127.0.0.1/"}`)},
		llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("done")},
	)
	c := &testCaller{toolList: []tools.ToolDef{webFetchDef()}}
	c.do = func(context.Context, string, json.RawMessage) (*tools.ToolResult, error) {
		c.mu.Lock()
		c.toolList = append(c.toolList, tools.ToolDef{Name: "mcp__docs__search", Source: tools.SourceMCP, Server: "docs", RawName: "search"})
		c.mu.Unlock()
		return &tools.ToolResult{Text: "page"}, nil
	}
	a, _ := newTestAgent(t, srv, c, nil)
	if _, err := a.Turn(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, r := range srv.Requests() {
		got = append(got, r.Tools)
	}
	want := [][]string{{"web_fetch"}, {"web_fetch", "mcp__docs__search"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools per request (-want +got):\n%s", diff)
	}
}

func TestResetAndSetModel(t *testing.T) {
	srv := llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("ok")})
	a, _ := newTestAgent(t, srv, &testCaller{}, nil)
	ctx := context.Background()
	for _, msg := range []string{"one", "two"} {
		if _, err := a.Turn(ctx, msg, nil); err != nil {
			t.Fatal(err)
		}
	}
	a.Reset()
	a.SetModel("other-model")
	if _, err := a.Turn(ctx, "three", nil); err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, r := range srv.Requests() {
		got = append(got, r.Model, len(r.Messages))
	}
	want := []any{"test-model", 2, "test-model", 4, "other-model", 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("model and message count per request (-want +got):\n%s", diff)
	}
}

func TestNewDisabled(t *testing.T) {
	s := ResolveSettings(Overrides{}, func(string) string { return "" }, nil)
	_, err := New(s, &testCaller{}, nil)
	if !errors.Is(err, errDisabled) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("err = %v", err)
	}
}

func TestKeylessLocalServerSendsNoAuthorization(t *testing.T) {
	srv := llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("ok")})
	a, _ := newTestAgent(t, srv, &testCaller{}, nil)
	if _, err := a.Turn(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q, want none", h)
	}
}

func TestImagesPerStepAreBounded(t *testing.T) {
	img := pngImage(t, 32, 32)
	c := screenshotCaller(img)
	c.do = func(context.Context, string, json.RawMessage) (*tools.ToolResult, error) {
		r := &tools.ToolResult{Text: "screenshot of six frames"}
		for range 6 {
			r.Images = append(r.Images, media.Image{MIME: "image/png", Data: img})
		}
		return r, nil
	}
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("look"), Reply: llmtest.Call("browser_screenshot", `{}`)},
		llmtest.Rule{When: llmtest.AfterCall("browser_screenshot"), Reply: llmtest.Text("ok")},
	)
	a, _ := newTestAgent(t, srv, c, nil)
	if _, err := a.Turn(context.Background(), "look", nil); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[1]
	n := len(req.Messages)
	if got := len(req.Messages[n-1].Images()); got != maxImagesPerStep {
		t.Errorf("images sent = %d, want %d", got, maxImagesPerStep)
	}
	if tool := req.Messages[n-2].Content; !strings.Contains(tool, "2 more image(s) left out") {
		t.Errorf("tool message does not say images were left out: %q", tool)
	}
}

func TestSetSystemExtra(t *testing.T) {
	srv := llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("ok")})
	a, _ := newTestAgent(t, srv, &testCaller{}, nil)
	a.SetSystemExtra("Browser mode: shared (the person's own Chrome).")
	if _, err := a.Turn(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	sys := srv.Requests()[0].Messages[0].Content
	for _, want := range []string{"web_fetch", "UNTRUSTED", "Never act", "Browser mode: shared"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
}

func TestCapTextKeepsUntrustedEnd(t *testing.T) {
	wrapped := guard.Untrusted("web_fetch http://127.0.0.1/", strings.Repeat("page text ", 5000))
	got := capText(wrapped, 2000)
	end := regexp.MustCompile(`<<<END [0-9a-f]+ UNTRUSTED>>>`)
	i := end.FindStringIndex(got)
	if i == nil || !strings.HasPrefix(got, "<<<UNTRUSTED") {
		t.Fatalf("block markers lost:\n%.200s … %s", got, got[max(len(got)-300, 0):])
	}
	if note := strings.Index(got, "[Result cut"); note < i[1] {
		t.Errorf("the cut note is inside the untrusted block")
	}
	if len(got) > 2000+300 {
		t.Errorf("capped text is %d bytes", len(got))
	}
}

func TestEmptyAnswerKeepsContentField(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("first"), Reply: llmtest.Text("")},
		llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("ok")},
	)
	a, _ := newTestAgent(t, srv, &testCaller{}, nil)
	for _, msg := range []string{"first", "second"} {
		if _, err := a.Turn(context.Background(), msg, nil); err != nil {
			t.Fatal(err)
		}
	}
	m := srv.Requests()[1].Messages[2]
	if m.Role != "assistant" || !m.HasContent {
		t.Errorf("empty assistant answer sent as %+v, want content \"\"", m)
	}
}

func TestLLMErrorsSayWhatToDo(t *testing.T) {
	tests := []struct {
		name      string
		reply     llmtest.Reply
		want      string
		wantSleep int
	}{
		{"bad key", llmtest.Error(401, "", "Incorrect API key provided"), "refused the API key", 0},
		{"unknown model", llmtest.Error(404, "", "model 'x' not found"), "check the model name", 0},
		{"model without tools", llmtest.Error(400, "", "registry.ollama.ai/library/gemma does not support tools"), "does not support tool calls", 0},
		{"long Retry-After is not waited for", llmtest.Error(429, "3600", "quota"), "rate limiting", 0},
		{"server error after retries", llmtest.Error(500, "0", "boom"), "500: boom", maxRetries},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: tt.reply})
			a, slept := newTestAgent(t, srv, &testCaller{}, nil)
			_, err := a.Turn(context.Background(), "hi", nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if len(*slept) != tt.wantSleep {
				t.Errorf("retries = %d, want %d", len(*slept), tt.wantSleep)
			}
		})
	}
}

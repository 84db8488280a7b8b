package llmtest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Part is one part of a multi-part message.
type Part struct {
	Type     string // "text" or "image_url"
	Text     string
	ImageURL string // a data: URL for images
}

// ToolCall is a tool call, in a request's assistant message or in a reply.
type ToolCall struct {
	ID   string
	Name string
	Args string // JSON
	// Extra, when set, is sent as the call's extra_content (raw JSON), as
	// Gemini sends its thought_signature.
	Extra string
}

// Message is one message of a recorded request.
type Message struct {
	Role       string
	Content    string // text content; parts' text joined for multi-part messages
	HasContent bool   // the "content" key was present (even as "")
	Parts      []Part // multi-part content, nil for plain text
	ToolCalls  []ToolCall
	ToolCallID string
}

// Images returns the image parts of the message.
func (m Message) Images() []Part {
	var out []Part
	for _, p := range m.Parts {
		if p.Type == "image_url" {
			out = append(out, p)
		}
	}
	return out
}

// Request is one recorded chat completion request.
type Request struct {
	Model      string
	Stream     bool
	Messages   []Message
	Tools      []string // names of the tools offered
	ToolsBytes int      // bytes of the "tools" array
	Body       []byte
	Header     http.Header
}

// Last returns the last message, or a zero Message.
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// Matcher decides whether a rule answers a request.
type Matcher func(Request) bool

// Any matches every request.
func Any() Matcher { return func(Request) bool { return true } }

// LastUser matches when the last message is from the user and contains s.
func LastUser(s string) Matcher {
	return func(r Request) bool { l := r.Last(); return l.Role == "user" && strings.Contains(l.Content, s) }
}

// LastTool matches when the last tool result contains s. A user message
// carrying tool images may follow it.
func LastTool(s string) Matcher {
	return func(r Request) bool {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			m := r.Messages[i]
			if m.Role == "tool" {
				return strings.Contains(m.Content, s)
			}
			if m.Role != "user" || m.Parts == nil {
				return false
			}
		}
		return false
	}
}

// AfterCall matches when the model's last message called the tool name and
// only its results (and tool images) follow.
func AfterCall(name string) Matcher {
	return func(r Request) bool {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			m := r.Messages[i]
			switch {
			case m.Role == "assistant":
				for _, c := range m.ToolCalls {
					if c.Name == name {
						return true
					}
				}
				return false
			case m.Role == "tool", m.Role == "user" && m.Parts != nil:
				continue
			default:
				return false
			}
		}
		return false
	}
}

// Reply is what the server answers.
type Reply struct {
	Text  string
	Calls []ToolCall

	// Status, when not 0 or 200, answers with an error instead of a stream.
	Status     int
	RetryAfter string // Retry-After header of an error answer
	Message    string // error message of an error answer

	ChunkSize int  // bytes of text or arguments per chunk; default 4
	OmitIndex bool // leave "index" out of tool-call chunks, as some providers do
	// Hang keeps the stream open after Text, without finishing, until the
	// client goes away: for cancellation tests.
	Hang bool
	// Cut ends the stream after the role chunk, without an answer, a finish
	// or [DONE]: a dropped connection.
	Cut bool

	// Provider dialects of the stream (docs/agent.md, "Every provider's
	// stream"): each reproduces what one provider sends.
	Reasoning      string // streamed before the text
	ReasoningField string // its field: "reasoning_content" (default; DeepSeek) or "reasoning" (OpenRouter, Groq, Ollama, vLLM)
	WholeCalls     bool   // each call in one chunk, id, name and all its arguments (Ollama, Gemini)
	IDEveryChunk   bool   // the call's id in every fragment, not only the first
	ArgsObject     bool   // arguments as a JSON object instead of a string of JSON
	SameIndex      bool   // every call numbered 0, each with its own id (Gemini through some proxies)
	Finish         string // finish_reason to send instead of "stop" / "tool_calls"
	NoFinish       bool   // no finish chunk at all, then usage and [DONE] as usual
	UsageInFinish  bool   // usage in the finish chunk instead of a chunk of its own
	// FailAfterText, when set, reports this error in the stream after the
	// text, in ErrorStyle: "data" (data: {"error": …}, OpenAI, llama.cpp
	// since 2025-09), "openrouter" (a chunk with "error" and a choice
	// finishing with "error") or "llamacpp" (a non-standard "error:" line,
	// then [DONE], llama.cpp before 2025-09).
	FailAfterText string
	ErrorStyle    string
}

// Text answers with text and no tool call.
func Text(s string) Reply { return Reply{Text: s} }

// Call answers with one tool call.
func Call(name, args string) Reply { return Reply{Calls: []ToolCall{{Name: name, Args: args}}} }

// Calls answers with several tool calls in one message.
func Calls(calls ...ToolCall) Reply { return Reply{Calls: calls} }

// Error answers with an HTTP error.
func Error(status int, retryAfter, message string) Reply {
	return Reply{Status: status, RetryAfter: retryAfter, Message: message}
}

// Rule is "when the request matches When, answer Reply", at most Times times
// (0: no limit). Rules are tried in order. Do, when set, builds the reply
// from the request instead (to click a ref found in a snapshot, say).
type Rule struct {
	When  Matcher
	Reply Reply
	Do    func(Request) Reply
	Times int
}

// Server is a running scripted server. It is safe for concurrent use.
type Server struct {
	// URL is the base URL to give an OpenAI client (ends in /v1).
	URL string

	rep     Reporter
	ts      *httptest.Server
	closing chan struct{}
	once    sync.Once

	mu     sync.Mutex
	rules  []*Rule
	used   map[*Rule]int
	reqs   []Request
	calls  int // tool-call ids handed out
	models []Model
	paths  []string // every request's method and path, in order
}

// Reporter hears a request no rule answers (a *testing.T, or a logger in
// a benchmark program).
type Reporter interface {
	Errorf(format string, args ...any)
}

// Model is one entry of GET /v1/models. Capabilities, when set, is sent
// the way Ollama and LM Studio describe a model ("tools", "completion").
type Model struct {
	ID           string
	Capabilities []string
	// ShowCapabilities are answered only by Ollama's POST /api/show
	// {"model": ID}, as Ollama does (its /v1/models says nothing).
	ShowCapabilities []string
}

// New starts a server on 127.0.0.1 with rules; it is closed when the test ends.
func New(t testing.TB, rules ...Rule) *Server {
	t.Helper()
	s, err := Start("127.0.0.1:0", t, rules...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// newAt is New on a given loopback address, such as a local model
// server's well-known port; it fails when the address is taken, so the
// caller can skip with the reason.
func newAt(t testing.TB, addr string, rules ...Rule) (*Server, error) {
	t.Helper()
	s, err := Start(addr, t, rules...)
	if err != nil {
		return nil, err
	}
	t.Cleanup(s.Close)
	return s, nil
}

// NewAtWait is newAt that keeps trying for up to wait while addr is
// taken: tests of several packages run at once, and two may want the same
// well-known port (Ollama's 11434) for a moment each. The error says how
// long it tried.
func NewAtWait(t testing.TB, addr string, wait time.Duration, rules ...Rule) (*Server, error) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		s, err := newAt(t, addr, rules...)
		if err == nil || time.Now().After(deadline) {
			if err != nil {
				err = fmt.Errorf("%w (still after %s)", err, wait)
			}
			return s, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Start runs a server on addr (127.0.0.1 only) until Close; rep hears
// requests no rule answers. Programs outside tests (bench/) use it.
func Start(addr string, rep Reporter, rules ...Rule) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		return nil, fmt.Errorf("llmtest: listen on 127.0.0.1 only, not %q", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{rep: rep, closing: make(chan struct{}), used: map[*Rule]int{}}
	s.add(rules...)
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	s.ts.Listener.Close()
	s.ts.Listener = l
	s.ts.Start()
	s.URL = s.ts.URL + "/v1"
	return s, nil
}

// Close stops the server; streams that hang end.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.ts.Close()
	})
}

// SetModels makes GET /v1/models answer with models (default: 404, as
// a server without the endpoint).
func (s *Server) SetModels(models ...Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = models
}

// Paths returns "METHOD /path" of every request so far, in order.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// add appends rules.
func (s *Server) add(rules ...Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range rules {
		r := rules[i]
		s.rules = append(s.rules, &r)
	}
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
	models := s.models
	s.mu.Unlock()
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") && models != nil {
		writeModels(w, models)
		return
	}
	if r.Method == http.MethodPost && r.URL.Path == "/api/show" && models != nil {
		writeShow(w, r, models)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"llmtest: only POST /v1/chat/completions"}}`, http.StatusNotFound)
		return
	}
	req, err := parseRequest(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "", "llmtest: "+err.Error())
		return
	}
	reply, ok := s.match(req)
	if !ok {
		last := req.Last()
		s.rep.Errorf("llmtest: no rule answers a request whose last message is %s: %q", last.Role, last.Content)
		writeError(w, http.StatusBadRequest, "", "llmtest: no rule matches")
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, reply.RetryAfter, reply.Message)
		return
	}
	if !req.Stream {
		s.writeWhole(w, req, reply)
		return
	}
	s.writeStream(w, r, req, reply)
}

func (s *Server) match(req Request) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	for _, r := range s.rules {
		if r.Times > 0 && s.used[r] >= r.Times {
			continue
		}
		if r.When == nil || r.When(req) {
			s.used[r]++
			reply := r.Reply
			if r.Do != nil {
				reply = r.Do(req)
			}
			reply.Calls = append([]ToolCall(nil), reply.Calls...)
			for i := range reply.Calls {
				if reply.Calls[i].ID == "" {
					s.calls++
					reply.Calls[i].ID = fmt.Sprintf("call_%d", s.calls)
				}
			}
			return reply, true
		}
	}
	return Reply{}, false
}

func writeModels(w http.ResponseWriter, models []Model) {
	var data []any
	for _, m := range models {
		e := map[string]any{"id": m.ID, "object": "model", "owned_by": "llmtest"}
		if m.Capabilities != nil {
			e["capabilities"] = m.Capabilities
		}
		data = append(data, e)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

func writeShow(w http.ResponseWriter, r *http.Request, models []Model) {
	var in struct {
		Model string `json:"model"`
	}
	json.NewDecoder(r.Body).Decode(&in)
	for _, m := range models {
		if m.ID == in.Model && m.ShowCapabilities != nil {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"capabilities": m.ShowCapabilities})
			return
		}
	}
	writeError(w, http.StatusNotFound, "", "model not found")
}

func writeError(w http.ResponseWriter, status int, retryAfter, msg string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

// writeStream sends the reply as SSE, the way providers do: a role chunk, a
// keep-alive comment, the text and each call's arguments in small pieces, a
// finish chunk, a usage chunk with no choices, and [DONE].
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	size := reply.ChunkSize
	if size <= 0 {
		size = 4
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if reply.Cut {
		return
	}
	fmt.Fprint(w, ": keep-alive\n\n")
	field := reply.ReasoningField
	if field == "" {
		field = "reasoning_content"
	}
	for _, piece := range split(reply.Reasoning, size) {
		send(chunk(map[string]any{field: piece}, nil))
	}
	for _, piece := range split(reply.Text, size) {
		send(chunk(map[string]any{"content": piece}, nil))
	}
	if reply.Hang {
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	}
	if reply.FailAfterText != "" {
		writeStreamError(w, reply, send, chunk)
		if fl != nil {
			fl.Flush()
		}
		return
	}
	for i, c := range reply.Calls {
		s.writeCall(reply, i, c, size, send, chunk)
	}
	finish := "stop"
	if len(reply.Calls) > 0 {
		finish = "tool_calls"
	}
	if reply.Finish != "" {
		finish = reply.Finish
	}
	usage := map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	if !reply.NoFinish {
		last := chunk(map[string]any{}, finish)
		if reply.UsageInFinish {
			last["usage"] = usage
		}
		send(last)
	}
	if !reply.UsageInFinish {
		send(map[string]any{"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "model": req.Model, "choices": []any{}, "usage": usage})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

// writeCall sends one tool call in the reply's dialect.
func (s *Server) writeCall(reply Reply, i int, c ToolCall, size int, send func(any), chunk func(map[string]any, any) map[string]any) {
	index := i
	if reply.SameIndex {
		index = 0
	}
	var args any = c.Args
	if reply.ArgsObject {
		args = json.RawMessage(c.Args)
	}
	frag := func(fn map[string]any, first bool) map[string]any {
		tc := map[string]any{"function": fn}
		if first || reply.IDEveryChunk || reply.SameIndex {
			tc["id"] = c.ID
		}
		if first {
			tc["type"] = "function"
			if c.Extra != "" {
				tc["extra_content"] = json.RawMessage(c.Extra)
			}
		}
		if !reply.OmitIndex {
			tc["index"] = index
		}
		return tc
	}
	if reply.WholeCalls || reply.ArgsObject {
		send(chunk(map[string]any{"tool_calls": []any{frag(map[string]any{"name": c.Name, "arguments": args}, true)}}, nil))
		return
	}
	send(chunk(map[string]any{"tool_calls": []any{frag(map[string]any{"name": c.Name, "arguments": ""}, true)}}, nil))
	for _, piece := range split(c.Args, size) {
		send(chunk(map[string]any{"tool_calls": []any{frag(map[string]any{"arguments": piece}, false)}}, nil))
	}
}

// writeStreamError reports reply.FailAfterText inside the stream.
func writeStreamError(w http.ResponseWriter, reply Reply, send func(any), chunk func(map[string]any, any) map[string]any) {
	e := map[string]any{"message": reply.FailAfterText, "code": 502}
	switch reply.ErrorStyle {
	case "openrouter":
		c := chunk(map[string]any{"content": ""}, "error")
		c["error"] = e
		send(c)
		fmt.Fprint(w, "data: [DONE]\n\n")
	case "llamacpp":
		b, _ := json.Marshal(e)
		fmt.Fprintf(w, "error: %s\n\n", b)
		fmt.Fprint(w, "data: [DONE]\n\n")
	default:
		send(map[string]any{"error": e})
	}
}

func (s *Server) writeWhole(w http.ResponseWriter, req Request, reply Reply) {
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	finish := "stop"
	if len(reply.Calls) > 0 {
		var calls []any
		for _, c := range reply.Calls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
	})
}

// split cuts s into pieces of at most n bytes, never inside a UTF-8 character.
func split(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && s[i]&0xC0 == 0x80 {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

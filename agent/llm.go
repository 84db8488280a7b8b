package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/browseragent/browseragent/internal/textutil"
)

// Retry policy for 429 and 5xx answers.
const (
	maxRetries    = 5
	maxRetryDelay = 60 * time.Second // a longer Retry-After is reported, not waited for
)

// retryNotifier is how the transport tells the loop that it is waiting; it
// travels in the request context because go-openai owns the request.
type retryNotifierKey struct{}

type retryNotifier func(status int, wait time.Duration, attempt int)

// transport sits under go-openai. It exists for three things go-openai does
// not do: honour Retry-After on 429/5xx, send `content: ""` on assistant
// messages that carry tool calls (go-openai omits the empty field and some
// providers reject the message without it), and measure the bytes of tool
// definitions actually sent.
type transport struct {
	base      http.RoundTripper
	noAuth    bool // drop the empty "Bearer " header for keyless local servers
	sleep     func(context.Context, time.Duration) error
	toolBytes atomic.Int64 // bytes of the "tools" array in the last request
	reqBytes  atomic.Int64 // bytes of the last request body
	// extra is each tool call's extra_content by call id, put back on the
	// call in later requests (Gemini 3 refuses a call without its
	// thought_signature); go-openai's ToolCall has no such field.
	extra sync.Map
}

func newClient(s Settings, t *transport) *openai.Client {
	cfg := openai.DefaultConfig(s.APIKey)
	cfg.BaseURL = s.BaseURL
	// Keep-alive comments and blank lines count as "empty messages"; some
	// proxies send many while a model thinks.
	cfg.EmptyMessagesLimit = 100_000
	cfg.HTTPClient = &http.Client{Transport: t}
	return openai.NewClientWithConfig(cfg)
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = t.patch(b)
	}
	if t.noAuth {
		req.Header.Del("Authorization")
	}
	ctx := req.Context()
	for attempt := 1; ; attempt++ {
		r := req.Clone(ctx)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		resp, err := t.base.RoundTrip(r)
		if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			resp.Body = newSSEFilter(resp.Body)
		}
		if err != nil || !retryable(resp.StatusCode) || attempt > maxRetries {
			return resp, err
		}
		wait, ok := retryDelay(resp.Header, attempt)
		if !ok {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if n, _ := ctx.Value(retryNotifierKey{}).(retryNotifier); n != nil {
			n(resp.StatusCode, wait, attempt)
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// patch adds `"content": ""` to assistant messages without content (those
// with tool calls, or an empty answer), and records the size of the tool
// definitions.
func (t *transport) patch(body []byte) []byte {
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) != nil {
		return body
	}
	t.toolBytes.Store(int64(len(req["tools"])))
	t.reqBytes.Store(int64(len(body)))
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(req["messages"], &msgs) != nil {
		return body
	}
	changed := false
	for _, m := range msgs {
		if string(m["role"]) != `"assistant"` {
			continue
		}
		if _, has := m["content"]; !has {
			m["content"] = json.RawMessage(`""`)
			changed = true
		}
		if calls, ok := t.withExtra(m["tool_calls"]); ok {
			m["tool_calls"] = calls
			changed = true
		}
	}
	if !changed {
		return body
	}
	raw, err := json.Marshal(msgs)
	if err != nil {
		return body
	}
	req["messages"] = raw
	out, err := json.Marshal(req)
	if err != nil {
		return body
	}
	return out
}

// sseFilter cleans a provider's SSE stream before go-openai reads it:
// comment lines (": keep-alive", ": OPENROUTER PROCESSING") are dropped,
// since go-openai keeps them as the start of an error body and then cannot
// read a real error that follows; and llama.cpp's non-standard
// "error: {…}" line (before 2025-09) becomes the standard
// "data: {"error": {…}}" so its message is not lost.
type sseFilter struct {
	r    *bufio.Reader
	body io.Closer
	buf  []byte
}

func newSSEFilter(body io.ReadCloser) io.ReadCloser {
	return &sseFilter{r: bufio.NewReaderSize(body, 64<<10), body: body}
}

func (f *sseFilter) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		line, err := f.r.ReadBytes('\n')
		switch {
		case bytes.HasPrefix(line, []byte(":")):
			line = nil
		case bytes.HasPrefix(line, []byte("error:")):
			body := bytes.TrimSpace(line[len("error:"):])
			line = append(append([]byte(`data: {"error":`), body...), "}\n"...)
		}
		f.buf = line
		if err != nil {
			if len(f.buf) == 0 {
				return 0, err
			}
			break
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

func (f *sseFilter) Close() error { return f.body.Close() }

// withExtra puts each remembered extra_content back on its tool call.
func (t *transport) withExtra(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var calls []map[string]json.RawMessage
	if json.Unmarshal(raw, &calls) != nil {
		return nil, false
	}
	changed := false
	for _, c := range calls {
		var id string
		if json.Unmarshal(c["id"], &id) != nil {
			continue
		}
		if x, ok := t.extra.Load(id); ok {
			c["extra_content"] = x.(json.RawMessage)
			changed = true
		}
	}
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(calls)
	return out, err == nil
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == 529 ||
		status == http.StatusInternalServerError || status == http.StatusBadGateway ||
		status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// retryDelay honours retry-after-ms and Retry-After (seconds or HTTP date),
// else backs off exponentially with jitter. ok is false when the server asks
// for a wait longer than we are willing to sit through.
func retryDelay(h http.Header, attempt int) (time.Duration, bool) {
	if ms, err := strconv.Atoi(h.Get("Retry-After-Ms")); err == nil && ms >= 0 {
		d := time.Duration(ms) * time.Millisecond
		return d, d <= maxRetryDelay
	}
	if ra := strings.TrimSpace(h.Get("Retry-After")); ra != "" {
		if secs, err := strconv.Atoi(ra); err == nil && secs >= 0 {
			d := time.Duration(secs) * time.Second
			return d, d <= maxRetryDelay
		}
		if at, err := http.ParseTime(ra); err == nil {
			d := max(time.Until(at), 0)
			return d, d <= maxRetryDelay
		}
	}
	d := time.Second << (attempt - 1)
	d += time.Duration(rand.Int64N(int64(d / 4)))
	return min(d, 30*time.Second), true
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// wireChunk is one streamed chunk as providers really send it, read by
// hand rather than through go-openai's type, which drops or refuses
// several of the variants below. The matrix of providers and what each
// sends is in docs/agent.md ("Every provider's stream").
type wireChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string         `json:"content"`
			ReasoningContent string         `json:"reasoning_content"` // DeepSeek, Kimi, older vLLM
			Reasoning        string         `json:"reasoning"`         // OpenRouter, Groq, Ollama, vLLM ≥ 0.10
			ToolCalls        []wireToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	// Error is a failure reported inside a 200 stream (OpenRouter puts it
	// next to a choice finishing with "error"; llama.cpp since 2025-09 and
	// OpenAI send it alone).
	Error *wireError `json:"error"`
}

type wireError struct {
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

type wireToolCall struct {
	Index    *int   `json:"index"` // missing on Gemini and older Ollama
	ID       string `json:"id"`    // OpenAI: first fragment only; Gemini, Ollama: every call
	Function struct {
		Name string `json:"name"`
		// Arguments is a string of JSON, in pieces (OpenAI) or whole
		// (Ollama, Gemini); some servers send the object itself.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
	// ExtraContent carries Gemini's thought_signature, which Gemini 3
	// wants back on the call in the next request.
	ExtraContent json.RawMessage `json:"extra_content"`
}

// arguments is the fragment's arguments as text: a JSON string's value,
// or an object (or anything else but null) as its JSON.
func (c wireToolCall) arguments() string {
	raw := strings.TrimSpace(string(c.Function.Arguments))
	switch {
	case raw == "" || raw == "null":
		return ""
	case raw[0] == '"':
		var s string
		if json.Unmarshal(c.Function.Arguments, &s) == nil {
			return s
		}
	}
	return raw
}

// callAssembler builds complete tool calls from streamed fragments.
// Fragments are matched by index (OpenAI: every fragment, id only on the
// first); without an index by id (Gemini, Ollama send each call whole,
// with its id); without either they continue the last call until its
// arguments are complete JSON. An index reused with a new id is a new
// call (Gemini through some proxies numbers every call 0).
type callAssembler struct {
	calls   []openai.ToolCall
	extra   map[int]json.RawMessage // extra_content by position in calls
	byIndex map[int]int
}

func (a *callAssembler) add(d wireToolCall) {
	if a.byIndex == nil {
		a.byIndex, a.extra = map[int]int{}, map[int]json.RawMessage{}
	}
	i := a.find(d)
	if i < 0 {
		a.calls = append(a.calls, openai.ToolCall{Type: openai.ToolTypeFunction})
		i = len(a.calls) - 1
		if d.Index != nil {
			a.byIndex[*d.Index] = i
		}
	}
	c := &a.calls[i]
	if c.ID == "" {
		c.ID = d.ID
	}
	// Most providers send the name once; some repeat it in every fragment.
	if n := d.Function.Name; n != "" && n != c.Function.Name {
		c.Function.Name += n
	}
	c.Function.Arguments += d.arguments()
	if len(d.ExtraContent) > 0 && string(d.ExtraContent) != "null" {
		a.extra[i] = d.ExtraContent
	}
}

func (a *callAssembler) find(d wireToolCall) int {
	if d.Index != nil {
		i, ok := a.byIndex[*d.Index]
		if !ok || (d.ID != "" && a.calls[i].ID != "" && d.ID != a.calls[i].ID) {
			return -1
		}
		return i
	}
	if d.ID != "" {
		for i, c := range a.calls {
			if c.ID == d.ID {
				return i
			}
		}
		return -1
	}
	last := len(a.calls) - 1
	if last >= 0 && d.Function.Name != "" && a.calls[last].Function.Name != "" && json.Valid([]byte(a.calls[last].Function.Arguments)) {
		return -1 // the last call is whole: a named fragment starts the next
	}
	return last
}

// done returns the calls with ids and arguments filled in, dropping
// fragments that never got a name, and the extra_content of each call by
// its id.
func (a *callAssembler) done() ([]openai.ToolCall, map[string]json.RawMessage) {
	var out []openai.ToolCall
	var extra map[string]json.RawMessage
	for i, c := range a.calls {
		if c.Function.Name == "" {
			continue
		}
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i)
		}
		if strings.TrimSpace(c.Function.Arguments) == "" {
			c.Function.Arguments = "{}"
		}
		if x, ok := a.extra[i]; ok {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[c.ID] = x
		}
		c.Index = nil
		out = append(out, c)
	}
	return out, extra
}

// errStreamCut means the stream ended before the model said anything or
// finished: a dropped connection or a proxy timeout.
var errStreamCut = errors.New("the LLM stream ended before any answer")

// errStreamUnfinished means the stream ended after part of an answer but
// without a finish reason: the provider failed mid-answer without saying
// how (llama.cpp before 2025-09 sent a non-standard "error:" line), or a
// proxy cut it. What arrived is not taken as the whole answer.
var errStreamUnfinished = errors.New("the LLM stream ended in the middle of the answer, without finishing it")

// streamError is a failure the provider reported inside the stream.
type streamError struct{ msg string }

func (e *streamError) Error() string { return "the LLM failed in the middle of its answer: " + e.msg }

// streamed is one complete model answer.
type streamed struct {
	text      string
	reasoning string // reasoning_content: sent back while the model calls tools
	thinking  string // "reasoning" (OpenRouter, Groq, Ollama, vLLM): read, never sent back
	calls     []openai.ToolCall
	extra     map[string]json.RawMessage // extra_content by call id (Gemini's thought_signature)
	finish    string
	received  bool // any content, tool call or finish arrived
}

// readStream consumes a stream, passing text deltas to onText as they come.
// On error the partial answer is returned with it.
func readStream(stream *openai.ChatCompletionStream, onText func(string)) (streamed, error) {
	var (
		out            streamed
		text, rsn, thk strings.Builder
		asm            callAssembler
	)
	for {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		var apiErr *openai.APIError
		if errors.As(err, &apiErr) && apiErr.HTTPStatusCode == 0 { // a data: {"error": …} inside the stream
			err = &streamError{msg: apiErr.Message}
		}
		if err != nil {
			out.text = text.String()
			return out, err
		}
		var ch wireChunk
		if err := json.Unmarshal(raw, &ch); err != nil {
			out.text = text.String()
			return out, fmt.Errorf("the LLM sent a chunk that is not JSON: %s", textutil.FirstLine(string(raw), 200))
		}
		if ch.Error != nil {
			out.text = text.String()
			return out, &streamError{msg: ch.Error.text()}
		}
		for _, c := range ch.Choices { // empty for usage and keep-alive chunks
			if c.Index != 0 {
				continue
			}
			d := c.Delta
			if d.Content != "" || d.ReasoningContent != "" || d.Reasoning != "" || len(d.ToolCalls) > 0 || c.FinishReason != "" {
				out.received = true
			}
			if d.Content != "" {
				text.WriteString(d.Content)
				onText(d.Content)
			}
			rsn.WriteString(d.ReasoningContent)
			thk.WriteString(d.Reasoning)
			for _, tc := range d.ToolCalls {
				asm.add(tc)
			}
			if c.FinishReason != "" {
				out.finish = c.FinishReason
			}
		}
	}
	out.text, out.reasoning, out.thinking = text.String(), rsn.String(), thk.String()
	out.calls, out.extra = asm.done()
	switch {
	case !out.received:
		return out, errStreamCut
	case out.finish == "error":
		return out, &streamError{msg: "the provider ended the answer with an error"}
	case out.finish == "":
		return out, errStreamUnfinished
	}
	return out, nil
}

func (e *wireError) text() string {
	if e.Message != "" {
		return e.Message
	}
	return "no reason given (" + string(e.Code) + ")"
}

// retryableStream reports whether a failed stream may be tried again: it
// broke before anything reached the person, and not because nobody listens
// at the address.
func retryableStream(ans streamed, err error) bool {
	var se *streamError
	if ans.received || errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &se) {
		return false
	}
	status, _ := httpStatus(err)
	return status == 0
}

// httpStatus extracts the HTTP status and message of a go-openai error.
func httpStatus(err error) (int, string) {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode, apiErr.Message
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode, string(reqErr.Body)
	}
	return 0, ""
}

// isImageRejection reports whether the provider refused the request because
// of image content (a text-only model).
func isImageRejection(err error) bool {
	status, msg := httpStatus(err)
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity && status != http.StatusNotFound {
		return false
	}
	msg = strings.ToLower(msg + " " + err.Error())
	return strings.Contains(msg, "image") || strings.Contains(msg, "vision") || strings.Contains(msg, "multimodal")
}

// describeLLMError turns an API error into one sentence with a hint.
func describeLLMError(s Settings, err error) error {
	status, msg := httpStatus(err)
	switch status {
	case 0:
		return fmt.Errorf("LLM request to %s failed: %w", s.BaseURL, err)
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("LLM at %s refused the API key (%d): check OPENAI_API_KEY or the provider's key variable", s.BaseURL, status)
	case http.StatusNotFound:
		return fmt.Errorf("LLM at %s answered 404 for model %q: check the model name and that the base URL ends in /v1 (%s)", s.BaseURL, s.Model, textutil.FirstLine(msg, 300))
	case http.StatusBadRequest:
		if l := strings.ToLower(msg); strings.Contains(l, "tool") && (strings.Contains(l, "support") || strings.Contains(l, "not allowed")) {
			return fmt.Errorf("model %q at %s does not support tool calls: choose one that does (%s)", s.Model, s.BaseURL, textutil.FirstLine(msg, 300))
		}
	case http.StatusTooManyRequests:
		return fmt.Errorf("LLM at %s is rate limiting (429): wait a while and try again, or check the account's quota (%s)", s.BaseURL, textutil.FirstLine(msg, 300))
	}
	return fmt.Errorf("LLM at %s: %d: %s", s.BaseURL, status, textutil.FirstLine(msg, 300))
}

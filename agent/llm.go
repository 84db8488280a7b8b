package agent

import (
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
		if _, has := m["content"]; !has && string(m["role"]) == `"assistant"` {
			m["content"] = json.RawMessage(`""`)
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

// callAssembler builds complete tool calls from streamed fragments. Fragments
// are matched by index; providers that omit the index (or send it only
// once) are matched by id, else appended to the last call.
type callAssembler struct {
	calls   []openai.ToolCall
	byIndex map[int]int
}

func (a *callAssembler) add(d openai.ToolCall) {
	if a.byIndex == nil {
		a.byIndex = map[int]int{}
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
	c.Function.Arguments += d.Function.Arguments
}

func (a *callAssembler) find(d openai.ToolCall) int {
	if d.Index != nil {
		if i, ok := a.byIndex[*d.Index]; ok {
			return i
		}
		return -1
	}
	if d.ID != "" {
		for i, c := range a.calls {
			if c.ID == d.ID {
				return i
			}
		}
		return -1
	}
	return len(a.calls) - 1
}

// done returns the calls with ids and arguments filled in, dropping
// fragments that never got a name.
func (a *callAssembler) done() []openai.ToolCall {
	var out []openai.ToolCall
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
		c.Index = nil
		out = append(out, c)
	}
	return out
}

// errStreamCut means the stream ended before the model said anything or
// finished: a dropped connection or a proxy timeout.
var errStreamCut = errors.New("the LLM stream ended before any answer")

// streamed is one complete model answer.
type streamed struct {
	text      string
	reasoning string
	calls     []openai.ToolCall
	finish    openai.FinishReason
	received  bool // any content, tool call or finish arrived
}

// readStream consumes a stream, passing text deltas to onText as they come.
// On error the partial answer is returned with it.
func readStream(stream *openai.ChatCompletionStream, onText func(string)) (streamed, error) {
	var (
		out  streamed
		text strings.Builder
		rsn  strings.Builder
		asm  callAssembler
	)
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.text = text.String()
			return out, err
		}
		for _, ch := range resp.Choices { // empty for usage and keep-alive chunks
			if ch.Index != 0 {
				continue
			}
			d := ch.Delta
			if d.Content != "" || d.ReasoningContent != "" || len(d.ToolCalls) > 0 || ch.FinishReason != "" {
				out.received = true
			}
			if ch.Delta.Content != "" {
				text.WriteString(ch.Delta.Content)
				onText(ch.Delta.Content)
			}
			rsn.WriteString(ch.Delta.ReasoningContent)
			for _, tc := range ch.Delta.ToolCalls {
				asm.add(tc)
			}
			if ch.FinishReason != "" {
				out.finish = ch.FinishReason
			}
		}
	}
	out.text, out.reasoning, out.calls = text.String(), rsn.String(), asm.done()
	if !out.received {
		return out, errStreamCut
	}
	return out, nil
}

// retryableStream reports whether a failed stream may be tried again: it
// broke before anything reached the person, and not because nobody listens
// at the address.
func retryableStream(ans streamed, err error) bool {
	if ans.received || errors.Is(err, syscall.ECONNREFUSED) {
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

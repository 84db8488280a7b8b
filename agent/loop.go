package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/media"
	"github.com/browseragent/browseragent/tools"
)

// ErrStepLimit is returned by Turn when the model kept calling tools until
// the step limit without giving an answer.
var ErrStepLimit = errors.New("step limit reached")

// maxImagesPerStep bounds the images sent after one step's tool calls;
// each costs over a thousand tokens.
const maxImagesPerStep = 4

// maxStreamRetries bounds retries of a stream that broke before any answer.
const maxStreamRetries = 2

// errDisabled is returned by New when no LLM is configured.
var errDisabled = errors.New("agent off")

// EventKind says what happened in a turn.
type EventKind int

const (
	EventStep       EventKind = iota // a request to the model begins (Step)
	EventText                        // a piece of the model's text, as it streams (Text)
	EventToolCall                    // the model called a tool (Call)
	EventToolResult                  // a tool returned (Call, Result or Err)
	EventNotice                      // something the person should know: a retry, images off, context shortened (Text)
)

func (k EventKind) String() string {
	switch k {
	case EventStep:
		return "step"
	case EventText:
		return "text"
	case EventToolCall:
		return "tool_call"
	case EventToolResult:
		return "tool_result"
	case EventNotice:
		return "notice"
	}
	return "unknown"
}

// ToolCallInfo is one tool call as the model made it.
type ToolCallInfo struct {
	ID   string
	Name string
	Args string // JSON as the model wrote it
}

// Event is one thing that happened during a turn. The library never prints;
// the shell and `browseragent run` render events.
type Event struct {
	Kind   EventKind
	Step   int
	Text   string
	Call   ToolCallInfo
	Result *tools.ToolResult // EventToolResult: the tool's result, nil when Err is set
	Err    error             // EventToolResult: the call failed in the infrastructure
	// Refused (EventToolResult): the guard refused the call (a deny rule,
	// the person said no, nobody to ask); Result carries the reason.
	Refused bool
}

// Events receives a turn's events, in order, on the goroutine running Turn.
type Events interface{ Event(Event) }

// EventsFunc adapts a function to Events.
type EventsFunc func(Event)

// Event implements Events.
func (f EventsFunc) Event(e Event) { f(e) }

// Options tune an Agent; nil means defaults.
type Options struct {
	// SystemExtra is appended to the system prompt (the browser mode, the
	// person's rules).
	SystemExtra string
	// Economy chooses which tools are offered; nil derives it from Settings.
	Economy *ToolEconomy
	// Transport carries the HTTP requests to the LLM; nil is http.DefaultTransport.
	Transport http.RoundTripper
	// ToolBounds limits the tools sent with one request; past them the
	// rest wait behind tool_search. Zero means MaxRequestTools and
	// MaxToolDefBytes.
	ToolBounds ToolBounds
}

// Stats are counters about the conversation, for /status and reports.
type Stats struct {
	Requests     int // model requests made
	ToolDefBytes int // bytes of the tools array in the last request
	RequestBytes int // bytes of the last request body
	Tokens       int // estimated tokens of the conversation
	Compacted    int // messages shortened or dropped to fit the window
}

// Agent is one conversation with an LLM that uses tools through a Caller.
// Turns run one at a time (a second Turn waits for the first). Stats,
// SetModel and Settings may be called from any goroutine, also during a
// turn; Reset waits for the turn to end.
type Agent struct {
	mu sync.Mutex // held for a whole turn; guards msgs and images

	smu   sync.Mutex // guards s.Model and stats, briefly
	s     Settings
	stats Stats

	caller  tools.Caller
	economy ToolEconomy
	client  *openai.Client
	tr      *transport
	msgs    []openai.ChatCompletionMessage // msgs[0] is the system prompt
	images  bool                           // send images; off after the model refuses one
	models  []ModelInfo                    // the endpoint's list, once asked (Models)
	shelf   *toolShelf                     // tools deferred behind tool_search, and those it chose
	offer   []string                       // the names the current step offered (guarded by mu)
	bounds  ToolBounds
}

// New returns an agent for settings s that calls tools through caller.
func New(s Settings, caller tools.Caller, opts *Options) (*Agent, error) {
	if !s.Enabled() {
		return nil, fmt.Errorf("%w: %s", errDisabled, s.Why())
	}
	if opts == nil {
		opts = &Options{}
	}
	if s.MaxSteps <= 0 {
		s.MaxSteps = DefaultMaxSteps
	}
	if s.ContextWindow <= 0 {
		s.ContextWindow = defaultContextWindow
	}
	if s.MaxResultChars <= 0 {
		s.MaxResultChars = defaultMaxResultChars
	}
	base := opts.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	tr := &transport{base: base, noAuth: s.APIKey == "", sleep: sleepCtx}
	economy := ToolEconomy{DevTools: s.DevTools}
	if opts.Economy != nil {
		economy = *opts.Economy
	}
	a := &Agent{s: s, caller: caller, economy: economy, tr: tr, client: newClient(s, tr), images: s.Images, shelf: &toolShelf{}, bounds: opts.ToolBounds}
	a.msgs = []openai.ChatCompletionMessage{{
		Role:    openai.ChatMessageRoleSystem,
		Content: buildSystemPrompt(opts.SystemExtra, time.Now()),
	}}
	return a, nil
}

// Reset forgets the conversation (the shell's /clear); the system prompt stays.
func (a *Agent) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.msgs = a.msgs[:1:1]
	a.shelf.reset()
	a.smu.Lock()
	a.stats = Stats{}
	a.smu.Unlock()
}

// SetSystemExtra replaces the session facts appended to the system prompt
// (the browser mode after /connect, for instance). It waits for a running
// turn to end.
func (a *Agent) SetSystemExtra(extra string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.msgs[0].Content = buildSystemPrompt(extra, time.Now())
}

// SetModel switches the model for the following requests.
func (a *Agent) SetModel(model string) {
	a.smu.Lock()
	defer a.smu.Unlock()
	a.s.Model = model
}

// SetEndpoint switches the following requests to s's endpoint: its
// provider, base URL, key, model and context window; the conversation and
// the other settings stay. It waits for a running turn to end.
func (a *Agent) SetEndpoint(s Settings) error {
	if !s.Enabled() {
		return fmt.Errorf("%w: %s", errDisabled, s.Why())
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.smu.Lock()
	defer a.smu.Unlock()
	a.s.Provider, a.s.BaseURL, a.s.APIKey, a.s.Model, a.s.Note = s.Provider, s.BaseURL, s.APIKey, s.Model, s.Note
	if s.ContextWindow > 0 {
		a.s.ContextWindow = s.ContextWindow
	}
	a.tr.noAuth = s.APIKey == ""
	a.client = newClient(a.s, a.tr)
	a.models = nil
	return nil
}

// Models asks the endpoint for its models (GET /models) and keeps the
// answer for KnownModels.
func (a *Agent) Models(ctx context.Context) ([]ModelInfo, error) {
	st := a.Settings()
	models, err := listModels(ctx, st.BaseURL, st.APIKey)
	if err != nil {
		return nil, fmt.Errorf("%s gives no model list: %s", st.BaseURL, plainNetError(err))
	}
	a.smu.Lock()
	a.models = models
	a.smu.Unlock()
	return models, nil
}

// Offered is the tools the next request offers the model, as sent: the
// registry's tools as tools.Offer chooses them, compacted, within the
// request's bounds (tool_search standing in for the rest). The shell's
// /tools lists these, and a call from that step may name no other.
func (a *Agent) Offered() []tools.ToolDef {
	return a.shelf.bound(CompactTools(a.caller.Tools(), a.economy), a.bounds)
}

// DeferredTools names the tools the last request left out for its
// bounds (MaxRequestTools, MaxToolDefBytes); the model reaches them with
// tool_search. Nil when every tool was sent.
func (a *Agent) DeferredTools() []string {
	var out []string
	for _, d := range a.shelf.Deferred() {
		out = append(out, d.Name)
	}
	return out
}

// KnownModels is the endpoint's model list as last asked, without asking
// again (for completion on every key); nil before the first Models.
func (a *Agent) KnownModels() []ModelInfo {
	a.smu.Lock()
	defer a.smu.Unlock()
	return a.models
}

// Settings returns the settings in use.
func (a *Agent) Settings() Settings {
	a.smu.Lock()
	defer a.smu.Unlock()
	return a.s
}

// Stats returns the conversation counters.
func (a *Agent) Stats() Stats {
	a.smu.Lock()
	defer a.smu.Unlock()
	return a.stats
}

// updateStats applies f to the counters.
func (a *Agent) updateStats(f func(*Stats)) {
	a.smu.Lock()
	f(&a.stats)
	a.smu.Unlock()
}

// Turn sends the person's message and runs the loop until the model answers
// without calling a tool, the step limit is hit (ErrStepLimit) or ctx is
// cancelled (ctx.Err()). In every case the conversation is left consistent,
// every tool call answered, so the next Turn continues it.
func (a *Agent) Turn(ctx context.Context, userMsg string, out Events) (string, error) {
	if out == nil {
		out = EventsFunc(func(Event) {})
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.msgs = append(a.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: userMsg})
	ctx = context.WithValue(ctx, retryNotifierKey{}, retryNotifier(func(status int, wait time.Duration, attempt int) {
		out.Event(Event{Kind: EventNotice, Text: fmt.Sprintf("LLM answered %d; retrying in %s (attempt %d of %d)",
			status, wait.Round(100*time.Millisecond), attempt, maxRetries)})
	}))
	for step := 1; step <= a.s.MaxSteps; step++ {
		ans, err := a.ask(ctx, step, out)
		if err != nil {
			return "", err
		}
		if len(ans.calls) == 0 {
			return ans.text, nil
		}
		// The step's calls may name only the tools this step offered.
		if err := a.runTools(tools.WithOffer(ctx, a.offer), step, ans.calls, out); err != nil {
			return "", err
		}
	}
	// What to do next is the caller's to say: the shell and `run` name
	// different ways on.
	steps := "1 step"
	if a.s.MaxSteps != 1 {
		steps = fmt.Sprintf("%d steps", a.s.MaxSteps)
	}
	return "", fmt.Errorf("%w: stopped after %s without a final answer", ErrStepLimit, steps)
}

// ask makes one streamed request and records the model's answer.
func (a *Agent) ask(ctx context.Context, step int, out Events) (streamed, error) {
	out.Event(Event{Kind: EventStep, Step: step})
	toolList := a.Offered()
	a.offer = a.offer[:0]
	for _, d := range toolList {
		a.offer = append(a.offer, d.Name)
	}
	for broken := 0; ; {
		a.fit(ToolDefBytes(toolList), out)
		req := openai.ChatCompletionRequest{Model: a.Settings().Model, Messages: a.msgs, Stream: true}
		if len(toolList) > 0 {
			req.Tools = openAITools(toolList)
		}
		ans, err := a.stream(ctx, req, step, out)
		if err == nil {
			for id, x := range ans.extra {
				a.tr.extra.Store(id, x)
			}
			a.msgs = append(a.msgs, assistantMessage(ans))
			return ans, nil
		}
		if ctx.Err() != nil {
			a.msgs = append(a.msgs, openai.ChatCompletionMessage{
				Role: openai.ChatMessageRoleAssistant, Content: strings.TrimSpace(ans.text + " [interrupted by the person]"),
			})
			return ans, ctx.Err()
		}
		if broken < maxStreamRetries && retryableStream(ans, err) {
			broken++
			out.Event(Event{Kind: EventNotice, Step: step, Text: fmt.Sprintf("LLM connection broke (%v); retrying", err)})
			if err := a.tr.sleep(ctx, time.Duration(broken)*time.Second); err != nil {
				return ans, err
			}
			continue
		}
		if a.images && isImageRejection(err) && a.dropImages() {
			out.Event(Event{Kind: EventNotice, Text: "the model does not accept images; sending text snapshots instead from now on"})
			continue
		}
		return ans, describeLLMError(a.Settings(), err)
	}
}

func (a *Agent) stream(ctx context.Context, req openai.ChatCompletionRequest, step int, out Events) (streamed, error) {
	tokens := estimateAll(a.msgs)
	st, err := a.client.CreateChatCompletionStream(ctx, req)
	a.updateStats(func(s *Stats) {
		s.Requests++
		s.Tokens = tokens
		s.ToolDefBytes = int(a.tr.toolBytes.Load())
		s.RequestBytes = int(a.tr.reqBytes.Load())
	})
	if err != nil {
		return streamed{}, err
	}
	defer st.Close()
	return readStream(st, func(s string) { out.Event(Event{Kind: EventText, Step: step, Text: s}) })
}

// fit keeps the conversation within the context window.
func (a *Agent) fit(toolBytes int, out Events) {
	msgs, n := fitContext(a.msgs, promptLimit(a.s.ContextWindow, toolBytes))
	if n == 0 {
		return
	}
	a.msgs = msgs
	a.updateStats(func(s *Stats) { s.Compacted += n })
	out.Event(Event{Kind: EventNotice, Text: fmt.Sprintf("context nearly full (%d-token window): shortened %d older messages", a.s.ContextWindow, n)})
}

// assistantMessage records the model's answer. go-openai drops an empty
// content; the transport puts it back as "".
func assistantMessage(ans streamed) openai.ChatCompletionMessage {
	m := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: ans.text, ToolCalls: ans.calls}
	if len(ans.calls) > 0 {
		// Thinking models (DeepSeek, Kimi) want their reasoning back while
		// they are in the middle of a tool loop.
		m.ReasoningContent = ans.reasoning
	}
	return m
}

// runTools executes the calls of one step, in order, through the Caller and
// appends one tool message per call, then one user message with the images.
func (a *Agent) runTools(ctx context.Context, step int, calls []openai.ToolCall, out Events) error {
	var images []openai.ChatMessagePart
	sent := 0 // images attached in this step
	for i, c := range calls {
		info := ToolCallInfo{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments}
		if ctx.Err() != nil {
			a.cancelCalls(calls[i:])
			return ctx.Err()
		}
		out.Event(Event{Kind: EventToolCall, Step: step, Call: info})
		res, err := a.call(ctx, info)
		refused := errors.Is(err, guard.ErrDenied)
		if refused {
			// A refusal is an answer for the model, not a broken call: the
			// result's text is the reason and what to do instead.
			err = nil
		}
		if err != nil && ctx.Err() != nil {
			a.cancelCalls(calls[i:])
			return ctx.Err()
		}
		out.Event(Event{Kind: EventToolResult, Step: step, Call: info, Result: res, Err: err, Refused: refused})
		text, parts := a.resultForModel(info, res, err, maxImagesPerStep-sent)
		sent += max(len(parts)-1, 0)
		a.msgs = append(a.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: c.ID, Content: text})
		images = append(images, parts...)
	}
	if len(images) > 0 {
		a.msgs = append(a.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: images})
	}
	return ctx.Err()
}

func (a *Agent) call(ctx context.Context, c ToolCallInfo) (*tools.ToolResult, error) {
	if !json.Valid([]byte(c.Args)) {
		return &tools.ToolResult{Outcome: tools.Failed, Failure: tools.ToolError, Text: fmt.Sprintf("the arguments were not valid JSON (%q); call %s again with a JSON object", truncate(c.Args, 200), c.Name)}, nil
	}
	if c.Name == ToolSearchName {
		// The agent's own index of the tools it did not send: it touches
		// nothing (no page, file or server), so it needs no guard.
		return a.shelf.search(c.Args), nil
	}
	return a.caller.Call(ctx, c.Name, json.RawMessage(c.Args), tools.OriginAgent)
}

// cancelCalls answers calls that will not run, so no tool call is left
// without a result.
func (a *Agent) cancelCalls(calls []openai.ToolCall) {
	for _, c := range calls {
		a.msgs = append(a.msgs, openai.ChatCompletionMessage{
			Role: openai.ChatMessageRoleTool, ToolCallID: c.ID,
			Content: "cancelled: the person interrupted the task before this call finished",
		})
	}
}

// resultForModel turns a tool result into the tool message text and the
// image parts for the user message that follows.
func (a *Agent) resultForModel(c ToolCallInfo, res *tools.ToolResult, err error, room int) (string, []openai.ChatMessagePart) {
	if err != nil {
		if errors.Is(err, tools.ErrUnknownTool) {
			return fmt.Sprintf("Tool call failed: %v. Use only the tools you were given.", err), nil
		}
		return fmt.Sprintf("Tool call failed: %v. Check the arguments, try another tool, or tell the person what failed.", err), nil
	}
	if res == nil {
		return "(no result)", nil
	}
	text := capText(res.Text, a.s.MaxResultChars)
	if res.IsError() && !strings.HasPrefix(strings.ToLower(text), "error") {
		text = "Error: " + text
	}
	if res.Note != "" { // browseragent's own guidance, outside the untrusted block
		text = strings.TrimSpace(text + "\n\n" + res.Note)
	}
	if res.Path != "" {
		text += "\n(saved to " + res.Path + ")"
	}
	parts, note := a.imageParts(c, res.Images, room)
	text = strings.TrimSpace(text + note)
	if text == "" {
		text = "(empty result)"
	}
	return text, parts
}

func (a *Agent) imageParts(c ToolCallInfo, imgs []media.Image, room int) ([]openai.ChatMessagePart, string) {
	if len(imgs) == 0 {
		return nil, ""
	}
	if !a.images {
		return nil, fmt.Sprintf("\n[The tool returned %d image(s), but this model does not accept images; use a text snapshot instead.]", len(imgs))
	}
	dropped := 0
	if len(imgs) > room {
		dropped = len(imgs) - max(room, 0)
		imgs = imgs[:max(room, 0)]
	}
	parts := []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: fmt.Sprintf("Image(s) returned by %s (call %s):", c.Name, c.ID)}}
	bad := 0
	for _, img := range imgs {
		url, ok := prepareImage(img)
		if !ok {
			bad++
			continue
		}
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: url, Detail: openai.ImageURLDetailAuto}})
	}
	note := ""
	if n := len(parts) - 1; n > 0 {
		note = fmt.Sprintf("\n[%d image(s) attached in the next user message.]", n)
	} else {
		parts = nil
	}
	if bad > 0 {
		note += fmt.Sprintf("\n[%d image(s) could not be decoded and were left out.]", bad)
	}
	if dropped > 0 {
		note += fmt.Sprintf("\n[%d more image(s) left out: at most %d images are sent per step.]", dropped, maxImagesPerStep)
	}
	return parts, note
}

// dropImages removes every tool image already in the conversation, after
// the model refused images, and notes it in the tool message before each.
// It reports whether there were any.
func (a *Agent) dropImages() bool {
	a.images = false
	kept := a.msgs[:0]
	found := false
	for _, m := range a.msgs {
		if m.Role == openai.ChatMessageRoleUser && m.MultiContent != nil {
			found = true
			if n := len(kept) - 1; n >= 0 && kept[n].Role == openai.ChatMessageRoleTool {
				kept[n].Content += "\n" + imagesLeftOut
			}
			continue
		}
		kept = append(kept, m)
	}
	a.msgs = kept
	return found
}

// untrustedEnd is the closing line of a guard.Untrusted block.
var untrustedEnd = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\n<<<END [0-9a-f]+ UNTRUSTED>>>\s*$`)
})

// capText cuts s to limit characters, with a note on how to get the rest.
// The closing marker of an untrusted block survives the cut, so the
// block's content never seems to run on into our note.
func capText(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	body, end := s, ""
	if loc := untrustedEnd().FindStringIndex(s); loc != nil {
		body, end = s[:loc[0]], s[loc[0]:]
	}
	cut := truncate(body, max(limit-len(end), 0))
	return fmt.Sprintf("%s%s\n\n[Result cut: showing the first %d of %d characters. To get the rest, ask for less at a time: a CSS selector or another format for web_fetch, a snapshot of one element in the browser, or the tool's page/offset parameter if it has one.]",
		cut, end, len(cut), len(body))
}

// truncate cuts s to at most n bytes without splitting a UTF-8 character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/mcpclient"
)

// maxFieldLine caps a field's line in the form box; the choices are
// shown again when the field is asked.
const maxFieldLine = 100

// maxSampleShown caps the sampling messages shown in the approval box.
const maxSampleShown = 2000

// elicit answers an MCP server's elicitation/create (Hooks.HostOptions)
// with a small form:
// the server's message, then each field with its type, default, choices
// and whether it is required. First the person chooses to fill it in (y),
// decline (n) or cancel (c); then each field is asked in turn (empty
// keeps the default). End of input or Ctrl-C cancels.
func (s *Shell) elicit(ctx context.Context, e *mcpclient.Elicitation) (*mcp.ElicitResult, error) {
	approveMu.Lock()
	defer approveMu.Unlock()
	ctx, done, err := s.formContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", mcpclient.ErrDeclined, err)
	}
	defer done()
	s.p.SpinStop()
	s.p.Hold(true)
	defer s.p.Hold(false)
	s.p.Text(elicitBox(e, s.p))
	action, err := s.ask(ctx, elicitQuestion(e), func(a string) (string, bool) {
		switch strings.ToLower(a) {
		case "y", "yes":
			return "accept", true
		case "n", "no":
			return "decline", true
		case "c", "cancel":
			return "cancel", true
		}
		return "", false
	}, "answer y, n or c")
	if err != nil || action != "accept" || e.Mode == "url" {
		return finishElicit(s, action, nil, err)
	}
	content := map[string]any{}
	for _, f := range e.Fields {
		v, err := s.askField(ctx, f)
		if err != nil {
			return finishElicit(s, "cancel", nil, err)
		}
		if v != nil {
			content[f.Name] = v
		}
	}
	return finishElicit(s, "accept", content, nil)
}

func finishElicit(s *Shell, action string, content map[string]any, err error) (*mcp.ElicitResult, error) {
	if err != nil {
		s.p.Line("")
		s.p.Hint("cancelled: the server is told so")
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	switch action {
	case "accept":
		s.p.Hint("sent to the server")
	case "decline":
		s.p.Hint("declined")
	default:
		s.p.Hint("cancelled")
	}
	return &mcp.ElicitResult{Action: action, Content: content}, nil
}

// elicitBox draws the request: server, message, and the fields or URL.
func elicitBox(e *mcpclient.Elicitation, p *printer) string {
	var b strings.Builder
	// The server chose the message, the URL and the fields: each is shown
	// visible.
	fmt.Fprintf(&b, "%s\n", p.paint(ansiBold, "╭─ MCP server "+textutil.VisibleLine(e.Server)+" asks"))
	for _, l := range strings.Split(strings.TrimSpace(e.Message), "\n") {
		fmt.Fprintf(&b, "│ %s\n", textutil.VisibleLine(l))
	}
	if e.Mode == "url" && e.Retry { // the call was refused until the person opens it (-32042)
		fmt.Fprintf(&b, "│ open     %s\n", textutil.VisibleLine(e.URL))
		b.WriteString("│ in your browser (browseragent opens nothing itself); the call is sent again when you are done\n")
		b.WriteString("╰─ [y] done, send the call again   [n] give up")
		return b.String()
	}
	if e.Mode == "url" {
		fmt.Fprintf(&b, "│ open     %s\n", textutil.VisibleLine(e.URL))
		b.WriteString("╰─ [y] I will open it   [n] decline   [c] cancel")
		return b.String()
	}
	for _, f := range e.Fields {
		fmt.Fprintf(&b, "│ %-8s %s\n", textutil.VisibleLine(f.Name), textutil.VisibleLine(textutil.OneLine(fieldSummary(f), maxFieldLine)))
	}
	b.WriteString("╰─ [y] fill in   [n] decline   [c] cancel")
	return b.String()
}

func elicitQuestion(e *mcpclient.Elicitation) string {
	if e.Retry {
		return "opened it? [y/n] "
	}
	if e.Mode == "url" {
		return "open the link? [y/n/c] "
	}
	return "fill in the form? [y/n/c] "
}

// formContext is the context a server's question is asked under. At a
// terminal the question belongs to the running command: Ctrl-C cancels
// that command, and with it the question, so its reader lets go of the
// terminal before go-prompt takes it back (the server's own request
// context may never end). With no command running the prompt owns the
// terminal and the question is refused. Off a terminal ctx is kept: the
// script's lines are read as answers.
func (s *Shell) formContext(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.tty == nil {
		return ctx, func() {}, nil
	}
	s.mu.Lock()
	run := s.running
	s.mu.Unlock()
	if run == nil {
		return nil, nil, errors.New("asked while no command was running (the prompt has the terminal)")
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(run, cancel)
	return ctx, func() { stop(); cancel() }, nil
}

// waitForms waits, at a terminal, until no approval box or server form is
// open. runAsCommand calls it after cancelling its command, whose boxes
// then end at once, so no reader is left on the terminal when the prompt
// comes back.
func (s *Shell) waitForms() {
	if s.tty == nil {
		return
	}
	approveMu.Lock()
	approveMu.Unlock()
}

// fieldSummary is "string, required, default Paris: description".
func fieldSummary(f mcpclient.ElicitField) string {
	parts := []string{fieldType(f)}
	if f.Required {
		parts = append(parts, "required")
	}
	if f.Default != nil {
		parts = append(parts, "default "+showValue(f.Default))
	}
	out := strings.Join(parts, ", ")
	if d := firstNonEmpty(f.Description, f.Title); d != "" {
		out += ": " + textutil.OneLine(d, 120)
	}
	return out
}

func fieldType(f mcpclient.ElicitField) string {
	t := f.Type
	switch {
	case f.Type == "array":
		t = "several of " + choiceList(f)
	case f.Choice():
		t = "one of " + choiceList(f)
	case f.Format != "":
		t += " (" + f.Format + ")"
	}
	if !math.IsNaN(f.Min) || !math.IsNaN(f.Max) {
		t += fmt.Sprintf(" [%s..%s]", bound(f.Min), bound(f.Max))
	}
	return t
}

func bound(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprint(v)
}

// choiceList numbers the choices: "1) s, 2) m (Medium)".
func choiceList(f mcpclient.ElicitField) string {
	var parts []string
	for i, c := range f.Choices {
		label := c
		if i < len(f.Labels) && f.Labels[i] != "" && f.Labels[i] != c {
			label += " (" + f.Labels[i] + ")"
		}
		parts = append(parts, fmt.Sprintf("%d) %s", i+1, label))
	}
	return strings.Join(parts, ", ")
}

func showValue(v any) string {
	if list, ok := v.([]any); ok {
		var parts []string
		for _, e := range list {
			parts = append(parts, fmt.Sprint(e))
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v)
}

func firstNonEmpty(a ...string) string {
	for _, s := range a {
		if s != "" {
			return s
		}
	}
	return ""
}

// askField asks one field until the answer is valid. Empty keeps the
// default; an optional field without one is left out (nil).
func (s *Shell) askField(ctx context.Context, f mcpclient.ElicitField) (any, error) {
	q := "  " + f.Name
	if f.Required {
		q += "*"
	}
	if f.Choice() {
		q += " (" + choiceList(f) + ")"
	}
	if f.Default != nil {
		q += " [" + showValue(f.Default) + "]"
	} else if f.Type == "boolean" {
		q += " [y/n]"
	}
	q += ": "
	for {
		s.p.Prompt(q)
		line, err := s.readAnswer(ctx)
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "" && f.Default != nil:
			return f.Check(f.Default)
		case line == "" && f.Required:
			s.p.Error("%s is required", textutil.VisibleLine(f.Name))
			continue
		case line == "":
			return nil, nil
		}
		v, err := f.Parse(line)
		if err == nil {
			return v, nil
		}
		s.p.Error("%s: %s", textutil.VisibleLine(f.Name), textutil.VisibleLine(words.Error(err)))
	}
}

// ask prompts until parse accepts the answer; end of input or ctx ends it
// with an error.
func (s *Shell) ask(ctx context.Context, q string, parse func(string) (string, bool), again string) (string, error) {
	for {
		s.p.Prompt(q)
		line, err := s.readAnswer(ctx)
		if err != nil {
			return "", err
		}
		if v, ok := parse(strings.TrimSpace(line)); ok {
			return v, nil
		}
		s.p.Error("%s", again)
	}
}

// approveSampling shows a server's sampling request (server, system
// prompt, messages, token limit) and asks whether to send it to the LLM.
// End of input or Ctrl-C means no.
func (s *Shell) approveSampling(ctx context.Context, r *mcpclient.SampleRequest) (bool, error) {
	approveMu.Lock()
	defer approveMu.Unlock()
	ctx, done, err := s.formContext(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	s.p.SpinStop()
	s.p.Hold(true)
	defer s.p.Hold(false)
	var b strings.Builder
	b.WriteString(s.p.paint(ansiBold, "╭─ MCP server "+r.Server+" wants the LLM to answer") + "\n")
	text := mcpclient.SampleText(r.Params)
	if len(text) > maxSampleShown {
		text = text[:maxSampleShown] + " …"
	}
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintf(&b, "│ %s\n", l)
	}
	if r.Params.MaxTokens > 0 {
		fmt.Fprintf(&b, "│ (at most %d tokens)\n", r.Params.MaxTokens)
	}
	b.WriteString("╰─ [y] send to the LLM   [n] refuse")
	s.p.Text(b.String())
	ans, err := s.ask(ctx, "send? [y/n] ", func(a string) (string, bool) {
		switch strings.ToLower(a) {
		case "y", "yes":
			return "y", true
		case "n", "no":
			return "n", true
		}
		return "", false
	}, "answer y or n")
	if err != nil {
		s.p.Line("")
		s.p.Hint("refused")
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	return ans == "y", nil
}

// mcpProgress shows a tool call's progress in the spinner's line
// (Hooks.HostOptions).
func (s *Shell) mcpProgress(p mcpclient.Progress) {
	s.p.SpinLabel(textutil.VisibleLine("mcp " + p.Server + ": " + p.String())) // the server chose its message
}

// sample answers a server's sampling request with st's LLM (configured:
// Hooks.HostOptions checks) when the person agrees to it.
func (s *Shell) sample(ctx context.Context, st agent.Settings, r *mcpclient.SampleRequest) (*mcp.CreateMessageResult, error) {
	ok, err := s.approveSampling(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", mcpclient.ErrDeclined, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w by the person", mcpclient.ErrDeclined)
	}
	s.p.SpinStart("the LLM answers " + r.Server)
	defer s.p.SpinStop()
	return agent.Sample(ctx, st, r.Params)
}

package shell

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/tools"
)

// dispatch routes one line: "/..." is a command, anything else goes to the
// agent after @server:uri mentions are expanded. An unknown command is an
// error with suggestions and never reaches the LLM.
func (s *Shell) dispatch(ctx context.Context, line string) error {
	trim := strings.TrimSpace(line)
	if strings.HasPrefix(trim, "/") {
		return s.runCommand(ctx, trim)
	}
	return s.sendAgent(ctx, line)
}

// call is a parsed command line.
type call struct {
	name  string            // without the slash
	args  []string          // positional arguments, flags removed
	flags map[string]string // --name value / --name=value
	rest  string            // the raw text after the command name
}

// parseLine splits "/name args..." into a call. Quotes group words; known
// flags of cmd take a value.
func parseLine(line string, cmd *command) (*call, error) {
	line = strings.TrimPrefix(strings.TrimSpace(line), "/")
	name, rest := line, ""
	if i := strings.IndexAny(line, " \t\n"); i >= 0 {
		name, rest = line[:i], line[i+1:]
	}
	c := &call{name: name, rest: strings.TrimSpace(rest), flags: map[string]string{}}
	words, err := splitWords(c.rest)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "--") || cmd == nil || cmd.rawArgs {
			c.args = append(c.args, w)
			continue
		}
		fname, val, hasVal := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		f := cmd.flag(fname)
		if f == nil {
			return nil, &hintError{
				msg:  fmt.Sprintf("/%s: unknown flag --%s", cmd.name, fname),
				hint: "usage: " + cmd.usage(),
			}
		}
		if f.arg != "" && !hasVal {
			if i+1 >= len(words) {
				return nil, &hintError{msg: fmt.Sprintf("/%s: --%s needs a value (%s)", cmd.name, fname, f.arg), hint: "usage: " + cmd.usage()}
			}
			i++
			val = words[i]
		}
		c.flags[fname] = val
	}
	return c, nil
}

// splitWords splits s at spaces, keeping "quoted words" and 'quoted words'
// together.
func splitWords(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed quote %c", quote)
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, nil
}

// runCommand runs a slash command.
func (s *Shell) runCommand(ctx context.Context, line string) error {
	name := strings.TrimPrefix(line, "/")
	if i := strings.IndexAny(name, " \t\n"); i >= 0 {
		name = name[:i]
	}
	if strings.HasPrefix(name, "mcp__") {
		return s.runPromptCommand(ctx, line)
	}
	cmd := lookup(name)
	if cmd == nil {
		return unknownCommand(name)
	}
	c, err := parseLine(line, cmd)
	if err != nil {
		return err
	}
	if len(c.args) < cmd.minArgs {
		return &hintError{msg: fmt.Sprintf("/%s: missing %s", cmd.name, cmd.args), hint: "usage: " + cmd.usage()}
	}
	return cmd.run(ctx, s, c)
}

// unknownCommand says so and suggests the closest commands.
func unknownCommand(name string) error {
	near := didYouMean(name, commandNames())
	msg := fmt.Sprintf("unknown command /%s", name)
	if len(near) > 0 {
		msg += "; did you mean /" + strings.Join(near, " or /") + "?"
	}
	return &hintError{msg: msg, hint: "/help lists the commands; text without a leading / goes to the agent"}
}

// didYouMean returns up to two names close to name: same prefix, or within
// an edit distance that grows with the length.
func didYouMean(name string, names []string) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, n := range names {
		d := textutil.EditDistance(name, n)
		switch {
		case name != "" && strings.HasPrefix(n, name):
			d = 0
		case d > max(1, len(name)/3+1):
			continue
		}
		cs = append(cs, cand{n, d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i := 0; i < len(cs) && i < 2; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// sendAgent runs one agent turn for text, after @server:uri mentions are
// expanded into the message.
func (s *Shell) sendAgent(ctx context.Context, text string) error {
	if s.opts.Agent == nil {
		return s.noLLM()
	}
	if s.opts.MCP != nil && strings.Contains(text, "@") {
		var err error
		if text, err = s.opts.MCP.ExpandMentions(ctx, text); err != nil {
			return &hintError{msg: err.Error(), hint: "/mcp lists servers; /mcp resources NAME lists a server's resources; Tab completes @server:"}
		}
	}
	s.p.SpinStart("thinking")
	_, err := s.opts.Agent.Turn(ctx, text, agent.EventsFunc(s.agentEvent))
	s.p.SpinStop()
	s.p.EndStream()
	if errors.Is(err, agent.ErrStepLimit) {
		return &hintError{msg: err.Error(), hint: `say "continue" to go on, or raise max_steps in config.yaml (--max-steps at start)`}
	}
	return err
}

// noLLM explains how to configure a model.
func (s *Shell) noLLM() error {
	msg := "no LLM configured, so text goes nowhere (slash commands work without one)"
	if s.opts.NoLLMReason != "" {
		msg = s.opts.NoLLMReason
	}
	return &hintError{msg: msg, hint: llmHint}
}

const llmHint = "set OPENAI_API_KEY, plus OPENAI_BASE_URL for another OpenAI-compatible API (e.g. https://api.deepseek.com/v1),\n" +
	"and BROWSERAGENT_MODEL (e.g. deepseek-chat) or --model; then start browseragent again"

// agentEvent prints one event of a turn; it runs on the turn's goroutine.
func (s *Shell) agentEvent(ev agent.Event) {
	switch ev.Kind {
	case agent.EventText:
		s.p.SpinStop()
		s.p.Stream(textutil.Visible(ev.Text)) // pages the model read may have chosen it
	case agent.EventToolCall:
		s.p.SpinStop()
		s.p.Hint("→ %s %s", textutil.VisibleLine(ev.Call.Name), textutil.VisibleLine(textutil.OneLine(ev.Call.Args, 100)))
		s.p.SpinStart(ev.Call.Name)
	case agent.EventToolResult:
		s.p.SpinStop()
		s.toolResultLine(ev)
		s.p.SpinStart("thinking")
	case agent.EventNotice:
		s.p.Hint("%s", ev.Text)
	}
}

// toolResultLine prints a one-line summary of a tool result in a turn.
func (s *Shell) toolResultLine(ev agent.Event) {
	switch {
	case ev.Err != nil:
		s.p.Error("%s", textutil.VisibleLine(textutil.Labelled(ev.Call.Name, words.Error(ev.Err))))
	case ev.Result == nil:
	case ev.Result.IsError():
		s.p.Error("%s", textutil.VisibleLine(textutil.Labelled(ev.Call.Name, textutil.OneLine(ev.Result.ForPerson(), 200))))
	default:
		s.p.Hint("← %s: %s", textutil.VisibleLine(ev.Call.Name), textutil.VisibleLine(resultSummary(ev.Result)))
	}
}

// resultSummary is "1234 chars" plus a saved file or images.
func resultSummary(r *tools.ToolResult) string {
	parts := []string{plural(len(r.Text), "char")}
	if len(r.Images) > 0 {
		parts = append(parts, plural(len(r.Images), "image"))
	}
	if r.Path != "" {
		parts = append(parts, r.Path)
	}
	return strings.Join(parts, ", ")
}

// plural is "1 tool", "3 tools".
func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

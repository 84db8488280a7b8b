package shell

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/browseragent/browseragent/internal/words"
)

var errNoGuard = &hintError{msg: "the guard is not available in this session", hint: "this is a wiring bug: please report it"}

func guardCommands() []*command {
	return []*command{
		{name: "trust", args: "[reset]", summary: "list \"always allow\" grants; reset drops them all",
			subs: []subSpec{{"reset", "drop every grant"}}, run: cmdTrust,
			complete: func(_ *Shell, n int, _ []string) []suggestion {
				if n == 0 {
					return []suggestion{{"reset", "drop every grant"}}
				}
				return nil
			}},
		{name: "sites", args: "check URL", summary: "say which sensitive-site rule matches URL", minArgs: 2,
			subs: []subSpec{{"check", "which rule matches URL"}}, run: cmdSites,
			complete: func(_ *Shell, n int, _ []string) []suggestion {
				if n == 0 {
					return []suggestion{{"check", "which rule matches URL"}}
				}
				return nil
			}},
		{name: "audit", args: "[N]", summary: "the last N tool calls from the audit log (default 20)", run: cmdAudit},
	}
}

func agentCommands() []*command {
	return []*command{
		{name: "model", args: "[NAME]", summary: "show the endpoint's models, or switch to NAME", run: cmdModel, complete: completeModel},
		{name: "clear", summary: "forget the conversation, start afresh", run: cmdClear},
		{name: "cancel", summary: "cancel the running turn (Ctrl-C does it while one runs)", run: cmdCancel},
	}
}

func cmdTrust(_ context.Context, s *Shell, c *call) error {
	if s.opts.Guard == nil {
		return errNoGuard
	}
	if len(c.args) > 0 {
		if c.args[0] != "reset" {
			return &hintError{msg: fmt.Sprintf("/trust: unknown sub-command %q", c.args[0]), hint: "usage: /trust [reset]"}
		}
		n := s.opts.Guard.ResetTrust()
		s.p.Line("dropped %s; every write asks again", plural(n, "grant"))
		return nil
	}
	g := s.opts.Guard.Grants()
	if len(g) == 0 {
		s.p.Line("no grants: every call that needs approval asks")
		return nil
	}
	s.p.Text(strings.Join(g, "\n"))
	s.p.Hint("/trust reset drops them; switching /connect or /disconnect drops them too")
	return nil
}

func cmdSites(_ context.Context, s *Shell, c *call) error {
	if s.opts.Guard == nil {
		return errNoGuard
	}
	if c.args[0] != "check" {
		return &hintError{msg: fmt.Sprintf("/sites: unknown sub-command %q", c.args[0]), hint: "usage: /sites check URL"}
	}
	text, err := s.opts.Guard.CheckSite(normalizeURL(c.args[1]))
	if err != nil {
		return err
	}
	s.p.Text(text)
	return nil
}

func cmdAudit(_ context.Context, s *Shell, c *call) error {
	if s.opts.Guard == nil {
		return errNoGuard
	}
	n := 20
	if len(c.args) > 0 {
		v, err := strconv.Atoi(c.args[0])
		if err != nil || v <= 0 {
			return &hintError{msg: fmt.Sprintf("/audit: %q is not a positive number", c.args[0]), hint: "usage: /audit [N]"}
		}
		n = v
	}
	lines, err := s.opts.Guard.Audit(n)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		s.p.Line("the audit log is empty")
		return nil
	}
	s.p.Text(strings.Join(lines, "\n"))
	return nil
}

func cmdModel(ctx context.Context, s *Shell, c *call) error {
	if s.opts.Agent == nil {
		return s.noLLM()
	}
	if len(c.args) == 0 {
		st := s.opts.Agent.Settings()
		s.p.Line("%s (%s)", st.Model, st.BaseURL)
		ml, ok := s.opts.Agent.(ModelLister)
		if !ok {
			return nil
		}
		models, err := ml.Models(ctx)
		if err != nil {
			s.p.Line("%s", words.Error(err))
			return nil
		}
		for _, m := range models {
			line := "  " + m.ID
			if m.ID == st.Model {
				line = "* " + m.ID
			}
			if m.Tools {
				line += "  (tools)"
			}
			s.p.Line("%s", line)
		}
		s.p.Hint("/model NAME switches")
		return nil
	}
	s.opts.Agent.SetModel(c.args[0])
	s.p.Line("model: %s", c.args[0])
	return nil
}

// completeModel offers the endpoint's models as last listed, asking once
// when they were never listed.
func completeModel(s *Shell, n int, _ []string) []suggestion {
	ml, ok := s.opts.Agent.(ModelLister)
	if n > 0 || !ok {
		return nil
	}
	models := ml.KnownModels()
	if models == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		models, _ = ml.Models(ctx)
		cancel()
	}
	var out []suggestion
	for _, m := range models {
		desc := "model"
		if m.Tools {
			desc = "model, calls tools"
		}
		out = append(out, suggestion{m.ID, desc})
	}
	return out
}

// cmdClear forgets the conversation. Without an LLM there is none, so
// there is nothing to clear: that is said, and it is not an error.
func cmdClear(_ context.Context, s *Shell, _ *call) error {
	if s.opts.Agent == nil {
		s.p.Line("nothing to clear: there is no agent in this session, so no conversation")
		s.p.Hint("/help model says how to configure an LLM")
		return nil
	}
	s.opts.Agent.Reset()
	s.p.Line("conversation cleared")
	return nil
}

// cmdCancel: commands and turns run one at a time and the prompt only comes
// back when they end, so there is never anything to cancel by the time
// /cancel is read; Ctrl-C is the way while something runs.
func cmdCancel(_ context.Context, s *Shell, _ *call) error {
	s.p.Line("nothing is running")
	s.p.Hint("press Ctrl-C while a turn or command runs to cancel it")
	return nil
}

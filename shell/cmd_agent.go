package shell

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/browseragent/browseragent/agent"
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
		{name: "model", args: "[NAME] [--save]", summary: "show the endpoint's models, or switch to NAME", run: cmdModel, complete: completeModel,
			help: "The switch lasts for this session; --save also writes the model to config.yaml\n" +
				"(under the provider's entry when a provider is in use), so the next start uses it.\n" +
				"/model --save alone saves the model in use. /help model says how an LLM is configured.",
			flags: []flagSpec{{"save", "", "also write it to config.yaml, keeping the file's other settings and comments"}}},
		{name: "provider", args: "[NAME] [--save]", summary: "list the providers and local servers, or switch to NAME", run: cmdProvider, complete: completeProvider,
			help: "Lists the built-in providers, those under providers: in config.yaml, and which local\n" +
				"servers (Ollama, llama.cpp, LM Studio, vLLM, Jan) answer on this machine. /provider NAME\n" +
				"switches this session to it (its model, else the first it lists that calls tools);\n" +
				"--save also writes provider: and its model to config.yaml for the next start.",
			flags: []flagSpec{{"save", "", "also write it to config.yaml, keeping the file's other settings and comments"}}},
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
	_, save := c.flags["save"]
	if len(c.args) == 0 && !save {
		return listModels(ctx, s)
	}
	model := s.opts.Agent.Settings().Model
	if len(c.args) > 0 {
		model = c.args[0]
		s.opts.Agent.SetModel(model)
		s.p.Line("model: %s", model)
	}
	if !save {
		return nil
	}
	path := s.configPath()
	note, err := agent.SaveModel(path, s.opts.Agent.Settings(), model, os.Getenv)
	if err != nil {
		return err
	}
	s.saved(path, note)
	return nil
}

// saved says where a setting was written, and what still overrides it.
func (s *Shell) saved(path, note string) {
	s.p.Line("saved to %s", path)
	if note != "" {
		s.p.Hint("%s", note)
	}
}

// configPath is the config file /model --save and /provider read and write.
func (s *Shell) configPath() string {
	if s.opts.ConfigPath != "" {
		return s.opts.ConfigPath
	}
	return agent.ConfigPath(os.Getenv)
}

func listModels(ctx context.Context, s *Shell) error {
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
	s.p.Hint("/model NAME switches; /model NAME --save also keeps it in config.yaml")
	return nil
}

// cmdProvider lists the providers, or switches the session to one (making
// the agent when there was none: the first LLM can be chosen here).
func cmdProvider(ctx context.Context, s *Shell, c *call) error {
	path := s.configPath()
	fc, err := agent.LoadConfig(path)
	if err != nil {
		return err
	}
	if len(c.args) == 0 {
		return listProviders(ctx, s, fc)
	}
	name := c.args[0]
	st := agent.ProviderSettings(ctx, name, os.Getenv, fc)
	if !st.Enabled() {
		return &hintError{msg: st.Why(), hint: "/provider lists the providers; /help model says how to configure one"}
	}
	if err := s.useEndpoint(st); err != nil {
		return err
	}
	s.p.Line("provider: %s (%s), model %s", name, st.BaseURL, st.Model)
	if st.Note != "" { // the model was the endpoint's pick, not configured
		s.p.Hint("/model lists what it serves, /model NAME switches")
	}
	if _, save := c.flags["save"]; !save {
		return nil
	}
	note, err := agent.SaveProvider(path, name, st.Model, os.Getenv)
	if err != nil {
		return err
	}
	s.saved(path, note)
	return nil
}

// useEndpoint points the agent at st, or makes the agent when the session
// started without one.
func (s *Shell) useEndpoint(st agent.Settings) error {
	if s.opts.Agent == nil {
		if s.opts.NewAgent == nil {
			return s.noLLM()
		}
		a, err := s.opts.NewAgent(st)
		if err != nil {
			return err
		}
		s.opts.Agent, s.opts.NoLLMReason = a, ""
		return nil
	}
	sw, ok := s.opts.Agent.(EndpointSwitcher)
	if !ok {
		return &hintError{msg: "this agent cannot switch provider", hint: "start browseragent again with --provider"}
	}
	return sw.SetEndpoint(st)
}

func listProviders(ctx context.Context, s *Shell, fc *agent.FileConfig) error {
	list := agent.Providers(fc)
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	agent.ProbeLocal(pctx, list)
	cancel()
	var cur agent.Settings
	if s.opts.Agent != nil {
		cur = s.opts.Agent.Settings()
	}
	var rows [][2]string
	for _, p := range list {
		mark := "  "
		if cur.BaseURL != "" && (cur.Provider == p.Name || cur.Provider == "" && cur.BaseURL == p.BaseURL) {
			mark = "* "
		}
		rows = append(rows, [2]string{mark + p.Name, p.BaseURL + "  " + providerState(p)})
	}
	for _, l := range strings.Split(strings.TrimRight(columns(rows), "\n"), "\n") {
		s.p.Line("%s", strings.TrimPrefix(l, "  ")) // the mark is the indent
	}
	s.p.Hint("/provider NAME switches; /provider NAME --save also keeps it in config.yaml")
	return nil
}

// providerState says whether a provider can be used now: a local server
// that answers, a key that is set.
func providerState(p agent.ProviderInfo) string {
	switch {
	case p.Local && p.Err != nil:
		return "local, not running"
	case p.Local:
		return "local, running: " + plural(len(p.Models), "model")
	case os.Getenv(p.KeyEnv) != "":
		return p.KeyEnv + " is set"
	}
	return "needs " + p.KeyEnv
}

// completeProvider offers the provider names.
func completeProvider(s *Shell, n int, _ []string) []suggestion {
	if n > 0 {
		return nil
	}
	fc, err := agent.LoadConfig(s.configPath())
	if err != nil {
		return nil
	}
	var out []suggestion
	for _, p := range agent.Providers(fc) {
		out = append(out, suggestion{p.Name, p.BaseURL})
	}
	return out
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

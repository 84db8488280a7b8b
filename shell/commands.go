package shell

import (
	"context"
	"fmt"
	"strings"

	"github.com/browseragent/browseragent/agent"
)

// command is one slash command: its help, flags and handler.
type command struct {
	name    string
	args    string // usage after the name, e.g. "URL [--select CSS]"
	summary string // one line, for /help and the completion popup
	help    string // more, for /help NAME
	minArgs int
	rawArgs bool // do not parse --flags: the text after the name is data (/call, /type)
	flags   []flagSpec
	subs    []subSpec // sub-commands (/mcp restart NAME), for help and completion
	run     func(ctx context.Context, s *Shell, c *call) error
	// complete suggests the positional argument being typed (n is its
	// index, args those before it); nil means none.
	complete func(s *Shell, n int, args []string) []suggestion
}

type flagSpec struct{ name, arg, desc string }

type subSpec struct{ name, desc string }

// suggestion is a completion candidate with its description.
type suggestion struct{ text, desc string }

func (c *command) flag(name string) *flagSpec {
	for i := range c.flags {
		if c.flags[i].name == name {
			return &c.flags[i]
		}
	}
	return nil
}

func (c *command) usage() string {
	if c.args == "" {
		return "/" + c.name
	}
	return "/" + c.name + " " + c.args
}

// commands is the table, in /help order; filled in init to break the
// initialisation cycle through /help.
var commands []*command

func init() {
	commands = append(commands, generalCommands()...)
	commands = append(commands, browserCommands()...)
	commands = append(commands, toolCommands()...)
	commands = append(commands, mcpCommands()...)
	commands = append(commands, guardCommands()...)
	commands = append(commands, agentCommands()...)
}

var aliases = map[string]string{"quit": "exit", "q": "exit", "?": "help"}

func lookup(name string) *command {
	if a, ok := aliases[name]; ok {
		name = a
	}
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func commandNames() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.name)
	}
	return out
}

func generalCommands() []*command {
	return []*command{
		{name: "help", args: "[COMMAND]", summary: "list commands, or explain one",
			run: cmdHelp, complete: completeHelp},
		{name: "exit", summary: "leave the shell (also Ctrl-D, /quit)",
			run: func(_ context.Context, s *Shell, _ *call) error { s.setExiting(); return nil }},
	}
}

// cmdHelp prints the command list, or one command in full.
func cmdHelp(_ context.Context, s *Shell, c *call) error {
	if len(c.args) > 0 {
		name := strings.TrimPrefix(c.args[0], "/")
		if name == "model" || name == "llm" {
			s.p.Text(modelHelp())
			return nil
		}
		cmd := lookup(name)
		if cmd == nil {
			return unknownCommand(name)
		}
		s.p.Text(commandHelp(cmd))
		return nil
	}
	var b strings.Builder
	b.WriteString("Type a task in plain words for the agent, or a command:\n")
	const w = 26
	for _, cmd := range commands {
		u := cmd.usage()
		if len(cmd.flags) > 0 && len(u) > w {
			u = "/" + cmd.name + " [flags]"
		}
		fmt.Fprintf(&b, "  %-*s %s\n", w, u, cmd.summary)
	}
	fmt.Fprintf(&b, "  %-*s %s\n", w, "/mcp__SERVER__PROMPT A=V", "run an MCP prompt and send it to the agent")
	b.WriteString("\nMention a resource with @server:uri (Tab completes). /help COMMAND says more.\n")
	b.WriteString("Ctrl-C cancels what is running, Ctrl-D or /exit leaves.")
	s.p.Text(b.String())
	return nil
}

func commandHelp(cmd *command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  %s\n", cmd.usage(), cmd.summary)
	if cmd.help != "" {
		b.WriteString("\n" + indent(cmd.help, "  ") + "\n")
	}
	if len(cmd.flags) > 0 {
		var rows [][2]string
		for _, f := range cmd.flags {
			rows = append(rows, [2]string{strings.TrimSpace("--" + f.name + " " + f.arg), f.desc})
		}
		b.WriteString("\nflags:\n" + columns(rows))
	}
	if len(cmd.subs) > 0 {
		var rows [][2]string
		for _, sc := range cmd.subs {
			rows = append(rows, [2]string{"/" + cmd.name + " " + sc.name, sc.desc})
		}
		b.WriteString("\nsub-commands:\n" + columns(rows))
	}
	return strings.TrimRight(b.String(), "\n")
}

// columns lays rows out as two indented columns, the second aligned.
func columns(rows [][2]string) string {
	w := 0
	for _, r := range rows {
		w = max(w, len([]rune(r[0])))
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, r[0], r[1])
	}
	return b.String()
}

// modelHelp is /help model: how an LLM is configured, and the local
// servers found without any configuration (agent.LocalServers).
func modelHelp() string {
	var local []string
	for _, ls := range agent.LocalServers {
		local = append(local, fmt.Sprintf("%s (%s)", ls.Name, ls.BaseURL))
	}
	return `Configuring an LLM (any OpenAI-compatible Chat Completions API):
  OPENAI_API_KEY       the API key
  OPENAI_BASE_URL      another provider or a local server, e.g. https://api.deepseek.com/v1
                       or http://127.0.0.1:8080/v1 (llama.cpp, Ollama: no key needed)
  BROWSERAGENT_MODEL   the model, e.g. deepseek-chat; --model overrides it
  --provider NAME      a built-in provider (` + strings.Join(agent.ProviderNames(), ", ") + `) or one from config.yaml
With nothing configured, browseragent looks for a local server on this machine and
uses the first that answers, saying so at start:
  ` + strings.Join(local, ", ") + `
(BROWSERAGENT_DISCOVER=0 turns that off.) Settings can live in
$XDG_CONFIG_HOME/browseragent/config.yaml.
In the shell, without a restart:
  /provider            the providers, and which local servers answer now
  /provider NAME       switch to one (also when the shell started without an LLM)
  /model, /model NAME  what the endpoint serves; switch model within it
  --save               on either: also write it to config.yaml for the next start`
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// completeHelp suggests command names (without the slash) for /help.
func completeHelp(_ *Shell, n int, _ []string) []suggestion {
	if n > 0 {
		return nil
	}
	var out []suggestion
	for _, c := range commands {
		out = append(out, suggestion{c.name, c.summary})
	}
	return out
}

// commandSuggestions lists commands whose name starts with prefix.
func commandSuggestions(prefix string) []suggestion {
	var out []suggestion
	for _, c := range commands {
		if strings.HasPrefix(c.name, prefix) {
			out = append(out, suggestion{"/" + c.name, c.summary})
		}
	}
	return out
}

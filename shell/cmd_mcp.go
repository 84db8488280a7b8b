package shell

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/mcpclient"
)

// errNoMCP says MCP is off and where servers are configured; the path is
// read when asked, so it follows XDG_CONFIG_HOME.
func errNoMCP() *hintError {
	return &hintError{
		msg:  "MCP is off in this session",
		hint: "start browseragent without --no-mcp; servers come from " + mcpclient.UserConfigPath() + " and .mcp.json",
	}
}

func mcpCommands() []*command {
	return []*command{
		{name: "mcp", args: "[SUB NAME]", summary: "MCP servers: state and tool counts; sub-commands below",
			subs: []subSpec{
				{"restart", "restart a server"},
				{"logs", "the server's last stderr lines"},
				{"enable", "start a disabled server"},
				{"disable", "stop a server for this session"},
				{"tools", "the server's tools"},
				{"resources", "the server's resources, for @server:uri"},
				{"prompts", "the server's prompts, run as /mcp__server__prompt"},
				{"watch", "watch a resource URI: its updates are announced (no URI: list)"},
				{"unwatch", "stop watching a resource URI"},
				{"log-level", "set the level of the server's log messages (debug…emergency)"},
				{"login", "log in to an OAuth server (opens the browser, prints the URL), then reconnect it"},
			},
			run: cmdMCP, complete: completeMCP},
	}
}

func cmdMCP(ctx context.Context, s *Shell, c *call) error {
	if s.opts.MCP == nil {
		return errNoMCP()
	}
	if len(c.args) == 0 {
		return mcpList(s)
	}
	sub := c.args[0]
	if len(c.args) < 2 {
		if lookupSub(sub) == nil {
			return mcpUnknownSub(sub)
		}
		return &hintError{msg: fmt.Sprintf("/mcp %s: missing server NAME", sub), hint: "servers: " + strings.Join(s.serverNames(), ", ")}
	}
	name := c.args[1]
	if !s.knownServer(name) {
		msg := fmt.Sprintf("no MCP server %q", name)
		if near := didYouMean(name, s.serverNames()); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		return &hintError{msg: msg, hint: "/mcp lists the servers"}
	}
	switch sub {
	case "restart":
		return mcpRestart(ctx, s, name)
	case "logs":
		return mcpLogs(s, name)
	case "enable", "disable":
		return mcpToggle(ctx, s, sub, name)
	case "tools":
		return mcpTools(s, name)
	case "resources":
		return mcpResources(s, name)
	case "prompts":
		return mcpPrompts(s, name)
	case "watch", "unwatch":
		return mcpWatch(ctx, s, sub, name, c.args[2:])
	case "log-level":
		return mcpLogLevel(ctx, s, name, c.args[2:])
	case "login":
		return mcpLogin(ctx, s, name)
	}
	return mcpUnknownSub(sub)
}

func lookupSub(name string) *subSpec {
	for _, sc := range lookup("mcp").subs {
		if sc.name == name {
			return &sc
		}
	}
	return nil
}

func mcpUnknownSub(sub string) error {
	var names []string
	for _, sc := range lookup("mcp").subs {
		names = append(names, sc.name)
	}
	msg := fmt.Sprintf("/mcp: unknown sub-command %q", sub)
	if near := didYouMean(sub, names); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return &hintError{msg: msg, hint: "/help mcp"}
}

func (s *Shell) serverNames() []string {
	var out []string
	if s.opts.MCP == nil {
		return nil
	}
	for _, st := range s.opts.MCP.Status() {
		out = append(out, st.Name)
	}
	return out
}

func (s *Shell) knownServer(name string) bool {
	for _, n := range s.serverNames() {
		if n == name {
			return true
		}
	}
	return false
}

func mcpList(s *Shell) error {
	sts := s.opts.MCP.Status()
	if len(sts) == 0 {
		s.p.Line("no MCP servers configured")
		s.p.Hint(`add one to ~/.config/browseragent/mcp.json or .mcp.json: {"mcpServers": {"name": {"command": "npx", "args": [...]}}}`)
		return nil
	}
	for _, st := range sts {
		line := fmt.Sprintf("%-20s %-16s %3d tools %3d prompts %3d resources", st.Name, st.StateText(), st.Tools, st.Prompts, st.Resources)
		if st.State != mcpclient.StateReady { // a server in error, disabled or idle offers nothing
			line = fmt.Sprintf("%-20s %s", st.Name, st.StateText())
		}
		switch {
		case st.State == mcpclient.StateIdle:
			line += "  starts with the browser, on first use"
		case st.Err != nil:
			line += "  " + textutil.OneLine(words.Error(st.Err), 80)
		}
		s.p.Line("%s", line)
	}
	return nil
}

func mcpRestart(ctx context.Context, s *Shell, name string) error {
	s.p.SpinStart("restarting " + name)
	err := s.opts.MCP.Restart(ctx, name)
	s.p.SpinStop()
	if err != nil {
		return &hintError{msg: fmt.Sprintf("restart %s: %s", name, words.Error(err)), hint: "/mcp logs " + name}
	}
	if err := s.waitRestarted(ctx, name); err != nil {
		return err
	}
	s.p.Line("%s", serverSummary(statusOf(s, name)))
	return nil
}

func statusOf(s *Shell, name string) mcpclient.Status {
	for _, st := range s.opts.MCP.Status() {
		if st.Name == name {
			return st
		}
	}
	return mcpclient.Status{Name: name}
}

func mcpLogs(s *Shell, name string) error {
	lines, err := s.opts.MCP.Logs(name)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		s.p.Hint("%s has written nothing to stderr", name)
		return nil
	}
	s.p.Text(strings.Join(lines, "\n"))
	return nil
}

func mcpToggle(ctx context.Context, s *Shell, sub, name string) error {
	t, ok := s.opts.MCP.(MCPToggler)
	if !ok {
		return &hintError{msg: fmt.Sprintf("/mcp %s is not available in this build", sub),
			hint: fmt.Sprintf("`browseragent mcp %s %s` (from the next run on), or set \"disabled\": %v for %q in the MCP config file, then /mcp restart %s", sub, name, sub == "disable", name, name)}
	}
	var err error
	if sub == "enable" {
		err = t.Enable(ctx, name)
	} else {
		err = t.Disable(ctx, name)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", sub, name, err)
	}
	s.p.Line("%s", serverSummary(statusOf(s, name)))
	s.p.Hint("for this session; `browseragent mcp %s %s` keeps it so in later runs", sub, name)
	return nil
}

func mcpTools(s *Shell, name string) error {
	var b strings.Builder
	n := 0
	for _, d := range s.opts.Tools.Tools() {
		if d.Server == name {
			n++
			fmt.Fprintf(&b, "%-40s %s\n", d.Name, textutil.OneLine(d.Description, 80))
		}
	}
	if n == 0 {
		s.p.Hint("%s has no tools (yet: %s)", name, serverSummary(statusOf(s, name)))
		return nil
	}
	s.p.Text(b.String())
	return nil
}

func mcpResources(s *Shell, name string) error {
	res, tmpls, err := s.opts.MCP.Resources(name)
	if err != nil {
		return err
	}
	if len(res)+len(tmpls) == 0 {
		s.p.Hint("%s has no resources", name)
		return nil
	}
	var b strings.Builder
	for _, r := range res {
		fmt.Fprintf(&b, "@%s:%s  %s\n", name, r.URI, textutil.OneLine(r.Name+" "+r.Description, 70))
	}
	for _, t := range tmpls {
		fmt.Fprintf(&b, "@%s:%s  (template) %s\n", name, t.URITemplate, textutil.OneLine(t.Name+" "+t.Description, 60))
	}
	s.p.Text(b.String())
	return nil
}

func mcpPrompts(s *Shell, name string) error {
	ps, err := s.opts.MCP.Prompts(name)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		s.p.Hint("%s has no prompts", name)
		return nil
	}
	var b strings.Builder
	for _, p := range ps {
		var args []string
		for _, a := range p.Arguments {
			if a.Required {
				args = append(args, a.Name+"=…")
			} else {
				args = append(args, "["+a.Name+"=…]")
			}
		}
		fmt.Fprintf(&b, "/mcp__%s__%s %s  %s\n", name, p.Name, strings.Join(args, " "), textutil.OneLine(p.Description, 60))
	}
	s.p.Text(b.String())
	return nil
}

// runPromptCommand runs /mcp__server__prompt arg=value ...: the prompt's
// text goes to the agent as a message (or is printed without an LLM).
func (s *Shell) runPromptCommand(ctx context.Context, line string) error {
	if s.opts.MCP == nil {
		return errNoMCP()
	}
	head, rest, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	server, prompt, ok := s.splitPromptName(strings.TrimPrefix(head, "mcp__"))
	if !ok {
		return &hintError{msg: fmt.Sprintf("no MCP prompt /%s", head), hint: "/mcp prompts NAME lists a server's prompts"}
	}
	args, err := promptArgs(rest)
	if err != nil {
		return err
	}
	s.p.SpinStart(head)
	res, err := s.opts.MCP.GetPrompt(ctx, server, prompt, args)
	s.p.SpinStop()
	if err != nil {
		return err
	}
	text := mcpclient.PromptText(res)
	if s.opts.Agent == nil {
		s.p.Text(text)
		s.p.Hint("no LLM configured, so the prompt was printed instead of sent")
		return nil
	}
	return s.sendAgent(ctx, text)
}

// splitPromptName finds server and prompt in "server__prompt"; server
// names may themselves contain "__", so known servers are tried longest first.
func (s *Shell) splitPromptName(name string) (server, prompt string, ok bool) {
	names := s.serverNames()
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, n := range names {
		if p, found := strings.CutPrefix(name, n+"__"); found && p != "" {
			return n, p, true
		}
	}
	return "", "", false
}

// promptArgs parses "name=value name2='two words'".
func promptArgs(rest string) (map[string]string, error) {
	words, err := splitWords(rest)
	if err != nil {
		return nil, err
	}
	args := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, &hintError{msg: fmt.Sprintf("prompt argument %q is not NAME=VALUE", w), hint: "/mcp prompts SERVER shows the arguments"}
		}
		args[k] = v
	}
	return args, nil
}

// completeMCP suggests sub-commands, then server names.
func completeMCP(s *Shell, n int, args []string) []suggestion {
	switch n {
	case 0:
		var out []suggestion
		for _, sc := range lookup("mcp").subs {
			out = append(out, suggestion{sc.name, sc.desc})
		}
		return out
	case 1:
		var out []suggestion
		if s.opts.MCP == nil {
			return nil
		}
		for _, st := range s.opts.MCP.Status() {
			out = append(out, suggestion{st.Name, serverSummary(st)})
		}
		return out
	}
	return nil
}

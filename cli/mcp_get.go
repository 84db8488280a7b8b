package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/mcpclient"
)

// addMCPConfigCmds adds the Claude Code-compatible configuration commands
// besides add and remove: add-json, get, add-from-claude-desktop,
// reset-project-choices, enable, disable.
func addMCPConfigCmds(cmd *cobra.Command, s *streams, f *mcpFlags) {
	cmd.AddCommand(newMCPAddJSONCmd(s), newMCPGetCmd(s, f), newMCPFromDesktopCmd(s),
		newMCPResetChoicesCmd(s), newMCPToggleCmd(s, f, true), newMCPToggleCmd(s, f, false))
}

// lookup is the merged configuration with the servers of an untrusted
// project file kept aside (they exist, but wait for approval).
type lookup struct {
	cfg     *mcpclient.Config
	pending map[string]*mcpclient.ServerConfig
}

// loadLookup loads the configuration as the other commands do, without
// the note about an untrusted project file.
func loadLookup(f *mcpFlags) (*lookup, error) {
	l := &lookup{pending: map[string]*mcpclient.ServerConfig{}}
	cfg, err := loadMCPConfigGated(f.config, pendingGate(projectGate(nil, f.trustProject, nil), l.pending))
	if err != nil {
		return nil, err
	}
	l.cfg = cfg
	return l, nil
}

// find returns server name, and whether it waits for approval.
func (l *lookup) find(name string) (*mcpclient.ServerConfig, bool, error) {
	if sc, ok := l.cfg.Servers[name]; ok {
		return sc, false, nil
	}
	if sc, ok := l.pending[name]; ok {
		return sc, true, nil
	}
	names := l.cfg.Names()
	for n := range l.pending {
		names = append(names, n)
	}
	slices.Sort(names)
	return nil, false, exitCode(exitFailed, fmt.Sprintf("no MCP server named %q; configured: %s (see 'browseragent mcp list')", name, strings.Join(names, ", ")))
}

func newMCPGetCmd(s *streams, f *mcpFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "get NAME",
		Short: "Show one server: where it is defined, transport, command or URL, env and header names (values hidden), state",
		Long: `Show where server NAME is defined (scope and file), its transport, its
command or URL, the names of its environment variables and headers (never
their values), and its state: it is started to check it, unless it is
disabled or is in a project .mcp.json you have not trusted yet (then it is
"pending approval" and nothing runs).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPGet(cmd.Context(), s, f, args[0])
		},
	}
}

func runMCPGet(ctx context.Context, s *streams, f *mcpFlags, name string) error {
	wd := workDir()
	l, err := loadLookup(f)
	if err != nil {
		return err
	}
	sc, pending, err := l.find(name)
	if err != nil {
		return err
	}
	scope := mcpclient.ScopeOf(sc, wd)
	status, err := getStatus(ctx, s, f, sc, pending)
	if err != nil {
		return err
	}
	w := s.out
	fmt.Fprintf(w, "%s:\n", textutil.VisibleLine(name))
	fmt.Fprintf(w, "  Scope: %s\n", scopeText(scope, sc, wd))
	if sc.Source != mcpclient.BuiltInSource {
		fmt.Fprintf(w, "  File: %s\n", textutil.VisibleLine(absDir(sc.Source)))
	}
	fmt.Fprintf(w, "  Status: %s\n", textutil.VisibleLine(status))
	for _, line := range mcpclient.Describe(sc, wd) { // the config's author chose its commands
		fmt.Fprintf(w, "  %s\n", textutil.VisibleLine(line))
	}
	if others, err := mcpclient.ScopesHaving(name, wd); err == nil {
		others = slices.DeleteFunc(others, func(o string) bool { return o == scope })
		for _, o := range others {
			fmt.Fprintf(w, "  Also defined in: %s (this one wins)\n", scopeWhere(o, wd))
		}
	}
	if scope != "" {
		fmt.Fprintf(w, "\nTo remove this server, run: browseragent mcp remove -s %s %s\n", scope, textutil.VisibleLine(name))
	}
	return nil
}

func scopeText(scope string, sc *mcpclient.ServerConfig, wd string) string {
	switch scope {
	case mcpclient.ScopeLocal:
		return "local config (private to you in " + absDir(wd) + ")"
	case mcpclient.ScopeProject:
		return "project config (shared via .mcp.json)"
	case mcpclient.ScopeUser:
		return "user config (every directory)"
	}
	if sc.Source == mcpclient.BuiltInSource {
		return "built-in"
	}
	return "--mcp-config file"
}

// getStatus starts the server to see its state, unless it cannot start.
func getStatus(ctx context.Context, s *streams, f *mcpFlags, sc *mcpclient.ServerConfig, pending bool) (string, error) {
	switch {
	case pending:
		return fmt.Sprintf("pending approval: %s is not trusted, so nothing was started (check it, then run 'browseragent mcp trust', or pass %s)", textutil.VisibleLine(absDir(sc.Source)), mcpclient.TrustFlag), nil
	case sc.Err != nil:
		return "error: " + sc.Err.Error(), nil
	case sc.Disabled && sc.Toggled:
		return fmt.Sprintf("disabled by 'browseragent mcp disable' ('browseragent mcp enable %s' turns it on)", textutil.VisibleLine(sc.Name)), nil
	case sc.Disabled:
		return fmt.Sprintf(`disabled ("disabled": true in its file; 'browseragent mcp enable %s' turns it on)`, textutil.VisibleLine(sc.Name)), nil
	}
	cfg := &mcpclient.Config{Servers: map[string]*mcpclient.ServerConfig{sc.Name: sc}}
	var status string
	err := withManager(ctx, s, f, cfg, func(ctx context.Context, m *mcpclient.Manager) error {
		st, err := m.ServerStatus(sc.Name)
		if err != nil {
			return err
		}
		status = st.StateText()
		switch {
		case st.Err != nil:
			status += ": " + st.Err.Error()
		case st.State == mcpclient.StateReady:
			status += fmt.Sprintf(" (%d tools, %d prompts, %d resources)", st.Tools, st.Prompts, st.Resources)
		}
		return nil
	})
	return status, err
}

// newMCPToggleCmd is `mcp enable NAME` (on) or `mcp disable NAME`.
func newMCPToggleCmd(s *streams, f *mcpFlags, on bool) *cobra.Command {
	verb, undo := "disable", "enable"
	if on {
		verb, undo = "enable", "disable"
	}
	var sf scopeFlags
	cmd := &cobra.Command{
		Use:   verb + " [-s local|user] NAME",
		Short: fmt.Sprintf("%s a server from now on (local: in this directory; -s user: everywhere), remembered in your own mcp.json", strings.ToUpper(verb[:1])+verb[1:]),
		Long: fmt.Sprintf(`%s server NAME for every later run (the shell's /mcp %s lasts one
session). The choice is kept in browseragent's own mcp.json, as
"disabledMcpServers" / "enabledMcpServers" lists (Claude Code's names):
under this directory's "projects" entry (-s local, the default) or at the
top level (-s user). It wins over an entry's "disabled" field, whichever
file the server is defined in; no other file is changed.`, strings.ToUpper(verb[:1])+verb[1:], verb),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := sf.get(cmd)
			if err != nil {
				return err
			}
			if scope == mcpclient.ScopeProject {
				return exitCode(exitUsage, fmt.Sprintf("--scope project: %s is your own choice, kept in your mcp.json, not in the shared .mcp.json; use -s local or -s user", verb))
			}
			name, wd := args[0], workDir()
			l, err := loadLookup(f)
			if err != nil {
				return err
			}
			if _, _, err := l.find(name); err != nil {
				return err
			}
			if err := setToggle(f, scope, wd, name, on); err != nil {
				return err
			}
			where := "in " + absDir(wd)
			if scope == mcpclient.ScopeUser {
				where = "everywhere"
			}
			fmt.Fprintf(s.out, "%sd MCP server %q %s, from the next run on (undo: browseragent mcp %s -s %s %s)\n", verb, name, where, undo, scope, name)
			if l, err = loadLookup(f); err == nil {
				if sc, _, err := l.find(name); err == nil && sc.Disabled == on {
					fmt.Fprintf(s.err, "browseragent: %s is still %sd here: the local choice wins over -s user (browseragent mcp %s -s local %s)\n", name, undo, verb, name)
				}
			}
			return nil
		},
	}
	sf.add(cmd, mcpclient.ScopeLocal, "local (this directory, the default) or user (every directory)")
	return cmd
}

// setToggle turns name off, or on: out of the disabled list, and into the
// enabled list only when something else (its "disabled" field, the other
// scope's list) still keeps it off.
func setToggle(f *mcpFlags, scope, wd, name string, on bool) error {
	if !on {
		return mcpclient.SetToggle(scope, wd, name, mcpclient.ToggleOff)
	}
	if err := mcpclient.SetToggle(scope, wd, name, mcpclient.ToggleClear); err != nil {
		return err
	}
	l, err := loadLookup(f)
	if err != nil {
		return err
	}
	if sc, _, err := l.find(name); err == nil && sc.Disabled {
		return mcpclient.SetToggle(scope, wd, name, mcpclient.ToggleOn)
	}
	return nil
}

func newMCPResetChoicesCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "reset-project-choices",
		Short: "Forget your approval of this directory's .mcp.json, like 'claude mcp reset-project-choices'",
		Long: `Forget that you trusted the working directory's .mcp.json: its servers
are asked about again in the shell, and skipped by run and mcp until you
trust the file again ('browseragent mcp trust'). Only approvals are
remembered, so there are no refusals to reset.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			file := filepath.Join(absDir(workDir()), ".mcp.json")
			had, err := mcpclient.NewTrustStore("").Untrust(file)
			if err != nil {
				return err
			}
			if !had {
				fmt.Fprintf(s.out, "no approval of %s was recorded; nothing to reset\n", file)
				return nil
			}
			fmt.Fprintf(s.out, "forgot your approval of %s: its servers wait for your approval again\n", file)
			return nil
		},
	}
}

func newMCPFromDesktopCmd(s *streams) *cobra.Command {
	var sf scopeFlags
	var all bool
	var file string
	cmd := &cobra.Command{
		Use:   "add-from-claude-desktop [-s local|user|project] [--all | NAME...]",
		Short: "Import servers from Claude Desktop's claude_desktop_config.json (all, or the ones named or chosen)",
		Long: `Read Claude Desktop's claude_desktop_config.json (` + mcpclient.DesktopConfigPath() + `
here; --file for another) and add its servers to a scope, as
'claude mcp add-from-claude-desktop' does. Name the servers to import, give
--all, or choose from the list at a terminal. A name already in the scope
is skipped, saying so.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := sf.get(cmd)
			if err != nil {
				return err
			}
			if file == "" {
				file = mcpclient.DesktopConfigPath()
			}
			entries, cfg, err := readDesktop(file)
			if err != nil {
				return err
			}
			chosen, err := chooseServers(s, file, entries, cfg, args, all)
			if err != nil {
				return err
			}
			return importServers(s, scope, chosen, entries, cfg)
		},
	}
	sf.add(cmd, mcpclient.ScopeLocal, "where to add them: local (this directory, private), user (everywhere) or project (./.mcp.json)")
	cmd.Flags().BoolVar(&all, "all", false, "import every server")
	cmd.Flags().StringVar(&file, "file", "", "read this claude_desktop_config.json instead")
	return cmd
}

// readDesktop returns the file's entries as written and as read.
func readDesktop(file string) (map[string]json.RawMessage, *mcpclient.Config, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, exitCode(exitFailed, fmt.Sprintf("no Claude Desktop config at %s (is Claude Desktop installed? --file names another)", file))
	}
	if err != nil {
		return nil, nil, err
	}
	entries, cfg, err := mcpclient.ParseDesktop(data, file)
	if err != nil {
		return nil, nil, exitCode(exitUsage, err.Error())
	}
	if len(entries) == 0 {
		return nil, nil, exitCode(exitFailed, fmt.Sprintf("no MCP servers in %s", file))
	}
	return entries, cfg, nil
}

func chooseServers(s *streams, file string, entries map[string]json.RawMessage, cfg *mcpclient.Config, args []string, all bool) ([]string, error) {
	names := cfg.Names()
	names = slices.DeleteFunc(names, func(n string) bool { _, ok := entries[n]; return !ok })
	switch {
	case all && len(args) > 0:
		return nil, exitCode(exitUsage, "--all and server names contradict each other; give one")
	case all:
		return names, nil
	case len(args) > 0:
		for _, a := range args {
			if _, ok := entries[a]; !ok {
				return nil, exitCode(exitUsage, fmt.Sprintf("%s has no server %q; it has: %s", file, a, strings.Join(names, ", ")))
			}
		}
		return args, nil
	}
	fmt.Fprintf(s.out, "MCP servers in %s:\n", textutil.VisibleLine(file))
	for i, n := range names {
		fmt.Fprintf(s.out, "  %d. %s: %s\n", i+1, textutil.VisibleLine(n), textutil.VisibleLine(brief(cfg.Servers[n])))
	}
	if !interactive(s) {
		return nil, exitCode(exitUsage, "name the servers to import, or give --all")
	}
	fmt.Fprint(s.out, "Import which? Numbers or names, comma-separated; all; Enter for none: ")
	line, _ := readRawLine(s.in)
	return pickNames(line, names)
}

// pickNames reads the answer "1,3", "fs, web" or "all".
func pickNames(answer string, names []string) ([]string, error) {
	var out []string
	for _, w := range strings.FieldsFunc(answer, func(r rune) bool { return r == ',' || r == ' ' }) {
		switch n, err := strconv.Atoi(w); {
		case w == "all":
			return names, nil
		case err == nil && n >= 1 && n <= len(names):
			out = append(out, names[n-1])
		case slices.Contains(names, w):
			out = append(out, w)
		default:
			return nil, exitCode(exitUsage, fmt.Sprintf("%q is not one of the numbers or names listed", w))
		}
	}
	return out, nil
}

func brief(sc *mcpclient.ServerConfig) string {
	if sc.Err != nil {
		return "cannot be used: " + sc.Err.Error()
	}
	if sc.Transport() == mcpclient.TypeStdio {
		return sc.Command + " (" + strconv.Itoa(len(sc.Args)) + " arguments)"
	}
	return sc.Transport() + " " + sc.URL
}

func importServers(s *streams, scope string, chosen []string, entries map[string]json.RawMessage, cfg *mcpclient.Config) error {
	wd, added := workDir(), 0
	for _, n := range chosen {
		if sc := cfg.Servers[n]; sc != nil && sc.Err != nil {
			fmt.Fprintf(s.err, "browseragent: skipped %q: %v\n", n, sc.Err)
			continue
		}
		if err := checkServerName(n); err != nil {
			fmt.Fprintf(s.err, "browseragent: skipped %q: %v\n", n, err)
			continue
		}
		err := addEntry(s, scope, wd, n, entries[n])
		var ec *exitError
		if errors.As(err, &ec) {
			fmt.Fprintf(s.err, "browseragent: skipped %q: %v\n", n, err)
			continue
		}
		if err != nil {
			return err
		}
		added++
		fmt.Fprintf(s.out, "added MCP server %q\n", n)
	}
	fmt.Fprintf(s.out, "imported %d of %d server(s) to %s\n", added, len(chosen), scopeWhere(scope, wd))
	if added < len(chosen) {
		return exitCode(exitFailed, fmt.Sprintf("%d server(s) not imported (see above)", len(chosen)-added))
	}
	return nil
}

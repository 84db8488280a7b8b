package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/mcpclient"
)

// The Claude Code-compatible commands that write the configuration:
// mcp add, add-json, remove, add-from-claude-desktop. Scopes are Claude
// Code's (see mcpclient.ScopeLocal): local and user live in browseragent's
// own mcp.json, project is ./.mcp.json.

// scopeFlags is -s/--scope, with the older --project kept as a hidden
// synonym of -s project.
type scopeFlags struct {
	scope   string
	project bool
}

func (sf *scopeFlags) add(cmd *cobra.Command, def, what string) {
	cmd.Flags().StringVarP(&sf.scope, "scope", "s", def, what)
	cmd.Flags().BoolVar(&sf.project, "project", false, "same as --scope project")
	_ = cmd.Flags().MarkHidden("project")
}

// get returns the scope given (def when none), checked.
func (sf *scopeFlags) get(cmd *cobra.Command) (string, error) {
	if sf.project {
		if cmd.Flags().Changed("scope") && sf.scope != mcpclient.ScopeProject {
			return "", exitCode(exitUsage, fmt.Sprintf("--project and --scope %s contradict each other; give one", sf.scope))
		}
		return mcpclient.ScopeProject, nil
	}
	if err := mcpclient.CheckScope(sf.scope); err != nil {
		return "", exitCode(exitUsage, err.Error())
	}
	return sf.scope, nil
}

// given reports whether a scope was named on the command line.
func (sf *scopeFlags) given(cmd *cobra.Command) bool {
	return sf.project || cmd.Flags().Changed("scope")
}

// scopeWhere describes a scope's place for messages: "local config
// (/home/me/.config/browseragent/mcp.json, for /src/site)".
func scopeWhere(scope, wd string) string {
	file := mcpclient.ScopeFile(scope, wd)
	switch scope {
	case mcpclient.ScopeLocal:
		return fmt.Sprintf("local config (%s, for %s)", file, absDir(wd))
	case mcpclient.ScopeProject:
		return fmt.Sprintf("project config (%s)", absDir(file))
	}
	return fmt.Sprintf("user config (%s)", file)
}

func absDir(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func workDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

func checkServerName(name string) error {
	if err := mcpclient.CheckServerName(name); err != nil {
		return exitCode(exitUsage, err.Error())
	}
	return nil
}

// addEntry writes entry as server name in scope, refusing to replace one
// (as Claude Code does: remove it first).
func addEntry(s *streams, scope, wd, name string, entry json.RawMessage) error {
	untrusted, err := mcpclient.AddServer(scope, wd, name, entry)
	if errors.Is(err, mcpclient.ErrServerExists) {
		return exitCode(exitFailed, fmt.Sprintf("MCP server %q already exists in %s; remove it first with: browseragent mcp remove -s %s %s", name, scopeWhere(scope, wd), scope, name))
	}
	noteUntrusted(s, untrusted)
	return err
}

// noteUntrusted says that the project file just edited stays untrusted.
func noteUntrusted(s *streams, file string) {
	if file != "" {
		fmt.Fprintf(s.err, "browseragent: %s is not trusted, so its servers do not start yet; check it, then run `browseragent mcp trust`\n", file)
	}
}

type addFlags struct {
	scope     scopeFlags
	transport string
	env       []string
	headers   []string
}

func newMCPAddCmd(s *streams, f *mcpFlags) *cobra.Command {
	a := &addFlags{}
	cmd := &cobra.Command{
		Use:   "add [-t stdio|http|sse] [-e K=V]... [-H 'K: V']... [-s local|user|project] NAME COMMAND [ARGS...] | NAME URL",
		Short: "Add a server, like 'claude mcp add' (default scope local: this directory, your own file)",
		Long: `Add an MCP server, with Claude Code's flags and scopes:

  local    (default) this directory only, private to you: browseragent's
           mcp.json, under "projects" -> this directory
  user     every directory: browseragent's mcp.json, top level
  project  ./.mcp.json, shared with the code (Claude Code reads it too)

Put -- before a command whose own flags start with -. A server of that
name already in the scope is an error (remove it first), as in Claude Code.`,
		Example: `  browseragent mcp add everything -- npx -y @modelcontextprotocol/server-everything@2026.8.31
  browseragent mcp add -s project -e LOG_LEVEL=debug files -- npx -y @modelcontextprotocol/server-filesystem .
  browseragent mcp add -t http -H "Authorization: Bearer \${API_TOKEN}" api https://mcp.example.com/mcp
  browseragent mcp add -t sse -s user old http://127.0.0.1:8808/sse`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPAdd(cmd, s, f, a, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&a.transport, "transport", "t", "", "transport: stdio (default), http (Streamable HTTP) or sse (legacy)")
	fl.StringVar(&a.transport, "type", "", "same as --transport")
	_ = fl.MarkHidden("type")
	fl.StringArrayVarP(&a.env, "env", "e", nil, "environment variable KEY=VALUE for a stdio server (repeatable)")
	fl.StringArrayVarP(&a.headers, "header", "H", nil, `HTTP header "Key: Value" for an http/sse server (repeatable)`)
	a.scope.add(cmd, mcpclient.ScopeLocal, "where to keep it: local (this directory, private), user (everywhere) or project (./.mcp.json)")
	return cmd
}

func runMCPAdd(cmd *cobra.Command, s *streams, f *mcpFlags, a *addFlags, args []string) error {
	const usage = "usage: browseragent mcp add [-t stdio|http|sse] [-s local|user|project] NAME COMMAND [ARGS...] | NAME URL"
	if len(args) == 0 || cmd.ArgsLenAtDash() == 0 {
		return exitCode(exitUsage, usage+" (NAME comes before --)")
	}
	scope, err := a.scope.get(cmd)
	if err != nil {
		return err
	}
	name, rest := args[0], args[1:]
	if err := checkServerName(name); err != nil {
		return err
	}
	sc, err := a.server(f, rest)
	if err != nil {
		return err
	}
	entry, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	wd := workDir()
	if err := addEntry(s, scope, wd, name, entry); err != nil {
		return err
	}
	what := sc.URL
	if sc.Transport() == mcpclient.TypeStdio {
		what = strings.Join(append([]string{sc.Command}, sc.Args...), " ")
	}
	fmt.Fprintf(s.out, "added %s MCP server %q (%s) to %s\n", sc.Transport(), name, what, scopeWhere(scope, wd))
	fmt.Fprintf(s.out, "check it with: browseragent mcp get %s\n", name)
	return nil
}

// server builds the entry from the flags and the words after NAME.
func (a *addFlags) server(f *mcpFlags, rest []string) (*mcpclient.ServerConfig, error) {
	sc := &mcpclient.ServerConfig{}
	t := a.transport
	switch t {
	case "", mcpclient.TypeStdio, mcpclient.TypeHTTP, mcpclient.TypeSSE:
	case "streamable-http":
		t = mcpclient.TypeHTTP
	default:
		return nil, exitCode(exitUsage, fmt.Sprintf("--transport %q: want stdio, http or sse", t))
	}
	if f.sse && t == "" {
		t = mcpclient.TypeSSE
	}
	// --url and --cmd are the older spellings of the positional URL and
	// command.
	if f.url != "" {
		rest = append([]string{f.url}, rest...)
		if t == "" {
			t = mcpclient.TypeHTTP
		}
	} else if f.cmdLine != "" {
		words, err := mcpclient.ParseCommandLine(f.cmdLine)
		if err != nil {
			return nil, exitCode(exitUsage, "--cmd: "+err.Error())
		}
		rest = append(words, rest...)
	}
	env := append(slices.Clone(f.env), a.env...)
	headers := append(slices.Clone(f.headers), a.headers...)
	if len(rest) == 0 {
		return nil, exitCode(exitUsage, "give the server's command (stdio) or URL (-t http|sse) after NAME, e.g. browseragent mcp add NAME -- npx -y PACKAGE")
	}
	if t == mcpclient.TypeHTTP || t == mcpclient.TypeSSE {
		if len(rest) != 1 {
			return nil, exitCode(exitUsage, fmt.Sprintf("--transport %s takes one URL after NAME, got %q", t, strings.Join(rest, " ")))
		}
		if err := checkURL(rest[0]); err != nil {
			return nil, err
		}
		if len(env) > 0 {
			return nil, exitCode(exitUsage, "--env is for stdio servers; send an http/sse server values with --header")
		}
		sc.Type, sc.URL = t, rest[0]
		h, err := parseHeaders(headers)
		sc.Headers = h
		return sc, err
	}
	if t == "" && len(rest) == 1 && looksLikeURL(rest[0]) {
		return nil, exitCode(exitUsage, fmt.Sprintf("%q is a URL, but the transport is stdio (the default): add -t http (Streamable HTTP) or -t sse", rest[0]))
	}
	if len(headers) > 0 {
		return nil, exitCode(exitUsage, "--header is for http/sse servers; give a stdio server values with --env")
	}
	sc.Type, sc.Command, sc.Args = t, rest[0], rest[1:]
	e, err := parseEnv(env)
	sc.Env = e
	return sc, err
}

func looksLikeURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return exitCode(exitUsage, fmt.Sprintf("URL %q: want http://HOST/PATH or https://HOST/PATH", raw))
	}
	return nil
}

func newMCPAddJSONCmd(s *streams) *cobra.Command {
	var sf scopeFlags
	cmd := &cobra.Command{
		Use:   "add-json [-s local|user|project] NAME JSON",
		Short: `Add a server from its JSON entry, like 'claude mcp add-json' ("-" reads it from stdin)`,
		Example: `  browseragent mcp add-json everything '{"command":"npx","args":["-y","@modelcontextprotocol/server-everything@2026.8.31"]}'
  browseragent mcp add-json -s user api '{"type":"http","url":"https://mcp.example.com/mcp","headers":{"Authorization":"Bearer ${API_TOKEN}"}}'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := sf.get(cmd)
			if err != nil {
				return err
			}
			name, raw := args[0], []byte(args[1])
			if err := checkServerName(name); err != nil {
				return err
			}
			if args[1] == "-" {
				if raw, err = io.ReadAll(s.in); err != nil {
					return err
				}
			}
			entry, err := checkEntry(s, name, raw, "JSON")
			if err != nil {
				return err
			}
			wd := workDir()
			if err := addEntry(s, scope, wd, name, entry); err != nil {
				return err
			}
			fmt.Fprintf(s.out, "added MCP server %q to %s\ncheck it with: browseragent mcp get %s\n", name, scopeWhere(scope, wd), name)
			return nil
		},
	}
	sf.add(cmd, mcpclient.ScopeLocal, "where to keep it: local (this directory, private), user (everywhere) or project (./.mcp.json)")
	return cmd
}

// checkEntry is mcpclient.CheckEntry with its warnings printed.
func checkEntry(s *streams, name string, raw []byte, what string) (json.RawMessage, error) {
	entry, warnings, err := mcpclient.CheckEntry(name, raw, what)
	if err != nil {
		return nil, exitCode(exitUsage, err.Error())
	}
	for _, w := range warnings {
		fmt.Fprintf(s.err, "browseragent: warning: %s\n", w)
	}
	return entry, nil
}

func newMCPRemoveCmd(s *streams) *cobra.Command {
	var sf scopeFlags
	cmd := &cobra.Command{
		Use:   "remove [-s local|user|project] NAME",
		Short: "Remove a server, like 'claude mcp remove' (without -s: from the one scope that has it)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, wd := args[0], workDir()
			var scope string
			if sf.given(cmd) {
				sc, err := sf.get(cmd)
				if err != nil {
					return err
				}
				scope = sc
			} else {
				has, err := mcpclient.ScopesHaving(name, wd)
				if err != nil {
					return err
				}
				switch len(has) {
				case 0:
					return exitCode(exitFailed, notFound(name, wd))
				case 1:
					scope = has[0]
				default:
					return exitCode(exitUsage, fmt.Sprintf("MCP server %q is in the %s configs; say which with -s %s", name, strings.Join(has, " and "), strings.Join(has, "|")))
				}
			}
			untrusted, err := mcpclient.RemoveServer(scope, wd, name)
			if errors.Is(err, mcpclient.ErrNoServer) {
				return exitCode(exitFailed, fmt.Sprintf("no MCP server %q in %s", name, scopeWhere(scope, wd)))
			}
			noteUntrusted(s, untrusted)
			if err != nil {
				return err
			}
			fmt.Fprintf(s.out, "removed MCP server %q from %s\n", name, scopeWhere(scope, wd))
			return nil
		},
	}
	sf.add(cmd, "", "the scope to remove it from: local, user or project (default: the one that has it)")
	return cmd
}

func notFound(name, wd string) string {
	msg := fmt.Sprintf("no MCP server %q in the local, project or user config", name)
	if name == mcpclient.DefaultServerName {
		msg += fmt.Sprintf("; %s is built in: turn it off with 'browseragent mcp disable %s'", name, name)
	}
	return msg
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/media"
	"github.com/browseragent/browseragent/serve"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

// mcpFlags are shared by the `mcp` subcommands: where the config comes
// from, or an ad-hoc server given by --url/--cmd instead of a name.
type mcpFlags struct {
	config  string
	url     string
	cmdLine string
	headers []string
	sse     bool
	env     []string
	name    string
	timeout time.Duration
	host    hostFlags // --elicit, --allow-sampling, --root (mcp_extra.go)
	// trustProject is --trust-project; warn is where the note about an
	// untrusted project goes.
	trustProject bool
	warn         io.Writer
	// pending are the servers of an untrusted project file, seen by the
	// last loadConfig: configured, but waiting for 'mcp trust'.
	pending map[string]*mcpclient.ServerConfig
}

// adhocName names a --url/--cmd server unless --name is given.
const adhocName = "adhoc"

func newMCPCmd(s *streams) *cobra.Command {
	f := &mcpFlags{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Inspect and call MCP servers without the agent: list, tools, call, resources, prompts, add, remove, logs",
		Long: `Work with MCP servers directly, for scripts and for debugging a server.

Servers come from $XDG_CONFIG_HOME/browseragent/mcp.json (user) and .mcp.json
in the working directory (project, wins per name), plus --mcp-config FILE.
The built-in server chrome-devtools (chrome-devtools-mcp via npx) is always
there unless a file defines that name; {"chrome-devtools": {"disabled": true}}
turns it off. Instead of a configured NAME, every command takes an
ad-hoc server: --cmd "COMMAND ARGS" (stdio) or --url URL (Streamable HTTP;
add --header K:V, or --sse for the legacy SSE transport).

Tool calls go through the same path as the agent's (guard, approval,
audit log): a call that needs approval is refused unless --yes is given.`,
		Example: `  browseragent mcp list
  browseragent mcp tools --cmd "npx -y @modelcontextprotocol/server-everything@2026.8.31"
  browseragent mcp call --cmd "npx -y @modelcontextprotocol/server-everything@2026.8.31" echo '{"message":"hi"}'
  browseragent mcp call get-tiny-image --url http://127.0.0.1:3001/mcp
  browseragent mcp add everything -- npx -y @modelcontextprotocol/server-everything@2026.8.31
  browseragent mcp add -t http -H "Authorization: Bearer \${API_TOKEN}" api https://mcp.example.com/mcp
  browseragent mcp logs everything`,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.config, "mcp-config", "", "extra MCP config file, merged over the user and project files")
	pf.StringVar(&f.url, "url", "", "use an ad-hoc HTTP server at URL instead of a configured NAME")
	pf.StringVar(&f.cmdLine, "cmd", "", `use an ad-hoc stdio server "COMMAND ARGS" instead of a configured NAME`)
	pf.StringArrayVar(&f.headers, "header", nil, `HTTP header "Key: Value" for --url (repeatable)`)
	pf.BoolVar(&f.sse, "sse", false, "the --url server speaks legacy SSE, not Streamable HTTP")
	pf.StringArrayVar(&f.env, "env", nil, "environment variable KEY=VALUE for --cmd (repeatable)")
	pf.StringVar(&f.name, "name", adhocName, "server name for --url/--cmd (tool names become mcp__NAME__TOOL)")
	pf.DurationVar(&f.timeout, "timeout", 0, "how long to wait for servers to start (default: the server's timeout, else 60s)")
	pf.BoolVar(&f.trustProject, "trust-project", false, "start the servers of the working directory's .mcp.json even if you have not trusted it (this run only; see 'mcp trust')")
	f.warn = s.err
	f.host.add(pf, s, true)
	cmd.AddCommand(newMCPTrustCmd(s), newMCPUntrustCmd(s))
	cmd.AddCommand(
		newMCPListCmd(s, f), newMCPToolsCmd(s, f), newMCPCallCmd(s, f),
		newMCPResourcesCmd(s, f), newMCPReadCmd(s, f), newMCPPromptsCmd(s, f),
		newMCPPromptCmd(s, f), newMCPAddCmd(s, f), newMCPRemoveCmd(s), newMCPLogsCmd(s, f),
		newMCPLoginCmd(s, f), newMCPLogoutCmd(s, f), newMCPLogLevelCmd(s, f),
		newMCPServeCmd(s),
	)
	addMCPConfigCmds(cmd, s, f) // mcp_get.go
	promptInputs(s)             // VS Code "inputs", asked at a terminal
	return cmd
}

// adhoc reports whether --url or --cmd names the server.
func (f *mcpFlags) adhoc() bool { return f.url != "" || f.cmdLine != "" }

// serverArgs splits positional args into the server name and the rest:
// with --url/--cmd there is no NAME argument.
func (f *mcpFlags) serverArgs(args []string) (string, []string, error) {
	if f.adhoc() {
		return f.name, args, nil
	}
	if len(args) == 0 {
		return "", nil, exitCode(exitUsage, "name a configured server (see 'browseragent mcp list') or give --cmd/--url")
	}
	return args[0], args[1:], nil
}

// config loads the configuration restricted to names (all when empty),
// or builds the ad-hoc one.
func (f *mcpFlags) loadConfig(names ...string) (*mcpclient.Config, error) {
	if f.adhoc() {
		sc, err := f.adhocServer()
		if err != nil {
			return nil, err
		}
		return &mcpclient.Config{Servers: map[string]*mcpclient.ServerConfig{sc.Name: sc}}, nil
	}
	gate := projectGate(f.warn, f.trustProject, nil)
	f.pending = map[string]*mcpclient.ServerConfig{}
	cfg, err := loadMCPConfigGated(f.config, pendingGate(gate, f.pending))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return cfg, nil
	}
	out := &mcpclient.Config{Servers: map[string]*mcpclient.ServerConfig{}, Files: cfg.Files, Warnings: cfg.Warnings}
	for _, n := range names {
		sc, ok := cfg.Servers[n]
		if p, waits := f.pending[n]; !ok && waits {
			return nil, exitCode(exitFailed, fmt.Sprintf("MCP server %q is pending approval: %s is not trusted, so nothing was started (check it, then run 'browseragent mcp trust', or pass %s)",
				n, textutil.VisibleLine(absDir(p.Source)), mcpclient.TrustFlag))
		}
		if !ok {
			return nil, exitCode(exitUsage, fmt.Sprintf("unknown MCP server %q; configured: %s (see 'browseragent mcp list')", n, strings.Join(cfg.Names(), ", ")))
		}
		out.Servers[n] = sc
	}
	return out, nil
}

// pendingGate lets through the project files gate allows and keeps the
// servers of the others in pending: configured, waiting for 'mcp trust'.
func pendingGate(gate *mcpclient.ProjectGate, pending map[string]*mcpclient.ServerConfig) func(mcpclient.ProjectFile) bool {
	return func(p mcpclient.ProjectFile) bool {
		if gate.Allow(p) {
			return true
		}
		for _, sc := range p.Servers {
			pending[sc.Name] = sc
		}
		return false
	}
}

func (f *mcpFlags) adhocServer() (*mcpclient.ServerConfig, error) {
	if f.url != "" && f.cmdLine != "" {
		return nil, exitCode(exitUsage, "give --url or --cmd, not both")
	}
	sc := &mcpclient.ServerConfig{Name: f.name, Source: "command line"}
	if f.url != "" {
		sc.URL = f.url
		if f.sse {
			sc.Type = mcpclient.TypeSSE
		}
		h, err := parseHeaders(f.headers)
		if err != nil {
			return nil, err
		}
		sc.Headers = h
		return sc, nil
	}
	words, err := mcpclient.ParseCommandLine(f.cmdLine)
	if err != nil {
		return nil, exitCode(exitUsage, "--cmd: "+err.Error())
	}
	sc.Command, sc.Args = words[0], words[1:]
	env, err := parseEnv(f.env)
	if err != nil {
		return nil, err
	}
	sc.Env = env
	return sc, nil
}

func parseHeaders(hs []string) (map[string]string, error) {
	if len(hs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, h := range hs {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, exitCode(exitUsage, fmt.Sprintf("--header %q: want \"Key: Value\"", h))
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

func parseEnv(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, exitCode(exitUsage, fmt.Sprintf("--env %q: want KEY=VALUE", kv))
		}
		out[k] = v
	}
	return out, nil
}

func (f *mcpFlags) managerOptions() *mcpclient.Options {
	o := &mcpclient.Options{ClientName: "browseragent", ClientVersion: buildVersion(), InitTimeout: f.timeout}
	f.host.apply(o)
	return o
}

// withManager starts the servers of cfg, waits until none is starting, runs
// fn, and stops them (no child process survives, Ctrl-C included).
func withManager(ctx context.Context, s *streams, f *mcpFlags, cfg *mcpclient.Config, fn func(context.Context, *mcpclient.Manager) error) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	for _, w := range cfg.Warnings {
		fmt.Fprintf(s.err, "browseragent: warning: %s\n", textutil.VisibleLine(w))
	}
	m := mcpclient.NewManager(cfg, f.managerOptions())
	defer m.Close()
	m.Start(ctx)
	if err := m.WaitAll(ctx); err != nil {
		return fmt.Errorf("waiting for MCP servers: %w", err)
	}
	return fn(ctx, m)
}

// ready returns the error that explains why server name is not ready.
func ready(ctx context.Context, m *mcpclient.Manager, name string) error {
	if err := m.WaitReady(ctx, name); err != nil {
		return fmt.Errorf("%v (see 'browseragent mcp logs %s')", err, name)
	}
	return nil
}

func newMCPListCmd(s *streams, f *mcpFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start the configured servers and show each one's state, tool count and error",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.loadConfig()
			if err != nil {
				return err
			}
			if !asJSON && isTerminal(s.out) {
				return liveList(cmd.Context(), s, f, cfg)
			}
			return withManager(cmd.Context(), s, f, cfg, func(ctx context.Context, m *mcpclient.Manager) error {
				return printStatus(s.out, m.Status(), asJSON, pendingRows(f.pending)...)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// liveList is `mcp list` at a terminal: the table at once, every server
// "starting", redrawn in place as each one's state arrives, and left as
// the last state once none is starting. A script or a pipe gets the table
// once, when every server has settled (withManager), the same rows.
func liveList(ctx context.Context, s *streams, f *mcpFlags, cfg *mcpclient.Config) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	for _, w := range cfg.Warnings {
		fmt.Fprintf(s.err, "browseragent: warning: %s\n", textutil.VisibleLine(w))
	}
	o := f.managerOptions()
	changed := make(chan struct{}, 1)
	onEvent := o.OnEvent
	o.OnEvent = func(e mcpclient.Event) {
		if onEvent != nil {
			onEvent(e)
		}
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	m := mcpclient.NewManager(cfg, o)
	defer m.Close()
	m.Start(ctx)
	settled := make(chan error, 1)
	go func() { settled <- m.WaitAll(ctx) }()
	live := &redraw{w: s.out, width: terminalWidth(s.out)}
	for {
		var b strings.Builder
		if err := printStatus(&b, m.Status(), false, pendingRows(f.pending)...); err != nil {
			return err
		}
		select {
		case err := <-settled:
			if err != nil {
				return fmt.Errorf("waiting for MCP servers: %w", err)
			}
			b.Reset()
			if err := printStatus(&b, m.Status(), false, pendingRows(f.pending)...); err != nil {
				return err
			}
			return live.show(b.String(), true)
		default:
		}
		if err := live.show(b.String(), false); err != nil {
			return err
		}
		select {
		case <-changed:
		case err := <-settled:
			settled <- err // read again at the top, with the final states
		}
	}
}

// redraw shows a block of lines at a terminal, each new version over the
// last: the cursor goes back up the lines it wrote and writes each again.
// Until the last version each line is cut to the terminal's width, so a
// line never wraps and the count up stays right; the last is whole.
type redraw struct {
	w     io.Writer
	width int
	lines int // lines on the screen from the last show
}

func (r *redraw) show(text string, last bool) error {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var b strings.Builder
	if r.lines > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", r.lines)
	}
	for _, l := range lines {
		if !last && r.width > 1 {
			l = textutil.Cut(l, r.width-1)
		}
		// Each line cleared as it is written over, not the screen below
		// (tmux and others push a cleared screen into the scrollback).
		b.WriteString("\r\x1b[2K" + l + "\n")
	}
	if len(lines) < r.lines {
		b.WriteString("\x1b[J")
	}
	r.lines = len(lines)
	_, err := io.WriteString(r.w, b.String())
	return err
}

// terminalWidth is w's terminal's width, else termWidth's answer.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return termWidth()
}

type statusJSON struct {
	Name      string `json:"name"`
	State     string `json:"state"`
	Transport string `json:"transport"`
	Tools     int    `json:"tools"`
	Prompts   int    `json:"prompts"`
	Resources int    `json:"resources"`
	Source    string `json:"source,omitempty"`
	Error     string `json:"error,omitempty"`
}

// pendingRows lists the servers of an untrusted project file as rows of
// their own: configured, not started, and how to start them.
func pendingRows(pending map[string]*mcpclient.ServerConfig) []statusJSON {
	var out []statusJSON
	for _, name := range slices.Sorted(maps.Keys(pending)) {
		sc := pending[name]
		transport := "stdio"
		if sc.URL != "" {
			transport = "http"
		}
		out = append(out, statusJSON{Name: name, State: "pending approval", Transport: transport, Source: sc.Source,
			Error: fmt.Sprintf("not trusted: check it, then run 'browseragent mcp trust' (or pass %s)", mcpclient.TrustFlag)})
	}
	return out
}

func printStatus(w io.Writer, sts []mcpclient.Status, asJSON bool, extra ...statusJSON) error {
	rows := make([]statusJSON, 0, len(sts))
	for _, st := range sts {
		r := statusJSON{Name: st.Name, State: st.StateText(), Transport: st.Transport, Tools: st.Tools,
			Prompts: st.Prompts, Resources: st.Resources, Source: st.Source}
		if st.Err != nil {
			r.Error = st.Err.Error()
		}
		rows = append(rows, r)
	}
	rows = append(rows, extra...)
	if asJSON {
		return writeJSON(w, rows)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tTOOLS\tTRANSPORT\tSOURCE\tERROR")
	for _, r := range rows {
		toolList := strconv.Itoa(r.Tools)
		if r.State == mcpclient.StateError.String() || r.State == mcpclient.StateDisabled.String() || r.State == "pending approval" {
			toolList = "-" // a server in error or disabled offers none
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", textutil.VisibleLine(r.Name), r.State, toolList, textutil.VisibleLine(r.Transport), textutil.VisibleLine(r.Source), textutil.VisibleLine(textutil.FirstLine(r.Error, 0)))
	}
	return tw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func newMCPToolsCmd(s *streams, f *mcpFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tools [NAME]",
		Short: "List tools with their cleaned input schemas (all servers without NAME)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.loadConfig(args...)
			if err != nil {
				return err
			}
			return withManager(cmd.Context(), s, f, cfg, func(ctx context.Context, m *mcpclient.Manager) error {
				for _, n := range cfg.Names() {
					if len(args) == 1 || f.adhoc() {
						if err := ready(ctx, m, n); err != nil {
							return err
						}
					}
				}
				return printTools(s, m, asJSON)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: name, server, rawName, description, inputSchema, hints")
	return cmd
}

type toolJSON struct {
	Name            string         `json:"name"`
	Server          string         `json:"server"`
	RawName         string         `json:"rawName"`
	Description     string         `json:"description,omitempty"`
	InputSchema     map[string]any `json:"inputSchema"`
	ReadOnlyHint    *bool          `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool          `json:"destructiveHint,omitempty"`
	Virtual         bool           `json:"virtual,omitempty"`
}

func printTools(s *streams, m *mcpclient.Manager, asJSON bool) error {
	toolList := m.Tools()
	if asJSON {
		out := make([]toolJSON, 0, len(toolList))
		for _, t := range toolList {
			out = append(out, toolJSON{t.Name, t.Server, t.RawName, t.Description, t.InputSchema, t.ReadOnlyHint, t.DestructiveHint, t.Virtual})
		}
		return writeJSON(s.out, out)
	}
	for _, st := range m.Status() {
		if st.State == mcpclient.StateError {
			fmt.Fprintf(s.err, "browseragent: mcp server %q: %s\n", st.Name, textutil.VisibleLine(words.Error(st.Err)))
		}
	}
	for _, t := range toolList {
		fmt.Fprintf(s.out, "%s%s\n", textutil.VisibleLine(t.Name), hints(t))
		if d := textutil.FirstLine(t.Description, 0); d != "" {
			fmt.Fprintf(s.out, "    %s\n", textutil.VisibleLine(d))
		}
		if p := params(t.InputSchema); p != "" {
			fmt.Fprintf(s.out, "    args: %s\n", textutil.VisibleLine(p))
		}
	}
	return nil
}

func hints(t mcpclient.Tool) string {
	var h []string
	if t.ReadOnlyHint != nil && *t.ReadOnlyHint {
		h = append(h, "read-only")
	}
	if t.DestructiveHint != nil && *t.DestructiveHint {
		h = append(h, "destructive")
	}
	if len(h) == 0 {
		return ""
	}
	return "  [" + strings.Join(h, ", ") + "]"
}

// params summarises a schema as "name:type*" (* = required).
func params(schema map[string]any) string {
	props, _ := schema["properties"].(map[string]any)
	req := map[string]bool{}
	if r, ok := schema["required"].([]any); ok {
		for _, n := range r {
			if s, ok := n.(string); ok {
				req[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		p, _ := props[n].(map[string]any)
		typ, _ := p["type"].(string)
		names[i] = n + ":" + typ
		if req[n] {
			names[i] += "*"
		}
	}
	return strings.Join(names, " ")
}

type callFlags struct {
	yes    bool
	sites  string
	asJSON bool
	outDir string
	// session is --session: the named session of `mcp serve --http`
	// the call works in (serve.SessionHeader).
	session string
}

func newMCPCallCmd(s *streams, f *mcpFlags) *cobra.Command {
	c := &callFlags{}
	cmd := &cobra.Command{
		Use:   "call NAME TOOL [JSON_ARGS] | call --cmd/--url ... TOOL [JSON_ARGS]",
		Short: "Call one tool and print its result; images are saved to files whose paths are printed",
		Long: `Call one MCP tool through browseragent's tool-call path (sensitive-site
guard, approval, audit log) and print the result. TOOL is the server's own
name (echo) or the full name (mcp__everything__echo). JSON_ARGS is a JSON
object; "-" reads it from stdin.

Exit codes: 0 ok; 1 the tool reported an error, or the server failed;
2 bad usage; 3 the server wants you to open a URL first (printed; nothing
is opened), then run the call again.

Against 'browseragent mcp serve --http', each call is an MCP session of its
own, and the tabs it opened close when it ends; --session NAME makes the
calls of one NAME work in the same place (tabs, current tab, grants), kept
until the server stops, so open, snapshot and click can be three calls.`,
		Example: `  browseragent mcp call everything echo '{"message":"hi"}'
  browseragent mcp call --cmd "npx -y @modelcontextprotocol/server-everything@2026.8.31" get-tiny-image
  browseragent mcp call --url http://127.0.0.1:8931/mcp --session shop -y browser_open '{"url":"http://127.0.0.1:8080/"}'
  browseragent mcp call --url http://127.0.0.1:8931/mcp --session shop browser_snapshot`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPCall(cmd.Context(), s, f, c, args)
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&c.yes, "yes", "y", false, "approve a call that needs approval (never on sensitive pages)")
	fl.StringVar(&c.sites, "sites", "", "extra sensitive-sites rules file")
	fl.BoolVar(&c.asJSON, "json", false, "print JSON: text, isError, images (saved paths)")
	fl.StringVar(&c.outDir, "out-dir", "", "directory for image files (default: a new temporary directory)")
	fl.StringVar(&c.session, "session", "", "with --url to 'mcp serve --http': work in the named session NAME, whose tabs outlive this call")
	return cmd
}

func runMCPCall(ctx context.Context, s *streams, f *mcpFlags, c *callFlags, args []string) error {
	if c.session != "" {
		if f.url == "" {
			return exitCode(exitUsage, "--session goes with --url (a browseragent mcp serve --http endpoint)")
		}
		if !serve.ValidSessionName(c.session) {
			return exitCode(exitUsage, fmt.Sprintf("--session %q: a session name is 1 to 64 letters, digits, '.', '_' or '-'", textutil.Cut(c.session, 70)))
		}
		f.headers = append(f.headers, serve.SessionHeader+": "+c.session)
	}
	name, rest, err := f.serverArgs(args)
	if err != nil {
		return err
	}
	if len(rest) < 1 || len(rest) > 2 {
		return exitCode(exitUsage, "usage: browseragent mcp call NAME TOOL [JSON_ARGS]")
	}
	argJSON, err := readArgs(s, rest[1:])
	if err != nil {
		return err
	}
	cfg, err := f.loadConfig(name)
	if err != nil {
		return err
	}
	rules, err := loadRules(c.sites, s.err)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(s.err, "browseragent: warning: %s\n", textutil.VisibleLine(w))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	// The call goes through the agent's Registry, the one tool-call path.
	sess, err := session.NewSession(&session.SessionOptions{Rules: rules, MCP: cfg, MCPOptions: *f.managerOptions(), Yes: c.yes})
	if err != nil {
		return err
	}
	defer sess.Close()
	sess.Start(ctx)
	if err := ready(ctx, sess.MCP, name); err != nil {
		return err
	}
	full, err := resolveTool(sess.MCP, name, rest[0])
	if err != nil {
		return err
	}
	res, err := sess.Registry.Call(ctx, full, argJSON, tools.OriginScript)
	f.host.progress.clear()
	refused := errors.Is(err, guard.ErrDenied)
	if err != nil && !refused {
		return needsURL(err)
	}
	text := res.Full()
	if res.IsError() && !c.asJSON {
		text = res.ForPerson() // a refusal in the person's words, not the model's
	}
	what := full + " reported an error"
	if refused {
		what = full // the reason is a sentence about the call: "mcp__s__t may change…"
	}
	return printResult(s, c, guard.WithoutMarkers(text), res.IsError(), res.Images, what)
}

// readArgs returns the JSON_ARGS argument ("-" = stdin), checked to be an
// object, or {}.
func readArgs(s *streams, rest []string) (json.RawMessage, error) {
	if len(rest) == 0 {
		return json.RawMessage(`{}`), nil
	}
	raw := []byte(rest[0])
	if rest[0] == "-" {
		b, err := io.ReadAll(s.in)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, exitCode(exitUsage, fmt.Sprintf(`JSON_ARGS must be a JSON object such as '{"message":"hi"}': %v`, err))
	}
	return raw, nil
}

// resolveTool accepts the server's own tool name or the full name.
func resolveTool(m *mcpclient.Manager, server, tool string) (string, error) {
	toolList, err := m.ServerTools(server)
	if err != nil {
		return "", err
	}
	var names []string
	for _, t := range toolList {
		if t.RawName == tool || t.Name == tool {
			return t.Name, nil
		}
		names = append(names, t.RawName)
	}
	if len(names) > 12 {
		names = append(names[:12], "…")
	}
	return "", exitCode(exitUsage, fmt.Sprintf("server %q has no tool %q; it has: %s", server, tool, strings.Join(names, ", ")))
}

type imageJSON struct {
	MIME  string `json:"mime"`
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}

// printResult prints text, saves images and turns a tool error into exit 1,
// its message what (say "mcp__s__t reported an error") labelling the
// text's first line, the name said once.
func printResult(s *streams, c *callFlags, text string, isError bool, images []media.Image, what string) error {
	paths, err := saveImages(c.outDir, images)
	if err != nil {
		return err
	}
	if c.asJSON {
		out := struct {
			Text    string      `json:"text"`
			IsError bool        `json:"isError"`
			Images  []imageJSON `json:"images,omitempty"`
		}{text, isError, paths}
		if err := writeJSON(s.out, out); err != nil {
			return err
		}
	} else {
		if text != "" {
			fmt.Fprintln(s.out, textutil.ForTerminal(s.out, strings.TrimRight(text, "\n"))) // the server chose it
		}
		for _, p := range paths {
			fmt.Fprintf(s.out, "[%s image, %d bytes, saved to %s]\n", textutil.VisibleLine(p.MIME), p.Bytes, textutil.VisibleLine(p.Path))
		}
	}
	if isError {
		return exitCode(exitFailed, textutil.Labelled(what, textutil.FirstLine(text, 0)))
	}
	return nil
}

func saveImages(dir string, images []media.Image) ([]imageJSON, error) {
	if len(images) == 0 {
		return nil, nil
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "browseragent-mcp-")
		if err != nil {
			return nil, err
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []imageJSON
	for i, im := range images {
		p := filepath.Join(dir, fmt.Sprintf("image-%d%s", i+1, imageExt(im.MIME)))
		if err := os.WriteFile(p, im.Data, 0o644); err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(p)
		out = append(out, imageJSON{MIME: im.MIME, Path: abs, Bytes: len(im.Data)})
	}
	return out, nil
}

func imageExt(mime string) string {
	switch mime {
	case "image/png":
		return ".png"
	case "image/jpeg", "image/jpg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "image/svg+xml":
		return ".svg"
	}
	return ".bin"
}

func newMCPResourcesCmd(s *streams, f *mcpFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "resources NAME",
		Short: "List a server's resources and resource templates",
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServer(cmd, s, f, args, 0, func(ctx context.Context, m *mcpclient.Manager, name string, _ []string) error {
				res, tmpls, err := m.Resources(name)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
				for _, r := range res {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", textutil.VisibleLine(r.URI), textutil.VisibleLine(r.Name), textutil.VisibleLine(r.MIMEType))
				}
				for _, t := range tmpls {
					fmt.Fprintf(tw, "%s\t%s\t(template)\n", textutil.VisibleLine(t.URITemplate), textutil.VisibleLine(t.Name))
				}
				if len(res)+len(tmpls) == 0 {
					fmt.Fprintf(s.err, "browseragent: server %q lists no resources\n", name)
				}
				return tw.Flush()
			})
		},
	}
}

// withServer runs fn against one started, ready server; want is the number
// of arguments after NAME (a negative value allows up to -want).
func withServer(cmd *cobra.Command, s *streams, f *mcpFlags, args []string, want int,
	fn func(context.Context, *mcpclient.Manager, string, []string) error) error {
	name, rest, err := f.serverArgs(args)
	if err != nil {
		return err
	}
	if (want >= 0 && len(rest) != want) || (want < 0 && len(rest) > -want) {
		return exitCode(exitUsage, fmt.Sprintf("usage: %s %s", cmd.Parent().CommandPath(), cmd.Use))
	}
	cfg, err := f.loadConfig(name)
	if err != nil {
		return err
	}
	return withManager(cmd.Context(), s, f, cfg, func(ctx context.Context, m *mcpclient.Manager) error {
		if err := ready(ctx, m, name); err != nil {
			return err
		}
		return fn(ctx, m, name, rest)
	})
}

func newMCPReadCmd(s *streams, f *mcpFlags) *cobra.Command {
	c := &callFlags{}
	cmd := &cobra.Command{
		Use:   "read NAME URI",
		Short: "Read one resource; text is printed, images are saved to files",
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServer(cmd, s, f, args, 1, func(ctx context.Context, m *mcpclient.Manager, name string, rest []string) error {
				r, err := m.ReadResource(ctx, name, rest[0])
				if err != nil {
					return err
				}
				return printResult(s, c, r.Text, false, r.Images, rest[0]+" reported an error")
			})
		},
	}
	cmd.Flags().StringVar(&c.outDir, "out-dir", "", "directory for image files (default: a new temporary directory)")
	cmd.Flags().BoolVar(&c.asJSON, "json", false, "print JSON")
	return cmd
}

func newMCPPromptsCmd(s *streams, f *mcpFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "prompts NAME",
		Short: "List a server's prompts and their arguments (* = required)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServer(cmd, s, f, args, 0, func(ctx context.Context, m *mcpclient.Manager, name string, _ []string) error {
				prompts, err := m.Prompts(name)
				if err != nil {
					return err
				}
				for _, p := range prompts {
					var as []string
					for _, a := range p.Arguments {
						n := a.Name
						if a.Required {
							n += "*"
						}
						as = append(as, n)
					}
					fmt.Fprintf(s.out, "%s(%s)", textutil.VisibleLine(p.Name), textutil.VisibleLine(strings.Join(as, ", ")))
					if d := textutil.FirstLine(p.Description, 0); d != "" {
						fmt.Fprintf(s.out, "  %s", textutil.VisibleLine(d))
					}
					fmt.Fprintln(s.out)
				}
				return nil
			})
		},
	}
}

func newMCPPromptCmd(s *streams, f *mcpFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "prompt NAME PROMPT [JSON_ARGS]",
		Short: `Get a prompt with arguments, e.g. '{"city":"Paris"}', and print its messages`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServer(cmd, s, f, args, -2, func(ctx context.Context, m *mcpclient.Manager, name string, rest []string) error {
				if len(rest) == 0 {
					return exitCode(exitUsage, "usage: browseragent mcp prompt NAME PROMPT [JSON_ARGS]")
				}
				pargs := map[string]string{}
				if len(rest) == 2 {
					if err := json.Unmarshal([]byte(rest[1]), &pargs); err != nil {
						return exitCode(exitUsage, fmt.Sprintf(`JSON_ARGS must be an object of strings such as '{"city":"Paris"}': %v`, err))
					}
				}
				r, err := m.GetPrompt(ctx, name, rest[0], pargs)
				if err != nil {
					return err
				}
				fmt.Fprintln(s.out, textutil.ForTerminal(s.out, mcpclient.PromptText(r))) // the server chose it
				return nil
			})
		},
	}
}

func newMCPLogsCmd(s *streams, f *mcpFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "logs NAME",
		Short: "Start a server and print the last 200 lines of its stderr (why it fails to start)",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, rest, err := f.serverArgs(args)
			if err != nil {
				return err
			}
			if len(rest) != 0 {
				return exitCode(exitUsage, "usage: browseragent mcp logs NAME")
			}
			cfg, err := f.loadConfig(name)
			if err != nil {
				return err
			}
			return withManager(cmd.Context(), s, f, cfg, func(ctx context.Context, m *mcpclient.Manager) error {
				lines, err := m.Logs(name)
				if err != nil {
					return err
				}
				for _, l := range lines {
					fmt.Fprintln(s.out, textutil.VisibleLine(l)) // the server wrote it
				}
				st, _ := m.ServerStatus(name)
				fmt.Fprintf(s.err, "browseragent: %s is %s", name, st.State)
				if st.Err != nil {
					fmt.Fprintf(s.err, ": %s", textutil.VisibleLine(words.Error(st.Err)))
				}
				fmt.Fprintln(s.err)
				return nil
			})
		},
	}
}

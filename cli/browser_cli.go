package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/browsercli"
	"github.com/browseragent/browseragent/browsercli/wire"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

// browserCLIFlags are the flags every `browser` command shares.
type browserCLIFlags struct {
	session    string
	json, yes  bool
	headed     bool
	idle       time.Duration
	sites      string
	conn       connectFlags
	daemonArgs []string
}

func (f *browserCLIFlags) add(cmd *cobra.Command) {
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.session, "session", "", "the session to use (default $"+wire.SessionEnv+", else \""+wire.DefaultSession+"\"): each has its own browser and daemon")
	pf.BoolVar(&f.json, "json", false, "print one JSON object (with \"ok\", \"exit\" and \"code\")")
	pf.BoolVarP(&f.yes, "yes", "y", false, "approve writes on ordinary pages, never on sensitive ones (as run --yes)")
	pf.BoolVar(&f.headed, "headed", false, "when this command starts the session: show the browser window")
	pf.DurationVar(&f.idle, "idle-timeout", wire.DefaultIdle, "when this command starts the session: end it after this long without a command")
	pf.StringVar(&f.sites, "sites", "", "when this command starts the session: extra sensitive-sites rules `FILE`")
	f.conn.addFlags(pf)
}

func (f *browserCLIFlags) name() string {
	if f.session != "" {
		return f.session
	}
	if env := os.Getenv(wire.SessionEnv); env != "" {
		return env
	}
	return wire.DefaultSession
}

// daemonArgv is how a command starts its session's daemon: this binary again.
func (f *browserCLIFlags) daemonArgv() ([]string, error) {
	return wire.DaemonArgv(f.name(), f.idle, f.headed, f.sites)
}

// request is the command as the daemon takes it.
func (f *browserCLIFlags) request(cmd *cobra.Command, c wire.Command, args []string) *wire.Request {
	req := &wire.Request{Command: c.Name, Args: args, Yes: f.yes, Flags: map[string]string{}, Version: buildVersion(), Binary: wire.Binary()}
	for _, fl := range c.Flags {
		if v := cmd.Flags().Lookup(fl.Name); v != nil && v.Changed {
			req.Flags[fl.Name] = v.Value.String()
		}
	}
	if f.conn.on() {
		t := f.conn.target()
		req.Connect = &wire.Target{WSEndpoint: t.WSEndpoint, BrowserURL: t.BrowserURL, UserDataDir: t.UserDataDir}
	}
	return req
}

// addBrowserCLI adds the session commands to `browser`.
func addBrowserCLI(parent *cobra.Command, s *streams, f *browserCLIFlags) {
	f.add(parent)
	for _, c := range wire.Commands() {
		if c.Name == "tabs" {
			continue // newBrowserTabsCmd: the session's tabs, or your Chrome's read-only
		}
		parent.AddCommand(newBrowserCLICmd(s, f, c))
	}
	parent.AddCommand(newBrowserDaemonCmd(s, f))
}

func newBrowserCLICmd(s *streams, f *browserCLIFlags, c wire.Command) *cobra.Command {
	max := c.MaxArgs
	cmd := &cobra.Command{Use: c.Use, Short: c.Short, Args: func(cmd *cobra.Command, args []string) error {
		if len(args) < c.MinArgs || max >= 0 && len(args) > max {
			return exitCode(exitUsage, fmt.Sprintf("usage: browseragent browser %s (see 'browseragent browser %s --help')", c.Use, textutil.VisibleLine(c.Name)))
		}
		return nil
	}}
	for _, fl := range c.Flags {
		if fl.Bool {
			cmd.Flags().BoolP(fl.Name, fl.Short, false, fl.Usage)
		} else {
			cmd.Flags().StringP(fl.Name, fl.Short, "", fl.Usage)
		}
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return runBrowserCLI(cmd, s, f, c, args)
	}
	return cmd
}

func runBrowserCLI(cmd *cobra.Command, s *streams, f *browserCLIFlags, c wire.Command, args []string) error {
	ctx := cmd.Context()
	if err := wire.CheckName(f.name()); err != nil {
		return browserErr(s, f, err)
	}
	var resp *wire.Response
	var err error
	switch {
	case c.Name == "skill":
		fmt.Fprint(s.out, browsercli.Skill)
		return nil
	case c.Name == "sessions":
		resp, err = listSessions()
	case c.Name == "close" && cmd.Flags().Changed("all"):
		resp, err = wire.CloseAll(ctx)
	default:
		resp, err = f.do(ctx, s, f.request(cmd, c, args))
	}
	if err != nil {
		return browserErr(s, f, err)
	}
	return printBrowserResponse(s, f, c.Name, resp)
}

// do runs req in the session, asking at the terminal when stdin is one.
func (f *browserCLIFlags) do(ctx context.Context, s *streams, req *wire.Request) (*wire.Response, error) {
	argv, err := f.daemonArgv()
	if err != nil {
		return nil, err
	}
	o := &wire.ClientOptions{Session: f.name(), Daemon: argv}
	if inFile, ok := s.in.(*os.File); ok && isatty.IsTerminal(inFile.Fd()) {
		o.Ask = func(ctx context.Context, q wire.Ask) (string, error) { return askAtTerminal(ctx, s, q) }
	}
	return wire.Do(ctx, req, o)
}

// askAtTerminal asks the person as the shell's approval box does: what,
// where, why, and the answers the guard accepts. It stops waiting when
// ctx ends (the session withdrew the question).
func askAtTerminal(ctx context.Context, s *streams, q wire.Ask) (string, error) {
	// A page chose its URL, and the command line and the reason quote
	// what a page or a script chose: each is shown escaped, so nothing in
	// them can rewrite the question the person answers.
	where := ""
	if q.Page != "" {
		where = " on " + textutil.VisibleLine(q.Page)
	}
	what := textutil.VisibleLine(q.Tool)
	if q.Command != "" { // browser confirm: the pending call's own command line
		what = fmt.Sprintf("`%s` (%s)", textutil.VisibleLine(q.Command), textutil.VisibleLine(q.Tool))
	}
	fmt.Fprintf(s.err, "browseragent: %s%s needs your approval: %s\n", what, where, textutil.VisibleLine(q.Reason))
	if q.Args != "" {
		fmt.Fprintf(s.err, "  %s\n", textutil.Visible(q.Args))
	}
	choices := "[y]es once, [a]lways for this tool, [N]o"
	if q.Sensitive {
		choices = "[y]es once, [N]o"
	}
	fmt.Fprintf(s.err, "Allow? %s: ", choices)
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	go func() {
		line, err := bufio.NewReader(s.in).ReadString('\n')
		got <- read{line, err}
	}()
	var r read
	select {
	case r = <-got:
	case <-ctx.Done():
		fmt.Fprintln(s.err) // end the question's line; the reason follows
		return "deny", ctx.Err()
	}
	if r.err != nil && r.line == "" {
		return "deny", r.err
	}
	switch strings.ToLower(strings.TrimSpace(r.line)) {
	case "y", "yes":
		return "once", nil
	case "a", "always":
		if !q.Sensitive {
			return "always", nil
		}
	}
	return "deny", nil
}

func listSessions() (*wire.Response, error) {
	list, err := wire.Sessions()
	if err != nil {
		return nil, err
	}
	resp := &wire.Response{Data: map[string]any{"sessions": list}}
	if len(list) == 0 {
		resp.Text = "No session is running."
	}
	var b strings.Builder
	for _, st := range list {
		state := fmt.Sprintf("running, %s browser, since %s, pid %d, ends after %s idle", st.Mode, st.Started.Local().Format("15:04:05"), st.PID, st.Idle)
		if !st.Alive {
			state = fmt.Sprintf("died (pid %d): the next command starts a fresh one", st.PID)
		}
		fmt.Fprintf(&b, "%s: %s\n", textutil.VisibleLine(st.Name), state)
	}
	resp.Text += strings.TrimRight(b.String(), "\n")
	return resp, nil
}

// browserErr prints a failure before or around the session (a bad session
// name, no daemon to start) as printBrowserResponse prints the daemon's.
func browserErr(s *streams, f *browserCLIFlags, err error) error {
	code := wire.ExitFailed
	var be *wire.Error
	if errors.As(err, &be) {
		code = be.Code
	}
	return printBrowserResponse(s, f, "", &wire.Response{Exit: code, Error: err.Error()})
}

// printBrowserResponse writes what the command did: its text on stdout,
// its failure as one line on stderr, or one JSON object with --json; and
// the file it returned (a screenshot) where the person named it.
func printBrowserResponse(s *streams, f *browserCLIFlags, command string, resp *wire.Response) error {
	if resp.File != nil {
		if err := checkWritePlace(resp.File.Path, resp.File.Path); err != nil {
			// where --out may not write, a screenshot may not either
			resp = &wire.Response{Exit: wire.ExitUsage, Error: err.Error()}
		} else if err := os.WriteFile(resp.File.Path, resp.File.Data, 0o644); err != nil {
			resp = &wire.Response{Exit: wire.ExitFailed, Error: fmt.Sprintf("save %s: %v", textutil.VisibleLine(resp.File.Path), err)}
		}
	}
	if code := wire.Print(s.out, s.err, f.json, command, resp); code != wire.ExitOK {
		return exitCode(code, "")
	}
	return nil
}

// newBrowserDaemonCmd is the session's daemon, started by the first
// command of a session; not for people to run.
func newBrowserDaemonCmd(s *streams, f *browserCLIFlags) *cobra.Command {
	return &cobra.Command{
		Use:    "daemon",
		Short:  "Run a session's daemon (started by the session's first command)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ready := os.NewFile(3, "ready")
			defer ready.Close()
			return browsercli.Serve(cmd.Context(), browsercli.ServeOptions{Name: f.name(), Idle: f.idle, Ready: ready, Version: buildVersion(),
				Open: func(ctx context.Context, approver tools.Approver) (*session.Session, error) {
					return openSession(ctx, sessionConfig{sitesFile: f.sites, noMCP: true, headed: f.headed, approver: approver, warn: s.err})
				}})
		},
	}
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/internal/buildinfo"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/internal/words"
)

// exitError carries a specific exit code (and an optional message) out of a
// subcommand. A nil-message exitError means "already reported".
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// exitCode returns an error that makes Main exit with code, printing msg
// (when not empty) as the one-sentence error.
func exitCode(code int, msg string) error { return &exitError{code: code, msg: msg} }

// streams holds where a command reads and writes; tests replace them.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// Main runs browseragent with args and returns the process exit code. It is
// the one place that turns errors into messages and exit codes: commands
// return errors, Main prints them as one sentence without a stack trace.
func Main(args []string, in io.Reader, out, errw io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(errw, "browseragent: internal error: %v\n(set BROWSERAGENT_DEBUG=1 for details)\n", r)
			if os.Getenv("BROWSERAGENT_DEBUG") != "" {
				fmt.Fprintf(errw, "%s\n", debug.Stack())
			}
			code = exitInternal
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()

	s := &streams{in: in, out: out, err: errw}
	root := newRootCmd(s)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(errw, "browseragent: %s\n", words.Text(ee.msg))
		}
		return ee.code
	}
	msg := textutil.FirstLine(words.Error(err), 0)
	if strings.HasPrefix(msg, "unknown command") {
		// cobra's usage errors: bad usage exits 2, like a bad flag.
		fmt.Fprintf(errw, "browseragent: %s (see 'browseragent --help')\n", msg)
		return exitUsage
	}
	fmt.Fprintf(errw, "browseragent: %s\n", msg)
	return exitFailed
}

func newRootCmd(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "browseragent",
		Short: "A terminal shell for web work: web_fetch, a real browser and MCP tools",
		Long: `browseragent is a terminal shell for web work. An LLM agent does your task with a
fast web_fetch, a real Chromium over the DevTools Protocol, and any MCP server
you configure. With no subcommand it starts the interactive shell (type /help
there). Every subcommand also works without an LLM, for scripts.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
		Args:          cobra.NoArgs,
	}
	// Subcommands stop cleanly on Ctrl-C: their context is cancelled, so a
	// launched Chromium or MCP server is stopped and its profile removed. A
	// second Ctrl-C kills at once. The shell handles Ctrl-C itself.
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) {
		if cmd == root {
			return
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
		context.AfterFunc(ctx, stop)
		cmd.SetContext(ctx)
	}
	var sf shellFlags
	sf.add(root)
	root.RunE = func(cmd *cobra.Command, args []string) error { return runShell(cmd.Context(), s, &sf) }
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitCode(exitUsage, fmt.Sprintf("%s (see '%s --help')", err, c.CommandPath()))
	})
	root.SetVersionTemplate("browseragent {{.Version}}\n")
	root.AddCommand(
		newVersionCmd(s),
		newFetchCmd(s),
		newRunCmd(s),
		newBrowserCmd(s),
		newMCPCmd(s),
		newSitesCmd(s),
		newAuditCmd(s),
	)
	rejectUnknownSubcommands(root)
	return root
}

// rejectUnknownSubcommands makes a command group (mcp, sites, browser) fail
// with exit 2 on an unknown subcommand; cobra would print help and exit 0.
func rejectUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		rejectUnknownSubcommands(sub)
	}
	if c.Parent() == nil || !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return exitCode(exitUsage, fmt.Sprintf("unknown command %q for %q (see '%s --help')", args[0], cmd.CommandPath(), cmd.CommandPath()))
	}
}

func newVersionCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(s.out, "browseragent %s\n", buildVersion())
			return nil
		},
	}
}

// buildVersion says which browseragent this is (internal/buildinfo).
func buildVersion() string { return buildinfo.Version() }

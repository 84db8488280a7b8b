package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/mcpclient"
)

func newMCPLoginCmd(s *streams, f *mcpFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "login NAME | login --url URL",
		Short: "Log in to an OAuth-protected http/sse server now: opens the browser and stores the token",
		Long: `Run the OAuth login of an http or sse MCP server: discover its
authorization server, register browseragent (or use the "oauth" client of
its config entry), open the authorization page in $BROWSER (else xdg-open,
open or the Windows URL handler) and wait for the redirect on
http://127.0.0.1:PORT/callback. The URL is printed too, for a machine
without a browser. The token is stored, private to you, in
$XDG_CONFIG_HOME/browseragent/tokens/NAME.json; later commands send it and
refresh it. Logging in again replaces it.`,
		Example: `  browseragent mcp login linear
  browseragent mcp login --url https://mcp.example.com/mcp
  BROWSER="firefox --new-window" browseragent mcp login linear`,
		RunE: func(cmd *cobra.Command, args []string) error {
			name, rest, err := f.serverArgs(args)
			if err != nil {
				return err
			}
			if len(rest) != 0 {
				return exitCode(exitUsage, "usage: browseragent mcp login NAME | mcp login --url URL")
			}
			cfg, err := f.loadConfig(name)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			err = mcpclient.Login(ctx, cfg.Servers[name], &mcpclient.OAuthOptions{OnPrompt: loginPrompter(s)})
			if errors.Is(err, mcpclient.ErrNoOAuth) {
				return exitCode(exitFailed, err.Error())
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(s.out, "logged in to %q; token stored in %s\n", name, mcpclient.TokenFile(name, ""))
			return nil
		},
	}
}

// loginPrompter tells the person which page to open; it always prints the
// URL, since the browser may be on another machine.
func loginPrompter(s *streams) func(mcpclient.AuthPrompt) {
	return func(p mcpclient.AuthPrompt) {
		if p.OpenErr != nil {
			fmt.Fprintf(s.err, "browseragent: could not open a browser (%v).\nOpen this URL to log in to %q:\n  %s\n", p.OpenErr, p.Server, p.URL)
			return
		}
		fmt.Fprintf(s.err, "browseragent: log in to %q in your browser. If no page opened, visit:\n  %s\n", p.Server, p.URL)
	}
}

func newMCPLogoutCmd(s *streams, f *mcpFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "logout NAME | logout --url URL",
		Short: "Forget the stored OAuth token of a server",
		Example: `  browseragent mcp logout linear
  browseragent mcp logout --url https://mcp.example.com/mcp`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.cmdLine != "" {
				return exitCode(exitUsage, "--cmd servers do not use OAuth; give NAME or --url")
			}
			name, rest, err := f.serverArgs(args)
			if err != nil {
				return err
			}
			if len(rest) != 0 {
				return exitCode(exitUsage, "usage: browseragent mcp logout NAME | mcp logout --url URL")
			}
			ok, err := mcpclient.Logout(name, f.url, "")
			if err != nil {
				return err
			}
			if !ok {
				return exitCode(exitFailed, fmt.Sprintf("no stored login for %q", name))
			}
			fmt.Fprintf(s.out, "logged out of %q: its token is removed\n", name)
			return nil
		},
	}
}

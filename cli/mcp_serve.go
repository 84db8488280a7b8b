package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/serve"
	"github.com/browseragent/browseragent/session"
)

// serveFlags are `mcp serve`'s flags.
type serveFlags struct {
	http        string
	allowRemote bool
	token       string
	hosts       []string
	origins     []string
	yes, headed bool
	keepTabs    bool
	sites       string
	connect     connectFlags
}

func newMCPServeCmd(s *streams) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve web_fetch and the guarded browser to any MCP host (Claude Code, Cursor, Codex...)",
		Long: `Serve web_fetch and the native browser_* tools over MCP: on stdin/stdout by
default (a host starts it as a command), or as Streamable HTTP at
http://ADDR/mcp with --http ADDR.

The tools run in an isolated Chromium, or in your running Chrome with
--connect (--user-data-dir, --browser-url, --ws-endpoint as in the shell).
Every call passes the guard and lands in the audit log with the client's
name and session. A call that needs approval is asked through the host as a
form (MCP elicitation); a host that cannot show forms is refused with the
reason, unless --yes approves writes on ordinary pages. Sensitive pages
always need a host that can ask.

--http listens on loopback only; another address needs --allow-remote and a
bearer token (--token or $BROWSERAGENT_MCP_TOKEN, else one is generated and
printed), and so does serving your Chrome (--connect) over HTTP; without a
token browser_connect is refused over HTTP. Host and Origin headers are
checked against DNS rebinding.

stdin closing, SIGTERM or Ctrl-C stop the server: the isolated browser and
every child process end with it; your own Chrome is never closed, only the
tabs the hosts opened in it (--keep-tabs keeps them).`,
		Example: `  claude mcp add browseragent -- browseragent mcp serve --connect
  browseragent mcp serve --http 127.0.0.1:8931
  browseragent mcp serve --http 0.0.0.0:8931 --allow-remote --allow-host myhost.lan`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), s, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve Streamable HTTP at `ADDR` (host:port, loopback unless --allow-remote) instead of stdio")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "with --http: allow a non-loopback address (a bearer token is then required)")
	fl.StringVar(&f.token, "token", os.Getenv("BROWSERAGENT_MCP_TOKEN"), "with --http: require \"Authorization: Bearer `TOKEN`\" (default $BROWSERAGENT_MCP_TOKEN)")
	fl.StringArrayVar(&f.hosts, "allow-host", nil, "with --http: also accept this Host header name (repeatable; loopback names always)")
	fl.StringArrayVar(&f.origins, "allow-origin", nil, "with --http: also accept requests from this browser Origin (repeatable; loopback origins always)")
	fl.BoolVarP(&f.yes, "yes", "y", false, "approve writes on ordinary pages for hosts that cannot show approval forms (never sensitive pages)")
	fl.BoolVar(&f.headed, "headed", false, "show the isolated browser's window")
	fl.BoolVar(&f.keepTabs, "keep-tabs", false, "with --connect: leave the tabs the hosts opened in your Chrome open when the server stops")
	fl.StringVar(&f.sites, "sites", "", "extra sensitive-sites rules `FILE`, layered over the built-in and your own")
	f.connect.addFlags(fl)
	return cmd
}

func runServe(ctx context.Context, s *streams, f *serveFlags) error {
	addr, err := f.listenAddr()
	if err != nil {
		return err
	}
	// stdout is the MCP channel (over stdio): notices and warnings go to
	// stderr, which hosts keep as the server's log.
	notice := func(msg string) { fmt.Fprintf(s.err, "browseragent: %s\n", msg) }
	sess, err := openSession(ctx, sessionConfig{sitesFile: f.sites, noMCP: true, yes: f.yes, headed: f.headed,
		keepTabs: f.keepTabs, warn: s.err, notice: notice, approver: serve.Approver{}})
	if err != nil {
		return err
	}
	defer func() {
		if err := sess.Close(); err != nil {
			fmt.Fprintf(s.err, "browseragent: closing: %v\n", err)
		}
	}()
	var reg serve.Registry = sess.Registry
	var gate *serve.ConnectGate
	if f.connect.on() {
		// A host starts the server before the person's Chrome allows
		// remote debugging (Claude Code's health check, say): it starts
		// anyway, serves web_fetch, and each browser call tries again,
		// answering with what to set up until it can attach. Never the
		// isolated browser in its place.
		gate = serve.NewConnectGate(sess.Registry, func(ctx context.Context) error {
			_, err := sess.Connect(ctx, f.connect.target())
			return err
		})
		reg = gate
	}
	srv := serve.New(reg, &serve.Options{Version: buildVersion(), Yes: f.yes, Modes: sess})
	defer srv.Close() // before the session: no call may start a browser after it closed
	sess.OnBrowserLost(func(msg string) {
		srv.ResetTabs()
		srv.Notice(context.Background(), msg)
	})
	if gate != nil {
		if err := gate.Attach(ctx); err != nil {
			notice("not connected to your Chrome yet, serving web_fetch meanwhile: " + words.Error(err))
		}
	}
	if f.http == "" {
		return srv.Run(ctx, &mcp.StdioTransport{})
	}
	return serveHTTP(ctx, s, f, srv, addr)
}

// listenAddr checks --http: loopback, or --allow-remote.
func (f *serveFlags) listenAddr() (string, error) {
	if f.http == "" {
		if f.allowRemote || len(f.hosts) > 0 || len(f.origins) > 0 {
			return "", exitCode(exitUsage, "--allow-remote, --allow-host and --allow-origin need --http ADDR")
		}
		return "", nil
	}
	host, _, err := net.SplitHostPort(f.http)
	if err != nil {
		return "", exitCode(exitUsage, fmt.Sprintf("--http %q: want HOST:PORT, e.g. 127.0.0.1:8931 (%v)", f.http, err))
	}
	if !serve.IsLoopback(host) && !f.allowRemote {
		return "", exitCode(exitUsage, fmt.Sprintf("--http %q is not a loopback address: anyone who can reach it could drive your browser; add --allow-remote (a bearer token is then required) or use 127.0.0.1", f.http))
	}
	return f.http, nil
}

// serveHTTP listens on addr until ctx ends, then closes every session.
func serveHTTP(ctx context.Context, s *streams, f *serveFlags, srv *serve.Server, addr string) error {
	host, _, _ := net.SplitHostPort(addr)
	o := &serve.HTTPOptions{Token: f.token, Hosts: f.hosts, Origins: f.origins}
	// Your Chrome, or another machine, needs a token: without one any
	// program on this machine (or the network) is a client.
	if o.Token == "" && (!serve.IsLoopback(host) || f.connect.on()) {
		tok, err := serve.NewToken()
		if err != nil {
			return err
		}
		o.Token = tok
		fmt.Fprintf(s.err, "browseragent: bearer token: %s (clients send \"Authorization: Bearer TOKEN\")\n", tok)
	}
	if !serve.IsLoopback(host) {
		if len(o.Hosts) == 0 && host != "" && host != "0.0.0.0" && host != "::" {
			o.Hosts = []string{host}
		} else if len(o.Hosts) == 0 {
			o.Hosts = []string{"*"} // any address of this machine: the token guards it
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	fmt.Fprintf(s.err, "browseragent: serving MCP (Streamable HTTP) at http://%s%s\n", ln.Addr(), serve.Path)
	hs := &http.Server{Handler: srv.Handler(o), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	srv.Close() // ends the sessions' event streams, so Shutdown need not wait
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// The session is what the server switches modes on.
var _ serve.Modes = (*session.Session)(nil)

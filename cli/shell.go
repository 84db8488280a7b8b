package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/shell"
	"github.com/browseragent/browseragent/tools"
)

// shellFlags are the interactive shell's start-up flags (on the root command).
type shellFlags struct {
	sites, mcpConfig, model string
	noMCP, yes, headed      bool
	keepTabs                bool
	trustProject            bool
	mcpWait                 time.Duration
	connect                 connectFlags
	host                    hostFlags // --root (mcp_extra.go)
}

func (f *shellFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.sites, "sites", "", "extra sensitive-sites rules `FILE`, layered over the built-in and your own")
	fl.StringVar(&f.mcpConfig, "mcp-config", "", "extra MCP config `FILE` (mcpServers JSON), merged over yours and .mcp.json")
	fl.StringVar(&f.model, "model", "", "LLM `MODEL` (default $BROWSERAGENT_MODEL or the provider's default)")
	fl.BoolVar(&f.noMCP, "no-mcp", false, "start no MCP server")
	fl.BoolVar(&f.trustProject, "trust-project", false, "start the servers of the working directory's .mcp.json without asking (this run only; see 'mcp trust')")
	fl.DurationVar(&f.mcpWait, "mcp-wait", shell.DefaultMCPWait, "with piped input: how long to wait for MCP servers before the first command (the terminal prompt never waits)")
	fl.BoolVar(&f.yes, "yes", false, "approve writes on ordinary pages without asking (never on sensitive pages)")
	fl.BoolVar(&f.headed, "headed", false, "show the isolated browser's window instead of running headless")
	f.connect.addFlags(fl)
	fl.BoolVar(&f.keepTabs, "keep-tabs", false, "leave the tabs the agent opened in your Chrome open on /disconnect and /exit")
	f.host.addRoots(fl)
}

// runShell starts the interactive shell: the session first (rules, MCP in
// the background, the browser lazily), then the prompt at once. The session
// reaches the shell through hooks made before both; the shell is made last,
// from complete options.
func runShell(ctx context.Context, s *streams, f *shellFlags) error {
	hooks := &shell.Hooks{}
	promptInputs(s)
	sess, err := openSession(ctx, sessionConfig{sitesFile: f.sites, mcpConfig: f.mcpConfig, noMCP: f.noMCP,
		yes: f.yes, headed: f.headed, keepTabs: f.keepTabs, approver: hooks, warn: s.err, gate: shellGate(s, f.trustProject), onMCP: hooks.MCPEvent, notice: hooks.Notice, mcpHost: shellHost(hooks, &f.host, f.model)})
	if err != nil {
		return err
	}
	defer sess.Close()
	st, err := agent.LoadSettings(agent.Overrides{Model: f.model})
	if err != nil {
		return err
	}
	if st.Note != "" {
		fmt.Fprintf(s.err, "browseragent: %s\n", st.Note)
	}
	b := &modeSwitch{Session: sess}
	opts := &shell.Options{Stdin: s.in, Stdout: s.out, Stderr: s.err, Yes: f.yes, MCPWait: f.mcpWait, Hooks: hooks,
		Tools: sess.Registry, Browser: b, Guard: shellGuard{policy: sess.Policy}}
	// An interface holding a nil pointer is not nil: each is set only when
	// the part is there, so the shell's "not configured" is one check.
	if sess.Browser != nil {
		opts.Tabs = sess.Browser
	}
	if sess.MCP != nil {
		opts.MCP = sess.MCP
	}
	if st.Enabled() {
		ag, err := agent.New(st, sess.Registry, &agent.Options{SystemExtra: sess.Facts()})
		if err != nil {
			return err
		}
		opts.Agent = ag
		b.agent.Store(ag)
	} else {
		opts.NoLLMReason = st.Why()
		// The first LLM can be chosen in the shell: /provider NAME.
		opts.NewAgent = func(st agent.Settings) (shell.Agent, error) {
			ag, err := agent.New(st, sess.Registry, &agent.Options{SystemExtra: sess.Facts()})
			if err != nil {
				return nil, err
			}
			b.agent.Store(ag)
			return ag, nil
		}
	}
	if f.connect.on() {
		t := f.connect.target()
		opts.Connect = &t
	}
	// A lost Chrome switches the session back to isolated by itself: the
	// prompt facts follow and the person reads why, with the trust reset.
	sess.OnBrowserLost(func(msg string) {
		b.refresh()
		hooks.Notice(msg)
	})
	return shell.New(opts).Run(ctx)
}

// modeSwitch keeps the agent's system prompt in step with the browser mode.
type modeSwitch struct {
	*session.Session
	agent atomic.Pointer[agent.Agent] // set later by /provider when the shell starts without an LLM
}

func (m *modeSwitch) Connect(ctx context.Context, t browser.Target) (string, error) {
	msg, err := m.Session.Connect(ctx, t)
	m.refresh()
	return msg, err
}

func (m *modeSwitch) Disconnect(ctx context.Context) (string, error) {
	msg, err := m.Session.Disconnect(ctx)
	m.refresh()
	return msg, err
}

func (m *modeSwitch) refresh() {
	if a := m.agent.Load(); a != nil {
		a.SetSystemExtra(m.Session.Facts())
	}
}

// shellGuard gives the shell's /trust, /sites and /audit their text.
type shellGuard struct{ policy *guard.Policy }

func (g shellGuard) Grants() []string { return g.policy.Grants() }
func (g shellGuard) ResetTrust() int  { return g.policy.ResetTrust() }

// CheckSite judges a write tool on url in the current mode, on a scratch
// policy so the live one's grants and tabs are untouched.
func (g shellGuard) CheckSite(url string) (string, error) {
	if _, err := guard.Normalize(url); err != nil {
		return "", err
	}
	p := guard.NewPolicy(g.policy.Rules(), &guard.Options{Mode: g.policy.Mode()})
	call := p.SiteCall("browser_click", url, "", false)
	var b bytes.Buffer
	printCheck(&b, newCheckResult(url, call, p.Check(call), p.Rules()))
	return strings.TrimRight(b.String(), "\n"), nil
}

func (g shellGuard) Audit(n int) ([]string, error) {
	entries, err := guard.ReadAudit(guard.DefaultAuditPath(), n)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, errors.New("no tool calls in the audit log yet")
	}
	var b bytes.Buffer
	printAudit(&b, entries)
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n"), nil
}

// The real parts fit the shell's interfaces; the shell finds /mcp
// enable|disable through MCPToggler, so a mismatch would hide them silently.
var (
	_ shell.Tools            = (*tools.Registry)(nil)
	_ shell.Agent            = (*agent.Agent)(nil)
	_ shell.ModelLister      = (*agent.Agent)(nil)
	_ shell.ToolDeferrer     = (*agent.Agent)(nil)
	_ shell.EndpointSwitcher = (*agent.Agent)(nil)
	_ shell.Browser          = (*modeSwitch)(nil)
	_ shell.MCP              = (*mcpclient.Manager)(nil)
	_ shell.MCPToggler       = (*mcpclient.Manager)(nil)
	_ shell.MCPLoginer       = (*mcpclient.Manager)(nil)
	_ shell.MCPWaiter        = (*mcpclient.Manager)(nil)
	_ shell.Guard            = shellGuard{}
)

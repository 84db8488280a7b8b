package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

// sessionConfig is what the commands that run tools pass to openSession.
type sessionConfig struct {
	sitesFile string // --sites
	mcpConfig string // --mcp-config
	noMCP     bool   // --no-mcp
	yes       bool   // --yes
	headed    bool   // --headed
	keepTabs  bool   // --keep-tabs
	approver  tools.Approver
	onMCP     func(mcpclient.Event)
	// background names the MCP servers nobody waits for (mcpclient.
	// Options.Background): `run`'s, apart from those its task names.
	background func(name string) bool
	notice     func(string)             // one-line notices for the person (the browser starting)
	mcpHost    func(*mcpclient.Options) // elicitation, sampling, roots, progress hooks (mcp_extra.go)
	warn       io.Writer                // where load warnings go (nil: nowhere)
	gate       *mcpclient.ProjectGate   // trust of the project's .mcp.json (nil: skip it, saying so on warn)
	fetch      *fetch.Options           // web_fetch's options (nil: defaults)
}

// loadRules reads the built-in rules, the user's file when present and
// --sites. Any error refuses the start: browseragent never runs without them.
// Warnings (a rule replacing a built-in of the same name) go to warn.
func loadRules(sitesFile string, warn io.Writer) (*guard.Rules, error) {
	var paths []string
	if p := guard.UserRulesPath(); p != "" {
		if _, err := os.Stat(p); err == nil {
			paths = append(paths, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("sensitive-sites file %s: %w", p, err)
		} else if to, lerr := os.Readlink(p); lerr == nil {
			// A link to a file that is gone: the person meant to have
			// rules there, so starting without them would be a surprise.
			return nil, exitCode(exitUsage, fmt.Sprintf("sensitive-sites file %s is a link to %s, which does not exist; refusing to start without your sensitive-site rules (fix or remove the link)", p, to))
		}
	}
	if sitesFile != "" {
		paths = append(paths, sitesFile)
	}
	rules, err := guard.LoadRules(paths...)
	if err != nil {
		return nil, exitCode(exitUsage, fmt.Sprintf("%v; refusing to start without valid sensitive-site rules", err))
	}
	if warn != nil {
		for _, w := range rules.Warnings() {
			fmt.Fprintf(warn, "browseragent: warning: %s\n", w)
		}
	}
	return rules, nil
}

// loadMCPConfig merges the user's, the project's and --mcp-config files;
// the project's servers only when gate lets them start.
func loadMCPConfig(extra string, gate *mcpclient.ProjectGate) (*mcpclient.Config, error) {
	return loadMCPConfigGated(extra, gate.Allow)
}

// loadMCPConfigGated is loadMCPConfig with the project file's gate as a
// function.
func loadMCPConfigGated(extra string, allow func(mcpclient.ProjectFile) bool) (*mcpclient.Config, error) {
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	files := mcpclient.DefaultFiles(wd, extra)
	for i := range files {
		if files[i].Project {
			files[i].Gate = allow
		}
	}
	cfg, err := mcpclient.LoadFiles(files)
	if err != nil {
		return nil, exitCode(exitUsage, err.Error())
	}
	return cfg, nil
}

// openSession builds a Session and starts its MCP servers in the
// background. The caller must Close it.
func openSession(ctx context.Context, c sessionConfig) (*session.Session, error) {
	rules, err := loadRules(c.sitesFile, c.warn)
	if err != nil {
		return nil, err
	}
	opts := &session.SessionOptions{
		Rules:    rules,
		Approver: c.approver,
		Yes:      c.yes,
		OnNotice: c.notice,
		KeepTabs: c.keepTabs,
		Browser:  browser.Options{Launch: browser.LaunchOptions{Headed: c.headed}},
		Fetch:    c.fetch,
	}
	if !c.noMCP {
		gate := c.gate
		if gate == nil {
			gate = projectGate(c.warn, false, nil)
		}
		cfg, err := loadMCPConfig(c.mcpConfig, gate)
		if err != nil {
			return nil, err
		}
		opts.MCP = cfg
		opts.MCPOptions = mcpclient.Options{ClientName: "browseragent", ClientVersion: buildVersion(), OnEvent: c.onMCP, Background: c.background}
		if c.mcpHost != nil {
			c.mcpHost(&opts.MCPOptions)
		}
	}
	s, err := session.NewSession(opts)
	if err != nil {
		return nil, err
	}
	s.Start(ctx)
	return s, nil
}

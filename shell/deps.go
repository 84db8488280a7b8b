package shell

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// The shell declares what it needs from the rest of the program as small
// interfaces, shaped so the real types fit without adapters where they
// exist: *tools.Registry (Tools), *agent.Agent (Agent), *session.Session
// (Browser), *browser.Browser (TabLister), *mcpclient.Manager (MCP). Every dependency except Tools may be nil: the commands that need
// it then say how to enable it.

// Tools is the one tool-call path. Every tool-running command (/open,
// /navigate, /back, /close, /snapshot, /screenshot, /click, /type, /hover, /dialog, /tabs,
// /tab, /fetch, /call) goes
// through Call with tools.OriginCommand, so the guard, approvals and the
// audit log apply to slash commands exactly as to the LLM.
type Tools interface {
	Tools() []tools.ToolDef
	Call(ctx context.Context, name string, args json.RawMessage, origin tools.Origin) (*tools.ToolResult, error)
}

// Agent runs LLM turns; *agent.Agent fits. Nil means no LLM is configured.
type Agent interface {
	Turn(ctx context.Context, msg string, out agent.Events) (string, error)
	SetModel(model string)
	Settings() agent.Settings
	Reset()
}

// ModelLister is an Agent that can list its endpoint's models (for
// /model and its completion); *agent.Agent fits.
type ModelLister interface {
	Models(ctx context.Context) ([]agent.ModelInfo, error)
	KnownModels() []agent.ModelInfo
}

// EndpointSwitcher is an Agent that can move to another endpoint for
// /provider NAME; *agent.Agent fits.
type EndpointSwitcher interface {
	SetEndpoint(s agent.Settings) error
}

// toolOfferer is an Agent that says which tools its next request offers
// the model; /tools lists exactly those. *agent.Agent fits.
type toolOfferer interface {
	Offered() []tools.ToolDef
}

// ToolDeferrer is an Agent that leaves tools out of its requests past its
// bounds (they wait behind tool_search); /tools marks them. *agent.Agent
// fits.
type ToolDeferrer interface {
	DeferredTools() []string
}

// Browser switches the browser session between isolated and shared mode;
// *session.Session fits. Switching also resets grants and owned tabs and
// points chrome-devtools-mcp at the new browser: the returned message says
// what was reset.
type Browser interface {
	Mode() guard.Mode
	Connect(ctx context.Context, t browser.Target) (string, error)
	Disconnect(ctx context.Context) (string, error)
}

// TabLister lists tabs without launching anything, for completing /tab N;
// *browser.Browser fits.
type TabLister interface {
	Tabs() []browser.Tab
}

// MCP is the MCP server manager; *mcpclient.Manager fits.
type MCP interface {
	Status() []mcpclient.Status
	Restart(ctx context.Context, name string) error
	Logs(name string) ([]string, error)
	Prompts(name string) ([]*mcp.Prompt, error)
	GetPrompt(ctx context.Context, name, prompt string, args map[string]string) (*mcp.GetPromptResult, error)
	Resources(name string) ([]*mcp.Resource, []*mcp.ResourceTemplate, error)
	// ExpandMentions appends the resources named by @server:uri mentions.
	ExpandMentions(ctx context.Context, msg string) (string, error)
	// WaitAll waits until no server is starting, or ctx ends. A script
	// waits for it before its first line, so its tools are there.
	WaitAll(ctx context.Context) error
}

// MCPToggler is the optional part of MCP behind /mcp enable|disable.
type MCPToggler interface {
	Enable(ctx context.Context, name string) error
	Disable(ctx context.Context, name string) error
}

// MCPLoginer is the optional part of MCP behind /mcp login: run the OAuth
// login of a server, then reconnect it and wait until it is ready.
type MCPLoginer interface {
	Login(ctx context.Context, name string) error
}

// Guard is the safety layer's person-facing side, for /trust, /sites and
// /audit. Every method returns text for a person.
type Guard interface {
	// Grants lists the "always allow" grants in force, one line each.
	Grants() []string
	// ResetTrust drops every grant and returns how many there were.
	ResetTrust() int
	// CheckSite says which sensitive-site rule matches url, and what the
	// agent may do there.
	CheckSite(url string) (string, error)
	// Audit returns the last n audit log entries, oldest first, one line each.
	Audit(n int) ([]string, error)
}

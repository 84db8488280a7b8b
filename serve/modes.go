package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/tools"
)

// modeTools offers browser_connect and browser_disconnect through the
// registry, so switching to the person's Chrome is judged, asked and
// audited like any call. Each switch resets trust: every "always" grant
// and every session's tabs.
type modeTools struct{ s *Server }

var modeDefs = []tools.ToolDef{
	{Name: "browser_connect", RawName: "browser_connect", Source: tools.SourceBrowser,
		Description: "Use the person's running Chrome (their logins) instead. Resets trust.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"ws_endpoint":   map[string]any{"type": "string", "description": "DevTools websocket URL"},
			"browser_url":   map[string]any{"type": "string", "description": "http://host:port to debug"},
			"user_data_dir": map[string]any{"type": "string", "description": "Chrome profile dir"},
		}}, Entry: catalog.MustNative("browser_connect")},
	{Name: "browser_disconnect", RawName: "browser_disconnect", Source: tools.SourceBrowser,
		Description: "Back to an isolated browser; the person's Chrome stays open. Resets trust.",
		Parameters:  map[string]any{"type": "object", "properties": map[string]any{}}, Entry: catalog.MustNative("browser_disconnect")},
}

func (m modeTools) Tools() []tools.ToolDef { return modeDefs }

func (m modeTools) Call(ctx context.Context, c *tools.ResolvedCall) (*tools.ToolResult, error) {
	if err := c.Judged(); err != nil {
		return nil, err
	}
	def, raw := c.Def, c.Raw
	var msg string
	var err error
	switch def.Name {
	case "browser_connect":
		if cl := clientFrom(ctx); cl != nil && cl.id != "stdio" && m.s.noToken.Load() {
			return &tools.ToolResult{Outcome: tools.Failed, Failure: tools.ToolError, Text: "browser_connect: refused: this server serves HTTP without a bearer token, so any program on this machine could drive the person's Chrome through it. Restart it with --token (or $BROWSERAGENT_MCP_TOKEN), or with --connect, which makes one."}, nil
		}
		var a struct {
			WS      string `json:"ws_endpoint"`
			URL     string `json:"browser_url"`
			Profile string `json:"user_data_dir"`
		}
		if err := json.Unmarshal(raw, &a); err != nil && len(raw) > 0 {
			return &tools.ToolResult{Outcome: tools.Failed, Failure: tools.ToolError, Text: fmt.Sprintf("browser_connect: bad arguments: %v", err)}, nil
		}
		msg, err = m.s.opts.Modes.Connect(ctx, browser.Target{WSEndpoint: a.WS, BrowserURL: a.URL, UserDataDir: a.Profile})
		msg = "Now in shared mode: the tools drive the person's Chrome; every write asks the person first. " + msg
	case "browser_disconnect":
		msg, err = m.s.opts.Modes.Disconnect(ctx)
		msg = "Now in isolated mode: the tools drive browseragent's own Chromium. " + msg
	default:
		return nil, fmt.Errorf("%w %q", tools.ErrUnknownTool, def.Name)
	}
	if err != nil {
		return &tools.ToolResult{Outcome: tools.Failed, Failure: tools.ToolError, Text: fmt.Sprintf("%s: %v", def.Name, err)}, nil
	}
	m.s.ResetTabs()
	return &tools.ToolResult{Text: strings.TrimSpace(msg)}, nil
}

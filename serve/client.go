package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/tools"
)

// client is one MCP session's state: who it is, whether it can show
// forms, and the tabs it opened. Its current tab is its own, so sessions
// sharing the browser do not act on each other's pages by accident.
type client struct {
	ss    *mcp.ServerSession
	name  string
	id    string
	yes   bool
	log   *slog.Logger
	named string // the named session it works in (SessionHeader); "" for its own
	*tabSet
}

// tabSet is the tabs a session opened and its current one. An MCP
// session has its own; the MCP sessions of one named session share one,
// which outlives each of them.
type tabSet struct {
	mu      sync.Mutex
	opened  map[string]bool
	current string
}

func newTabSet() *tabSet { return &tabSet{opened: map[string]bool{}} }

func newClient(ss *mcp.ServerSession, yes bool) *client {
	c := &client{ss: ss, name: "unknown", id: ss.ID(), yes: yes, tabSet: newTabSet()}
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
		c.name = p.ClientInfo.Name
	}
	if c.id == "" {
		c.id = "stdio"
	}
	c.log = slog.New(mcp.NewLoggingHandler(ss, &mcp.LoggingHandlerOptions{LoggerName: "browseragent"}))
	return c
}

// identity is the client as the registry sees it: named in the audit log,
// allowed to close only its own tabs.
func (c *client) identity() *tools.Client {
	return &tools.Client{Name: c.name, Session: c.id, Owns: c.owns}
}

func (t *tabSet) owns(tab string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tab != "" && t.opened[tab]
}

// canElicit reports whether the client said it can show forms.
func (c *client) canElicit() bool {
	p := c.ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // neither means form, for older clients
}

// scope gives a page tool called without a tab this session's current
// tab, so it acts where this session last opened or selected one rather
// than wherever another session left the browser.
func (c *client) scope(d tools.ToolDef, raw json.RawMessage) (json.RawMessage, error) {
	props, _ := d.Parameters["properties"].(map[string]any)
	if _, takesTab := props["tab"]; !takesTab || d.Entry.Selects {
		return raw, nil
	}
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("%s: arguments must be a JSON object: %v", d.Name, err)
		}
	}
	if t, _ := args["tab"].(string); t != "" {
		return raw, nil
	}
	c.mu.Lock()
	cur := c.current
	c.mu.Unlock()
	if cur == "" {
		return raw, nil
	}
	args["tab"] = cur
	return json.Marshal(args)
}

// after learns from a finished call which tabs the session now has: a tab
// a call opened (Effect Open) is its own, a call that selects a tab
// (Entry.Selects) makes it its current one, and a closed tab is forgotten.
// The tab is the one the call acted on (ToolResult.Tab); a mode switch
// forgets them all (Server.ResetTabs).
func (c *client) after(e catalog.Entry, res *tools.ToolResult) {
	if res == nil || res.Tab == "" {
		return // refused before it reached a tab, or no tab tool
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case e.Effect == catalog.Open:
		// An open whose page failed to load still made its tab.
		c.opened[res.Tab] = true
		if e.Selects {
			c.current = res.Tab
		}
	case res.IsError():
		// a select or close that failed changed nothing
	case e.Effect == catalog.Close:
		delete(c.opened, res.Tab)
		if c.current == res.Tab {
			c.current = ""
		}
	case e.Selects:
		c.current = res.Tab
	}
}

func (t *tabSet) reset() {
	t.mu.Lock()
	t.opened, t.current = map[string]bool{}, ""
	t.mu.Unlock()
}

// logCall tells the client, at the level it set, what happened to a call.
func (c *client) logCall(ctx context.Context, tool string, res *tools.ToolResult, err error, took time.Duration) {
	switch {
	case err != nil:
		c.log.ErrorContext(ctx, tool+" failed", "error", err.Error(), "took", took.Round(time.Millisecond).String())
	case res.IsError():
		c.log.WarnContext(ctx, tool+" did not run or failed", "reason", textutil.FirstLine(res.Text, 0), "took", took.Round(time.Millisecond).String())
	default:
		c.log.InfoContext(ctx, tool+" done", "took", took.Round(time.Millisecond).String())
	}
}

type clientCtxKey struct{}

func withClient(ctx context.Context, c *client) context.Context {
	return context.WithValue(ctx, clientCtxKey{}, c)
}

func clientFrom(ctx context.Context) *client {
	c, _ := ctx.Value(clientCtxKey{}).(*client)
	return c
}

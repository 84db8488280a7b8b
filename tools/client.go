package tools

import "context"

// Client is the MCP client a call came from through `browseragent mcp
// serve`. The registry records it in the audit log and, where Owns is set,
// lets the client close only the tabs it opened itself: several clients
// share one browser, and none may close another's tab or the person's.
type Client struct {
	Name    string // the client's clientInfo name ("claude-code")
	Session string // its MCP session id ("stdio" over stdio)
	// Owns reports whether this client opened the tab (by the id the
	// locator reports); nil puts no limit beyond the guard's.
	Owns func(tabID string) bool
}

type clientKey struct{}

// WithClient returns ctx carrying c, for Registry.Call.
func WithClient(ctx context.Context, c *Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientFrom returns the Client ctx carries, or nil.
func ClientFrom(ctx context.Context) *Client {
	c, _ := ctx.Value(clientKey{}).(*Client)
	return c
}

package tools

import "context"

// Client is the client a call came from: an MCP client of `browseragent
// mcp serve`, or a `browseragent browser` command served by its daemon
// (Session is then the session's name). The registry records it in the audit log, applies the "always"
// grants it gave (its Session's) and no one else's, and, where Owns and
// Others are set, lets the client close only the tabs it opened itself and
// act in none another client opened: several clients share one browser.
type Client struct {
	Name    string // the client's clientInfo name ("claude-code")
	Session string // its MCP session id ("stdio" over stdio)
	// Owns reports whether this client opened the tab (by the id the
	// locator reports); nil puts no limit beyond the guard's.
	Owns func(tabID string) bool
	// Others reports whether another client of the same server opened
	// the tab: every call on it is refused. Nil: none.
	Others func(tabID string) bool
	// Yes is the caller's own --yes (a `browseragent browser` command run
	// by its daemon): it approves what RegistryOptions.Yes approves, for
	// this call only, and never a sensitive page.
	Yes bool
}

type clientKey struct{}

// WithClient returns ctx carrying c, for Registry.Call.
func WithClient(ctx context.Context, c *Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// clientFrom returns the Client ctx carries, or nil.
func clientFrom(ctx context.Context) *Client {
	c, _ := ctx.Value(clientKey{}).(*Client)
	return c
}

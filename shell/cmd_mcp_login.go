package shell

import (
	"context"
	"errors"
	"fmt"

	"github.com/browseragent/browseragent/mcpclient"
)

// mcpLogin runs /mcp login NAME: the browser login (its URL is announced
// by the OAuth prompt), then the server reconnects with the new token.
func mcpLogin(ctx context.Context, s *Shell, name string) error {
	l, ok := s.opts.MCP.(MCPLoginer)
	if !ok {
		return &hintError{msg: "/mcp login is not available in this build", hint: "run 'browseragent mcp login " + name + "' in another terminal, then /mcp restart " + name}
	}
	s.p.SpinStart("logging in to " + name + " (finish in the browser; Ctrl-C stops)")
	err := l.Login(ctx, name)
	s.p.SpinStop()
	switch {
	case errors.Is(err, mcpclient.ErrNoOAuth):
		return &hintError{msg: fmt.Sprintf("login %s: %v", name, err), hint: "/mcp restart " + name + " if it is in error"}
	case errors.Is(err, context.Canceled):
		return &hintError{msg: fmt.Sprintf("login %s: stopped; nothing was stored", name), hint: "/mcp login " + name + " to try again"}
	case err != nil:
		return &hintError{msg: fmt.Sprintf("login %s: %v", name, err), hint: "/mcp logs " + name}
	}
	s.p.Line("logged in to %s", name)
	s.p.Line("%s", serverSummary(statusOf(s, name)))
	return nil
}

package shell

import (
	"context"

	"github.com/browseragent/browseragent/mcpclient"
)

// MCPWaiter is the optional part of MCP that waits for one server to be
// ready or failed (mcpclient.Manager has it); without it a script's
// /mcp restart waits for every server that is starting.
type MCPWaiter interface {
	WaitReady(ctx context.Context, name string) error
}

// waitRestarted makes a script's /mcp restart NAME wait, up to
// Options.MCPWait, until NAME is ready or failed, so the next line finds
// its tools (at a terminal the prompt comes back at once and the server's
// state change is announced). Only Ctrl-C is an error; a server still
// starting after the wait is named and the script goes on.
func (s *Shell) waitRestarted(ctx context.Context, name string) error {
	if s.lines == nil { // a terminal session
		return nil
	}
	d := s.mcpWait()
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	s.p.SpinStart("waiting for " + name)
	if w, ok := s.opts.MCP.(MCPWaiter); ok {
		_ = w.WaitReady(wctx, name) // a failure is in its state, printed next
	} else {
		_ = s.opts.MCP.WaitAll(wctx)
	}
	s.p.SpinStop()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if statusOf(s, name).State == mcpclient.StateStarting {
		s.goingOnWithout(name, d)
	}
	return nil
}

package serve

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/tools"
)

// ConnectGate holds the browser tools of `mcp serve --connect` until the
// person's Chrome is attached: each browser call first tries to attach,
// and while that fails it answers with the reason (how to allow remote
// debugging) instead of driving an isolated browser the person did not
// ask for. browser_connect and browser_disconnect pass, and either ends
// the wait: the host chose a browser itself.
type ConnectGate struct {
	*tools.Registry
	connect func(context.Context) error

	mu   sync.Mutex
	done bool
}

// NewConnectGate serves reg, attaching with connect first.
func NewConnectGate(reg *tools.Registry, connect func(context.Context) error) *ConnectGate {
	return &ConnectGate{Registry: reg, connect: connect}
}

// Attach connects unless that was done; it is the one place that does.
func (g *ConnectGate) Attach(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		return nil
	}
	if err := g.connect(ctx); err != nil {
		return err
	}
	g.done = true
	return nil
}

// Call runs a call through the registry once the browser is attached.
func (g *ConnectGate) Call(ctx context.Context, name string, args json.RawMessage, origin tools.Origin) (*tools.ToolResult, error) {
	switch {
	case name == "browser_connect" || name == "browser_disconnect":
		g.mu.Lock()
		g.done = true
		g.mu.Unlock()
	case strings.HasPrefix(name, "browser_"):
		if err := g.Attach(ctx); err != nil {
			return &tools.ToolResult{Outcome: tools.Failed, Failure: tools.ToolError, Text: "not connected to the person's Chrome, so no browser tool runs yet (web_fetch works): " + words.ForScript(words.Error(err)) +
				". Tell the person what to set up; the next browser call tries again."}, nil
		}
	}
	return g.Registry.Call(ctx, name, args, origin)
}

package shell

import (
	"context"
	"strings"

	"github.com/browseragent/browseragent/mcpclient"
)

// mcpHost is the optional part of MCP behind /mcp watch, unwatch and
// log-level (mcpclient.Manager has it).
type mcpHost interface {
	Subscribe(ctx context.Context, name, uri string) error
	Unsubscribe(ctx context.Context, name, uri string) error
	Watched(name string) []string
	SetLogLevel(ctx context.Context, name, level string) error
}

func (s *Shell) mcpHost() (mcpHost, error) {
	h, ok := s.opts.MCP.(mcpHost)
	if !ok {
		return nil, &hintError{msg: "this session's MCP host cannot watch resources or set log levels"}
	}
	return h, nil
}

// mcpWatch runs /mcp watch NAME [URI] and /mcp unwatch NAME URI: updates
// of a watched resource are announced once each, above the prompt.
func mcpWatch(ctx context.Context, s *Shell, sub, name string, args []string) error {
	h, err := s.mcpHost()
	if err != nil {
		return err
	}
	if len(args) == 0 {
		if sub == "unwatch" {
			return &hintError{msg: "/mcp unwatch: missing URI", hint: "/mcp watch " + name + " lists the watched URIs"}
		}
		w := h.Watched(name)
		if len(w) == 0 {
			s.p.Hint("nothing watched on %s; /mcp watch %s URI (see /mcp resources %s)", name, name, name)
			return nil
		}
		s.p.Text(strings.Join(w, "\n"))
		return nil
	}
	uri := strings.TrimPrefix(args[0], "@"+name+":")
	if sub == "unwatch" {
		if err := h.Unsubscribe(ctx, name, uri); err != nil {
			return err
		}
		s.p.Hint("no longer watching %s on %s", uri, name)
		return nil
	}
	if err := h.Subscribe(ctx, name, uri); err != nil {
		return err
	}
	s.p.Hint("watching %s on %s: updates are announced (a burst as one line with a count); /mcp unwatch %s %s stops it", uri, name, name, uri)
	return nil
}

// mcpLogLevel runs /mcp log-level NAME LEVEL.
func mcpLogLevel(ctx context.Context, s *Shell, name string, args []string) error {
	h, err := s.mcpHost()
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return &hintError{msg: "/mcp log-level: missing LEVEL", hint: "levels: " + strings.Join(mcpclient.LogLevels, ", ")}
	}
	if err := h.SetLogLevel(ctx, name, args[0]); err != nil {
		return err
	}
	s.p.Hint("%s now logs at %s and above; /mcp logs %s shows them", name, strings.ToLower(args[0]), name)
	return nil
}

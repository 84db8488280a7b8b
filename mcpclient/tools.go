package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is an MCP tool as the agent sees it.
type Tool struct {
	// Name is the legal LLM-facing name, mcp__<server>__<tool> or its
	// hashed short form (see toolName).
	Name string
	// Server is the configured server name; RawName the server's own name.
	Server, RawName string
	Title           string
	Description     string
	// InputSchema is the cleaned schema (see cleanSchema).
	InputSchema map[string]any
	// ReadOnlyHint and DestructiveHint are the server's annotations, nil
	// when it sent none. They are hints for the guard, not guarantees.
	ReadOnlyHint, DestructiveHint *bool
	// CallTimeout bounds one call: the server's "callTimeout", else the
	// manager's default. The registry honours it as the tool's own limit.
	CallTimeout time.Duration `json:"-"`
	// Virtual marks list_resources/read_resource, which browseragent adds
	// for servers with resources.
	Virtual bool
}

func convertTools(server string, cfg *ServerConfig, raw []*mcp.Tool) []Tool {
	out, _ := convertToolsDup(server, cfg, raw)
	return out
}

// convertToolsDup is convertTools that also returns warnings: names the
// server listed more than once (only the first is kept), and tools whose
// schema nests too deeply (offered without the deep part).
func convertToolsDup(server string, cfg *ServerConfig, raw []*mcp.Tool) ([]Tool, []string) {
	var out []Tool
	var warnings []string
	seen := map[string]bool{}
	for _, t := range raw {
		if !toolAllowed(cfg, t.Name) {
			continue
		}
		if seen[t.Name] {
			warnings = append(warnings, fmt.Sprintf("the server lists tool %q more than once; only the first is offered", t.Name))
			continue
		}
		seen[t.Name] = true
		tool := Tool{
			Name:        toolName(server, t.Name),
			Server:      server,
			RawName:     t.Name,
			Title:       t.Title,
			Description: capText(t.Description, maxDescriptionLen),
		}
		var deep bool
		tool.InputSchema, deep = cleanSchemaReport(t.InputSchema)
		if deep {
			warnings = append(warnings, fmt.Sprintf("tool %q has an input schema nested deeper than %d levels; it is offered without the deeper part", t.Name, maxSchemaDepth))
		}
		if a := t.Annotations; a != nil {
			ro := a.ReadOnlyHint
			tool.ReadOnlyHint = &ro
			tool.DestructiveHint = a.DestructiveHint
			if tool.Title == "" {
				tool.Title = a.Title
			}
		}
		out = append(out, tool)
	}
	return out, warnings
}

// Tools returns the tools of every ready server, servers sorted by name,
// each server's tools in its own order, virtual resource tools last.
//
// Names are unique: when two servers' tools would get the same name, both
// get a stable suffix (collisionName) instead of one shadowing the other.
func (m *Manager) Tools() []Tool {
	var out []Tool
	for _, s := range m.list() {
		limit := s.callTimeout()
		for _, t := range s.tools() {
			t.CallTimeout = limit
			out = append(out, t)
		}
	}
	return uniqueNames(out)
}

// uniqueNames renames the tools whose Name is shared by tools of other
// servers.
func uniqueNames(tools []Tool) []Tool {
	owners := map[string]map[string]bool{}
	for _, t := range tools {
		if owners[t.Name] == nil {
			owners[t.Name] = map[string]bool{}
		}
		owners[t.Name][t.Server] = true
	}
	for i, t := range tools {
		if len(owners[t.Name]) > 1 {
			tools[i].Name = collisionName(t.Name, t.Server, t.RawName)
		}
	}
	return tools
}

// ServerTools returns the tools of one server.
func (m *Manager) ServerTools(name string) ([]Tool, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, err
	}
	return s.tools(), nil
}

func (s *server) tools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return nil
	}
	out := append([]Tool(nil), s.lists.tools...)
	if s.caps != nil && s.caps.Resources != nil {
		out = append(out, s.virtualTools(out)...)
	}
	return out
}

// lookup finds a tool by its LLM-facing name. It runs on every call, so it
// scans in place instead of building the full list.
//
// A name two servers share (see Tools) is found only by its suffixed form.
func (m *Manager) lookup(fullName string) (Tool, bool) {
	m.mu.Lock()
	servers := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		servers = append(servers, s)
	}
	m.mu.Unlock()
	var found []Tool
	for _, s := range servers {
		if t, ok := s.lookup(fullName); ok {
			found = append(found, t)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	if len(found) > 1 {
		return Tool{}, false // ambiguous: each has a suffixed name
	}
	// A suffixed name: rare, so the full list is built only here.
	for _, t := range m.Tools() {
		if t.Name == fullName {
			return t, true
		}
	}
	return Tool{}, false
}

func (s *server) lookup(fullName string) (Tool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateReady {
		return Tool{}, false
	}
	for _, t := range s.lists.tools {
		if t.Name == fullName {
			return t, true
		}
	}
	if s.caps != nil && s.caps.Resources != nil {
		for _, t := range s.virtualTools(nil) {
			if t.Name == fullName {
				return t, true
			}
		}
	}
	return Tool{}, false
}

// CallTool calls the tool named fullName (as in Tools) with args, a JSON
// object (empty means {}). The call is bounded by the server's
// callTimeout; cancelling ctx makes the SDK send notifications/cancelled.
// A tool that fails reports it in Result.IsError; the error is for calls
// that could not be made or got no answer.
func (m *Manager) CallTool(ctx context.Context, fullName string, args json.RawMessage) (*Result, error) {
	t, ok := m.lookup(fullName)
	if !ok && m.startIdleFor(ctx, fullName) {
		t, ok = m.lookup(fullName)
	}
	if !ok {
		if err := m.notReadyFor(fullName); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w %q (see 'browseragent mcp tools')", errUnknownTool, fullName)
	}
	return m.CallServerTool(ctx, t.Server, t.RawName, args)
}

// startIdleFor starts the idle server whose tools fullName would be among
// (mcp__<server>__…) and waits for it; it reports whether it started one.
func (m *Manager) startIdleFor(ctx context.Context, fullName string) bool {
	started := false
	for _, s := range m.list() {
		if strings.HasPrefix(fullName, "mcp__"+s.name+"__") && s.startIfIdle() {
			_ = s.waitReady(ctx) // its state says how it went
			started = true
		}
	}
	return started
}

// notReadyFor explains a miss on mcp__<server>__… when that server is
// starting, failed or disabled: "still starting" helps more than "unknown".
func (m *Manager) notReadyFor(fullName string) error {
	for _, s := range m.list() {
		if !strings.HasPrefix(fullName, "mcp__"+s.name+"__") {
			continue
		}
		if _, err := s.readySession(); err != nil {
			return err
		}
	}
	return nil
}

// CallServerTool calls tool by the server's own name (for scripts and
// the virtual resource tools).
func (m *Manager) CallServerTool(ctx context.Context, server, tool string, args json.RawMessage) (*Result, error) {
	s, sess, err := m.session(server)
	if err != nil {
		return nil, err
	}
	args, err = objectArgs(args)
	if err != nil {
		return nil, fmt.Errorf("arguments for %s/%s: %w", server, tool, err)
	}
	if vt, ok := s.virtualCall(tool); ok {
		var argMap map[string]any
		_ = json.Unmarshal(args, &argMap)
		return vt(ctx, argMap)
	}
	// The arguments go to the server as they came: decoding them into a
	// map only to encode them again would cost time on every call.
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	defer m.trackProgress(server, params)()
	r, err := s.callTool(ctx, sess, params)
	if ue := urlElicitation(server, tool, err); ue != nil {
		if !s.openURLs(ctx, ue) {
			return nil, ue
		}
		r, err = s.callTool(ctx, sess, params) // once: a second refusal is the answer
		if ue := urlElicitation(server, tool, err); ue != nil {
			return nil, ue
		}
	}
	return r, err
}

// CallError is a tools/call that was made and got no result: the server
// and tool it was, and why (errCallTimeout, errNotReady, the server's own
// JSON-RPC error, a cancelled ctx). Its text names them, "mcp srv/tool: …";
// a caller that already names the tool prints Err alone.
type CallError struct {
	Server, Tool string
	Err          error
}

func (e *CallError) Error() string { return fmt.Sprintf("mcp %s/%s: %v", e.Server, e.Tool, e.Err) }

func (e *CallError) Unwrap() error { return e.Err }

// callTool makes one tools/call, bounded by the server's callTimeout.
func (s *server) callTool(ctx context.Context, sess *mcp.ClientSession, params *mcp.CallToolParams) (*Result, error) {
	server, tool := s.name, params.Name
	timeout := s.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := sess.CallTool(cctx, params)
	fail := func(err error) (*Result, error) { return nil, &CallError{Server: server, Tool: tool, Err: err} }
	switch {
	case err == nil:
		return convertResult(server, tool, r), nil
	case ctx.Err() != nil:
		return fail(ctx.Err())
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return fail(fmt.Errorf("%w after %s (raise \"callTimeout\" for this server)", errCallTimeout, timeout))
	}
	if reason := s.deathReason(err); reason != nil {
		return fail(fmt.Errorf("%w: %v", errNotReady, reason))
	}
	if we, ok := errors.Unwrap(err).(*jsonrpc.Error); ok {
		// The server's own error answer, in its words, without the SDK's
		// `calling "tools/call": ` (a transport's errors keep their chain).
		return fail(we)
	}
	return fail(err)
}

// deathReason waits briefly after a call failed on a lost connection:
// when the server died, the watcher's reason (exit status, stderr tail)
// explains the failure better than "EOF".
func (s *server) deathReason(callErr error) error {
	// A dying stdio server shows up as any of these, depending on whether the
	// reader saw EOF before or after the pipe was closed.
	if !errors.Is(callErr, mcp.ErrConnectionClosed) && !errors.Is(callErr, io.EOF) &&
		!errors.Is(callErr, io.ErrUnexpectedEOF) && !errors.Is(callErr, fs.ErrClosed) {
		return nil
	}
	deadline := time.After(2 * time.Second)
	for {
		s.mu.Lock()
		st, err, ch := s.state, s.err, s.changed
		s.mu.Unlock()
		switch st {
		case StateError:
			return err
		case StateReady:
		default:
			return nil
		}
		select {
		case <-ch:
		case <-deadline:
			return nil
		}
	}
}

// objectArgs checks that args is one JSON object; empty or null means {}.
func objectArgs(args json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, errors.New(`must be a JSON object such as {"key": "value"}`)
	}
	return trimmed, nil
}

func (s *server) callTimeout() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := time.Duration(s.cfg.CallTimeout); d > 0 {
		return d
	}
	return s.m.opts.CallTimeout
}

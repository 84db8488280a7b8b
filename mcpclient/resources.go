package mcpclient

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Raw names of the two virtual tools added for servers with resources.
const (
	listResourcesTool = "list_resources"
	readResourceTool  = "read_resource"
)

func (s *server) hasRealTool(raw string) bool {
	for _, t := range s.lists.tools {
		if t.RawName == raw {
			return true
		}
	}
	return false
}

// virtualTools returns list_resources/read_resource unless the server has
// real tools of those names. Called with s.mu held.
func (s *server) virtualTools(real []Tool) []Tool {
	ro := true
	var out []Tool
	if !s.hasRealTool(listResourcesTool) {
		out = append(out, Tool{
			Name: toolName(s.name, listResourcesTool), Server: s.name, RawName: listResourcesTool, Virtual: true,
			Description:  fmt.Sprintf("List the resources (and URI templates) that MCP server %q offers. Read one with %s.", s.name, toolName(s.name, readResourceTool)),
			InputSchema:  map[string]any{"type": "object", "properties": map[string]any{}},
			ReadOnlyHint: &ro,
		})
	}
	if !s.hasRealTool(readResourceTool) {
		out = append(out, Tool{
			Name: toolName(s.name, readResourceTool), Server: s.name, RawName: readResourceTool, Virtual: true,
			Description: fmt.Sprintf("Read one resource of MCP server %q by URI.", s.name),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"uri": map[string]any{"type": "string", "description": "The resource URI, from list_resources or a filled-in URI template."},
			}, "required": []any{"uri"}},
			ReadOnlyHint: &ro,
		})
	}
	return out
}

// virtualCall returns the implementation of a virtual tool, if tool is one.
func (s *server) virtualCall(tool string) (func(context.Context, map[string]any) (*Result, error), bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.caps == nil || s.caps.Resources == nil || s.hasRealTool(tool) {
		return nil, false
	}
	switch tool {
	case listResourcesTool:
		return func(context.Context, map[string]any) (*Result, error) {
			return &Result{Server: s.name, Tool: tool, Text: s.describeResources()}, nil
		}, true
	case readResourceTool:
		return func(ctx context.Context, args map[string]any) (*Result, error) {
			uri, _ := args["uri"].(string)
			if uri == "" {
				return &Result{Server: s.name, Tool: tool, IsError: true, Text: "read_resource needs a \"uri\" argument; call list_resources to see them"}, nil
			}
			r, err := s.m.ReadResource(ctx, s.name, uri)
			if err != nil {
				return &Result{Server: s.name, Tool: tool, IsError: true, Text: err.Error()}, nil
			}
			return r, nil
		}, true
	}
	return nil, false
}

func (s *server) describeResources() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, r := range s.lists.resources {
		fmt.Fprintf(&b, "- %s", r.URI)
		if r.Name != "" {
			fmt.Fprintf(&b, " (%s)", r.Name)
		}
		if r.MIMEType != "" {
			fmt.Fprintf(&b, " [%s]", r.MIMEType)
		}
		if r.Description != "" {
			fmt.Fprintf(&b, ": %s", capText(r.Description, 200))
		}
		b.WriteByte('\n')
	}
	if len(s.lists.templates) > 0 {
		b.WriteString("URI templates (fill in the {placeholders}):\n")
		for _, t := range s.lists.templates {
			fmt.Fprintf(&b, "- %s", t.URITemplate)
			if t.Description != "" {
				fmt.Fprintf(&b, ": %s", capText(t.Description, 200))
			}
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		return fmt.Sprintf("MCP server %q lists no resources.", s.name)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Resources returns a server's resources and URI templates.
func (m *Manager) Resources(name string) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists.resources, s.lists.templates, nil
}

// ReadResource reads uri from server name: every read is a resources/read,
// except of a URI the person watches (Subscribe, /mcp watch), whose
// content is kept until the server says it changed (resources/updated) or
// its resource list changes. A read never subscribes.
func (m *Manager) ReadResource(ctx context.Context, name, uri string) (*Result, error) {
	s, sess, err := m.session(name)
	if err != nil {
		return nil, err
	}
	r, gen := s.cached(uri)
	if r != nil {
		return resourceResult(name, r), nil
	}
	cctx, cancel := context.WithTimeout(ctx, s.callTimeout())
	defer cancel()
	r, err = sess.ReadResource(cctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("mcp %s: read %s: %w", name, uri, err)
	}
	s.maybeCache(uri, r, gen)
	return resourceResult(name, r), nil
}

func resourceResult(server string, r *mcp.ReadResourceResult) *Result {
	res := &Result{Server: server, Tool: readResourceTool}
	var text []string
	for _, c := range r.Contents {
		if c != nil {
			text = appendResource(res, text, server, c)
		}
	}
	res.Text = strings.Join(text, "\n")
	return res
}

// cached returns the kept content of a watched uri, and the cache
// generation a new read must still see to be kept.
func (s *server) cached(uri string) (*mcp.ReadResourceResult, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache[uri], s.cacheGen
}

// maybeCache keeps r when uri is watched and no update arrived since the
// read was sent (gen), so an update racing the read is never hidden.
func (s *server) maybeCache(uri string, r *mcp.ReadResourceResult, gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs[uri] && s.cacheGen == gen && s.cache != nil {
		s.cache[uri] = r
	}
}

// invalidate drops uri from the cache, or everything when uri is "".
func (s *server) invalidate(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cacheGen++
	if uri == "" {
		clear(s.cache)
		return
	}
	delete(s.cache, uri)
}

var mentionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s(])@([A-Za-z0-9_.-]+):(\S+)`)
})

// ExpandMentions finds @server:uri mentions in a user's message and
// appends each resource as a <resource server="" uri="" mime="">…</resource>
// block. An unknown server or unreadable URI is an error, so the caller
// does not send the message. Trailing sentence punctuation is not part of
// a URI.
func (m *Manager) ExpandMentions(ctx context.Context, msg string) (string, error) {
	matches := mentionRE().FindAllStringSubmatch(msg, -1)
	if len(matches) == 0 {
		return msg, nil
	}
	var blocks []string
	seen := map[string]bool{}
	for _, mm := range matches {
		server, uri := mm[2], strings.TrimRight(mm[3], ".,;:!?)\"'")
		if seen[server+" "+uri] {
			continue
		}
		seen[server+" "+uri] = true
		if _, err := m.server(server); err != nil {
			return "", fmt.Errorf("@%s:%s: %w", server, uri, err)
		}
		r, err := m.ReadResource(ctx, server, uri)
		if err != nil {
			return "", fmt.Errorf("@%s:%s: %w", server, uri, err)
		}
		blocks = append(blocks, r.Text)
		for _, img := range r.Images {
			blocks = append(blocks, fmt.Sprintf("<resource server=%q uri=%q mime=%q>[image, %d bytes]</resource>", server, uri, img.MIME, len(img.Data)))
		}
	}
	return msg + "\n\n" + strings.Join(blocks, "\n"), nil
}

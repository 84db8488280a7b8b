package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/browseragent/browseragent/media"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Result is a tool call's content converted for the agent: text joined,
// images kept as bytes, embedded text resources inlined into Text.
type Result struct {
	// Text is every text part joined by newlines, with embedded text
	// resources inlined as <resource> blocks and resource links listed.
	Text string
	// Images are image parts (and image blobs of embedded resources).
	Images []media.Image
	// Links are the resource links the tool returned.
	Links []Link
	// Structured is structuredContent as JSON; when the tool sent no text,
	// Text holds it too.
	Structured json.RawMessage
	// IsError means the tool itself failed; Text is the server's message.
	// The model can act on it, so it is a result, not a Go error.
	IsError bool
	// Server and Tool are the server name and the server's own tool name.
	Server, Tool string
}

// Link is a resource link (content type "resource_link").
type Link struct {
	URI, Name, MIME, Description string
}

// convertResult turns an SDK result into a Result.
func convertResult(server, tool string, r *mcp.CallToolResult) *Result {
	res := &Result{Server: server, Tool: tool, IsError: r.IsError}
	var text []string
	for _, c := range r.Content {
		text = appendContent(res, text, c)
	}
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			res.Structured = b
			if len(text) == 0 {
				text = append(text, string(b))
			}
		}
	}
	if len(res.Links) > 0 {
		lines := []string{"Resources:"}
		for _, l := range res.Links {
			lines = append(lines, "- "+describeLink(l))
		}
		text = append(text, strings.Join(lines, "\n"))
	}
	res.Text = strings.Join(text, "\n")
	if res.IsError && strings.TrimSpace(res.Text) == "" {
		res.Text = "the tool reported an error without a message"
	}
	return res
}

func appendContent(res *Result, text []string, c mcp.Content) []string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return append(text, c.Text)
	case *mcp.ImageContent:
		res.Images = append(res.Images, media.Image{MIME: c.MIMEType, Data: c.Data})
	case *mcp.AudioContent:
		return append(text, fmt.Sprintf("[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
	case *mcp.ResourceLink:
		res.Links = append(res.Links, Link{URI: c.URI, Name: c.Name, MIME: c.MIMEType, Description: c.Description})
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			return appendResource(res, text, "", c.Resource)
		}
	}
	return text
}

// appendResource inlines text contents and keeps image blobs as images.
func appendResource(res *Result, text []string, server string, rc *mcp.ResourceContents) []string {
	switch {
	case rc.Blob != nil && strings.HasPrefix(rc.MIMEType, "image/"):
		res.Images = append(res.Images, media.Image{MIME: rc.MIMEType, Data: rc.Blob})
		return text
	case rc.Blob != nil:
		return append(text, fmt.Sprintf("%s[binary %s, %d bytes, not shown]</resource>", resourceOpen(server, rc), rc.MIMEType, len(rc.Blob)))
	}
	return append(text, resourceOpen(server, rc)+rc.Text+"</resource>")
}

func resourceOpen(server string, rc *mcp.ResourceContents) string {
	var b strings.Builder
	b.WriteString("<resource")
	if server != "" {
		fmt.Fprintf(&b, " server=%q", server)
	}
	fmt.Fprintf(&b, " uri=%q", rc.URI)
	if rc.MIMEType != "" {
		fmt.Fprintf(&b, " mime=%q", rc.MIMEType)
	}
	b.WriteString(">")
	return b.String()
}

func describeLink(l Link) string {
	s := l.URI
	if l.Name != "" {
		s = l.Name + " <" + l.URI + ">"
	}
	if l.MIME != "" {
		s += " (" + l.MIME + ")"
	}
	if l.Description != "" {
		s += ": " + capText(l.Description, 200)
	}
	return s
}

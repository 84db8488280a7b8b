package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SampleRequest is one sampling/createMessage request, as Options.Sample
// sees it. Params has at least one message.
type SampleRequest struct {
	Server string
	Params *mcp.CreateMessageParams
}

// codeUserRejected is the error code the MCP spec shows for a sampling
// request the user rejected.
const codeUserRejected = -1

// ErrNoLLM says that sampling was declined because no LLM is configured.
var ErrNoLLM = errors.New("no LLM is configured to answer sampling requests")

// sample handles sampling/createMessage: a request without messages is an
// invalid request; the hook decides the rest. Every refusal goes back to
// the server as an error with the reason, and into the server's log.
func (s *server) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	p := req.Params
	if p == nil || len(p.Messages) == 0 {
		s.notice("warning", "refused a sampling request with no messages")
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "sampling/createMessage needs at least one message"}
	}
	for i, msg := range p.Messages {
		if msg == nil || msg.Content == nil {
			s.notice("warning", fmt.Sprintf("refused a sampling request: message %d has no content", i+1))
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("sampling message %d has no content", i+1)}
		}
	}
	res, err := s.m.opts.Sample(ctx, &SampleRequest{Server: s.name, Params: p})
	if err != nil {
		s.notice("info", fmt.Sprintf("sampling request not answered: %v", err))
		if errors.Is(err, ErrDeclined) || errors.Is(err, ErrNoLLM) {
			return nil, &jsonrpc.Error{Code: codeUserRejected, Message: "sampling request rejected: " + err.Error()}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "sampling failed: " + err.Error()}
	}
	return res, nil
}

// SampleText renders a sampling request for a person: the system prompt,
// then one "role: text" line per message, images and audio noted.
func SampleText(p *mcp.CreateMessageParams) string {
	var b strings.Builder
	if p.SystemPrompt != "" {
		fmt.Fprintf(&b, "system: %s\n", p.SystemPrompt)
	}
	for _, msg := range p.Messages {
		if msg == nil {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", msg.Role, ContentText(msg.Content))
	}
	return strings.TrimRight(b.String(), "\n")
}

// ContentText is the text of one content block, or a note for media.
func ContentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data))
	case nil:
		return ""
	}
	return fmt.Sprintf("[%T]", c)
}

package mcpclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompts returns a server's prompts.
func (m *Manager) Prompts(name string) ([]*mcp.Prompt, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists.prompts, nil
}

// GetPrompt fetches prompt with args from server name.
func (m *Manager) GetPrompt(ctx context.Context, name, prompt string, args map[string]string) (*mcp.GetPromptResult, error) {
	s, sess, err := m.session(name)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, s.callTimeout())
	defer cancel()
	r, err := sess.GetPrompt(cctx, &mcp.GetPromptParams{Name: prompt, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("mcp %s: prompt %s: %w", name, prompt, err)
	}
	return r, nil
}

// PromptText renders a prompt's messages as "role: text" lines, with
// embedded resources inlined and images noted.
func PromptText(r *mcp.GetPromptResult) string {
	var b strings.Builder
	for _, msg := range r.Messages {
		res := &Result{}
		text := appendContent(res, nil, msg.Content)
		for _, img := range res.Images {
			text = append(text, fmt.Sprintf("[image %s, %d bytes]", img.MIME, len(img.Data)))
		}
		fmt.Fprintf(&b, "%s: %s\n", msg.Role, strings.Join(text, "\n"))
	}
	return strings.TrimRight(b.String(), "\n")
}

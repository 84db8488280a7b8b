package mcpclient

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PromptRef refers to a prompt's arguments for Complete.
func PromptRef(prompt string) *mcp.CompleteReference {
	return &mcp.CompleteReference{Type: "ref/prompt", Name: prompt}
}

// TemplateRef refers to a resource template's variables for Complete.
func TemplateRef(uriTemplate string) *mcp.CompleteReference {
	return &mcp.CompleteReference{Type: "ref/resource", URI: uriTemplate}
}

// Complete asks server name for values of argument arg (a prompt argument
// or a URI-template variable) that start like value; resolved holds the
// arguments already chosen. A server without the completions capability
// is an error, so a completer can stop asking it.
func (m *Manager) Complete(ctx context.Context, name string, ref *mcp.CompleteReference, arg, value string, resolved map[string]string) ([]string, error) {
	s, sess, err := m.session(name)
	if err != nil {
		return nil, err
	}
	if caps := sess.InitializeResult().Capabilities; caps == nil || caps.Completions == nil {
		return nil, fmt.Errorf("mcp server %q does not offer completions", name)
	}
	p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
	if len(resolved) > 0 {
		p.Context = &mcp.CompleteContext{Arguments: resolved}
	}
	cctx, cancel := context.WithTimeout(ctx, s.callTimeout())
	defer cancel()
	r, err := sess.Complete(cctx, p)
	if err != nil {
		return nil, fmt.Errorf("mcp %s: complete %s: %w", name, arg, err)
	}
	return r.Completion.Values, nil
}

package mcpclient

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress is one notifications/progress for a call in flight.
type Progress struct {
	Server string
	// Token is the progress token browseragent gave the call.
	Token    string
	Progress float64
	// Total is 0 when the server does not know it.
	Total   float64
	Message string
}

// String renders "message 3/10" (or "3" without a total).
func (p Progress) String() string {
	n := fmt.Sprintf("%g", p.Progress)
	if p.Total > 0 {
		n = fmt.Sprintf("%g/%g", p.Progress, p.Total)
	}
	if p.Message != "" {
		return p.Message + " " + n
	}
	return n
}

// trackProgress gives the call a fresh progress token and returns the
// function that retires it.
func (m *Manager) trackProgress(server string, p *mcp.CallToolParams) func() {
	h := m.hostInit()
	tok := fmt.Sprintf("browseragent-%d", h.nextTok.Add(1))
	h.mu.Lock()
	if h.tokens == nil {
		h.tokens = map[string]string{}
	}
	h.tokens[tok] = server
	h.mu.Unlock()
	p.SetProgressToken(tok)
	return func() {
		// The response can overtake the call's last notifications (the
		// SDK delivers notifications on their own goroutine), so a token
		// is forgotten only after retiredTokens later calls have ended.
		h.mu.Lock()
		h.retired = append(h.retired, tok)
		if len(h.retired) > retiredTokens {
			delete(h.tokens, h.retired[0])
			h.retired = h.retired[1:]
		}
		h.mu.Unlock()
	}
}

// retiredTokens is how many finished calls keep their progress token.
const retiredTokens = 64

// onProgress delivers a progress notification to the call it belongs to.
// A token we did not hand out to this server (or one already retired) is
// ignored: a server cannot make us report progress for someone else.
func (s *server) onProgress(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
	if r == nil || r.Params == nil {
		return
	}
	tok, ok := r.Params.ProgressToken.(string)
	h := s.m.hostInit()
	h.mu.Lock()
	owner, known := h.tokens[tok]
	h.mu.Unlock()
	if !ok || !known || owner != s.name {
		h.ignored.Add(1)
		return
	}
	p := Progress{Server: s.name, Token: tok, Progress: r.Params.Progress, Total: r.Params.Total, Message: r.Params.Message}
	if fn := s.m.opts.OnProgress; fn != nil {
		s.m.post(func() { fn(p) })
	}
}

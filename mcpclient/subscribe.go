package mcpclient

import (
	"context"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Subscribe watches uri on server name (resources/subscribe): each
// resources/updated drops the cached content and sends one
// EventResourceUpdated. The watch is renewed when the server restarts.
func (m *Manager) Subscribe(ctx context.Context, name, uri string) error {
	s, sess, err := m.session(name)
	if err != nil {
		return err
	}
	if caps := sess.InitializeResult().Capabilities; caps == nil || caps.Resources == nil || !caps.Resources.Subscribe {
		return fmt.Errorf("mcp server %q does not offer resource subscriptions", name)
	}
	cctx, cancel := context.WithTimeout(ctx, s.callTimeout())
	defer cancel()
	if err := s.subscribe(cctx, sess, uri); err != nil {
		return fmt.Errorf("mcp %s: watch %s: %w", name, uri, err)
	}
	h := m.hostInit()
	h.mu.Lock()
	if h.watched == nil {
		h.watched = map[string]map[string]bool{}
	}
	if h.watched[name] == nil {
		h.watched[name] = map[string]bool{}
	}
	h.watched[name][uri] = true
	h.mu.Unlock()
	return nil
}

// subscribe sends resources/subscribe and records it, so reads of uri are
// cached until the next update.
func (s *server) subscribe(ctx context.Context, sess *mcp.ClientSession, uri string) error {
	if err := sess.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return err
	}
	s.mu.Lock()
	if s.subs == nil {
		s.subs, s.cache = map[string]bool{}, map[string]*mcp.ReadResourceResult{}
	}
	s.subs[uri] = true
	s.mu.Unlock()
	return nil
}

// Unsubscribe stops watching uri on server name.
func (m *Manager) Unsubscribe(ctx context.Context, name, uri string) error {
	s, sess, err := m.session(name)
	if err != nil {
		return err
	}
	h := m.hostInit()
	h.mu.Lock()
	delete(h.watched[name], uri)
	h.mu.Unlock()
	s.mu.Lock()
	delete(s.subs, uri)
	delete(s.cache, uri)
	s.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, s.callTimeout())
	defer cancel()
	if err := sess.Unsubscribe(cctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return fmt.Errorf("mcp %s: unwatch %s: %w", name, uri, err)
	}
	return nil
}

// Watched lists the URIs watched on server name, sorted.
func (m *Manager) Watched(name string) []string {
	h := m.hostInit()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for u := range h.watched[name] {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

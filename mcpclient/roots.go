package mcpclient

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RootsFor turns directories into file:// roots, named after the
// directory. Each must exist.
func RootsFor(dirs []string) ([]*mcp.Root, error) {
	var out []*mcp.Root
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("root %s is not a directory", d)
		}
		u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
		if !seen[u] {
			seen[u] = true
			out = append(out, &mcp.Root{URI: u, Name: filepath.Base(abs)})
		}
	}
	return out, nil
}

// currentRoots returns the roots, starting from Options.Roots (or the
// working directory when it is nil).
func (m *Manager) currentRoots() []*mcp.Root {
	h := m.hostInit()
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.rootsOK {
		dirs := m.opts.Roots
		if dirs == nil {
			if wd, err := os.Getwd(); err == nil {
				dirs = []string{wd}
			}
		}
		roots, err := RootsFor(dirs)
		if err != nil { // Options.Roots are checked by the caller; drop bad ones
			roots = nil
			for _, d := range dirs {
				if r, err := RootsFor([]string{d}); err == nil {
					roots = append(roots, r...)
				}
			}
		}
		h.roots, h.rootsOK = roots, true
	}
	return slices.Clone(h.roots)
}

// roots returns the file:// roots offered to every server.
func (m *Manager) roots() []*mcp.Root { return m.currentRoots() }

// setRoots replaces the roots with dirs; every connected server gets
// notifications/roots/list_changed when the set changed.
func (m *Manager) setRoots(dirs []string) error {
	roots, err := RootsFor(dirs)
	if err != nil {
		return err
	}
	old := m.currentRoots()
	h := m.hostInit()
	h.mu.Lock()
	h.roots = roots
	clients := make([]*mcp.Client, 0, len(h.clients))
	for c := range h.clients {
		clients = append(clients, c)
	}
	h.mu.Unlock()
	added, gone := diffRoots(old, roots)
	for _, c := range clients { // each change sends roots/list_changed
		if len(gone) > 0 {
			c.RemoveRoots(gone...)
		}
		c.AddRoots(added...)
	}
	return nil
}

// diffRoots returns the roots of next not in old, and the URIs of old not
// in next.
func diffRoots(old, next []*mcp.Root) (added []*mcp.Root, gone []string) {
	in := func(list []*mcp.Root, uri string) bool {
		return slices.ContainsFunc(list, func(r *mcp.Root) bool { return r.URI == uri })
	}
	for _, r := range next {
		if !in(old, r.URI) {
			added = append(added, r)
		}
	}
	for _, r := range old {
		if !in(next, r.URI) {
			gone = append(gone, r.URI)
		}
	}
	return added, gone
}

// attachRoots gives client c the current roots and keeps it informed of
// changes until attempt a ends.
func (m *Manager) attachRoots(a *attempt, c *mcp.Client) {
	roots := m.currentRoots()
	h := m.hostInit()
	h.mu.Lock()
	if h.clients == nil {
		h.clients = map[*mcp.Client]bool{}
	}
	h.clients[c] = true
	h.mu.Unlock()
	c.AddRoots(roots...) // not connected yet: no notification is sent
	go func() {
		<-a.ctx.Done()
		h.mu.Lock()
		delete(h.clients, c)
		h.mu.Unlock()
	}()
}

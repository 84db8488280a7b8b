package browser

import (
	"context"
	"errors"
)

// CloseOwned closes, in the person's browser, every tab the agent opened
// there (browser_open, a popup of such a tab, or one chrome-devtools-mcp
// opened and MarkOwned recorded), so ending a shared session leaves the
// person's Chrome as the agent found it. It returns how many it closed.
// In isolated mode it does nothing: that browser goes away whole.
func (b *Browser) CloseOwned(ctx context.Context) (int, error) {
	b.mu.Lock()
	s := b.s
	shared := b.mode == ModeShared
	b.mu.Unlock()
	if !shared || s == nil || s.dead() {
		return 0, nil
	}
	s.refresh(ctx) // forget tabs the person closed meanwhile
	s.mu.Lock()
	var owned []*tab
	for _, id := range s.orderLocked() {
		if t := s.tabs[id]; t.owned {
			owned = append(owned, t)
		}
	}
	s.mu.Unlock()
	n := 0
	var errs []error
	for _, t := range owned {
		if err := s.closeTab(ctx, t); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

package browser

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
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
	closed := map[target.ID]bool{}
	for _, t := range owned {
		if err := s.closeTab(ctx, t); err != nil {
			errs = append(errs, err)
			continue
		}
		closed[t.id] = true
		n++
	}
	s.awaitGone(ctx, closed)
	return n, errors.Join(errs...)
}

// awaitGone waits (bounded) until the browser lists none of the targets:
// Target.closeTarget answers once the close has begun, and a session that
// ends must leave the person's Chrome as it found it when it says so, not
// a moment later.
func (s *session) awaitGone(ctx context.Context, ids map[target.ID]bool) {
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for ctx.Err() == nil && !s.dead() {
		res, err := cdp.Call(ctx, chromedp.FromContext(s.root).Browser, target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			return
		}
		if !slices.ContainsFunc(res.TargetInfos, func(i *target.Info) bool { return ids[i.TargetID] }) {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

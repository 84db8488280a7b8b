package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// holdOpenJS takes window.close away from every document of a tab the
// person opened: the window's own close (and Window.prototype's, where a
// browser puts it there) becomes a no-op that cannot be deleted or
// redefined. Installed as a new-document script, it also runs first in
// every frame created later, so a fresh iframe's pristine close is no way
// around it.
const holdOpenJS = `(() => {
  const keep = function close() {};
  for (const o of [window, Window.prototype]) {
    try { Object.defineProperty(o, 'close', { value: keep, writable: false, configurable: false, enumerable: true }); } catch (e) {}
  }
})();`

// holdOpen makes sure scripts in the tab cannot close it: in the person's
// browser, for every tab the agent did not open, on every attachment (the
// new-document script lives as long as our session with the tab). Nothing
// else on the page changes.
func (s *session) holdOpen(ctx context.Context, t *tab) error {
	s.mu.Lock()
	need := s.mode == ModeShared && !t.owned && !t.heldOpen
	s.mu.Unlock()
	if !need {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := chromedp.Call(cctx, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: holdOpenJS, RunImmediately: new(true)}); err != nil {
		return fmt.Errorf("tab %s: keep it open: %w", t.short, err)
	}
	s.mu.Lock()
	t.heldOpen = true
	s.mu.Unlock()
	return nil
}

// HoldOpen makes sure no script can close the tab (tabID: a short id or a
// CDP target id) when it is a tab the person opened in their browser, as
// the native tools do on every tab they touch: call it before another
// path (an MCP server's script or input tool) acts on the tab.
func (b *Browser) HoldOpen(ctx context.Context, tabID string) error {
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil || s.dead() || tabID == "" {
		return nil
	}
	t, err := s.lookup(tabID)
	if err != nil {
		return err
	}
	_, err = s.attach(t)
	return err
}

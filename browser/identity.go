package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/target"
)

// TabOfTabTarget returns the short id of our tab whose page lives in the
// CDP "tab" target tabTarget (what chrome-devtools-mcp's get_tab_id
// reports), or "" when the browser has no such tab. This is identity, not
// a guess: two tabs showing the same URL are told apart.
//
// Chrome reports no link from a tab target to its page target, so the
// answer comes from the tab itself: attach to it (on our own connection,
// in the non-flattened mode whose messages arrive as browser events),
// let it auto-attach its page, read that page's target id and detach.
// Nothing in the tab changes. Answers are remembered while the page
// target lives (target ids are never reused).
func (b *Browser) TabOfTabTarget(ctx context.Context, tabTarget string) (string, error) {
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil || s.dead() {
		return "", errNoTab
	}
	if tabTarget == "" {
		return "", errors.New("empty tab target id")
	}
	if short := s.cachedTabPage(target.ID(tabTarget)); short != "" {
		return short, nil
	}
	pageID, err := s.pageOfTabTarget(ctx, target.ID(tabTarget))
	if err != nil || pageID == "" {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tabs[pageID]
	if t == nil {
		return "", nil
	}
	s.tabPage[target.ID(tabTarget)] = pageID
	return t.short, nil
}

func (s *session) cachedTabPage(tabTarget target.ID) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tabs[s.tabPage[tabTarget]]; t != nil {
		return t.short
	}
	return ""
}

// pageOfTabTarget asks the tab target which page it holds. "" with no
// error: the browser has no such tab target.
func (s *session) pageOfTabTarget(ctx context.Context, tabTarget target.ID) (target.ID, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	raw, err := s.openRaw(ctx, tabTarget)
	if errors.Is(err, errNoTarget) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("identify tab %s: %w", tabTarget, err)
	}
	defer raw.close()
	var page target.ID
	_, err = raw.call(ctx, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": false},
		func(m rawMessage) bool {
			if m.Method != "Target.attachedToTarget" {
				return false
			}
			var p struct {
				TargetInfo struct {
					TargetID target.ID `json:"targetId"`
					Type     string    `json:"type"`
					Subtype  string    `json:"subtype"`
				} `json:"targetInfo"`
			}
			if json.Unmarshal(m.Params, &p) != nil || p.TargetInfo.Type != "page" || p.TargetInfo.Subtype != "" {
				return false
			}
			page = p.TargetInfo.TargetID
			return true
		})
	if err != nil {
		return "", fmt.Errorf("identify tab %s: %w", tabTarget, err)
	}
	return page, nil
}

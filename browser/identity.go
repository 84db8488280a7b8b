package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
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
		return "", ErrNoTab
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
	br := chromedp.FromContext(s.root).Browser
	msgs, stop := br.Subscribe("Target.receivedMessageFromTarget")
	defer stop()
	att, err := cdp.Call(ctx, br, target.AttachToTarget, target.AttachToTargetParams{TargetID: tabTarget, Flatten: new(false)})
	if err != nil {
		if strings.Contains(err.Error(), "No target with given id") {
			return "", nil
		}
		return "", fmt.Errorf("identify tab %s: %w", tabTarget, err)
	}
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = br.Call(dctx, target.DetachFromTarget.Method, target.DetachFromTargetParams{SessionID: att.SessionID}, nil)
		dcancel()
	}()
	const autoAttach = `{"id":1,"method":"Target.setAutoAttach","params":{"autoAttach":true,"waitForDebuggerOnStart":false,"flatten":false}}`
	if err := br.Call(ctx, "Target.sendMessageToTarget", map[string]any{"sessionId": att.SessionID, "message": autoAttach}, nil); err != nil {
		return "", fmt.Errorf("identify tab %s: %w", tabTarget, err)
	}
	for {
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("identify tab %s: no answer: %w", tabTarget, ctx.Err())
		case raw, ok := <-msgs:
			if !ok {
				return "", ErrLost
			}
			var outer struct {
				SessionID target.SessionID `json:"sessionId"`
				Message   string           `json:"message"`
			}
			if jsonv2.Unmarshal(raw, &outer) != nil || outer.SessionID != att.SessionID {
				continue
			}
			var inner struct {
				Method string `json:"method"`
				Params struct {
					TargetInfo struct {
						TargetID target.ID `json:"targetId"`
						Type     string    `json:"type"`
						Subtype  string    `json:"subtype"`
					} `json:"targetInfo"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(outer.Message), &inner) != nil || inner.Method != "Target.attachedToTarget" {
				continue
			}
			if ti := inner.Params.TargetInfo; ti.Type == "page" && ti.Subtype == "" {
				return ti.TargetID, nil
			}
		}
	}
}

// chromedpErrorf is chromedp's error log minus the complaint about a
// session it did not make (ours, detached in pageOfTabTarget).
func chromedpErrorf(format string, v ...any) {
	if strings.HasPrefix(format, "executor for ") {
		return
	}
	log.Printf("ERROR: "+format, v...)
}

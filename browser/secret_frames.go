package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// cdpCall sends one CDP command to a target and returns its result.
type cdpCall func(ctx context.Context, method string, params any) (json.RawMessage, error)

// secretWorld names the isolated worlds secret fields are asked about in.
const secretWorld = "browseragent-secret"

// framesHaveSecret asks every frame of the tab below its top document (and
// the top document too when withTop) — same-process frames, and cross-site
// frames (targets of their own) with the frames inside them — whether it
// holds a secret field, or with focused, whether its focused element is
// one. Each frame is asked in an isolated world of its own, so the page's
// scripts cannot change the answer. Any frame that cannot answer is an
// error: callers then treat the typing as secret.
func (b *Browser) framesHaveSecret(ctx context.Context, tabID string, focused, withTop bool) (bool, error) {
	expr := anySecretJS
	if focused {
		expr = focusedSecretJS
	}
	found := false
	err := b.tabFramesEval(ctx, tabID, expr, withTop, func(v any) bool {
		found = v == true
		return found
	})
	return found, err
}

// tabFramesEval evaluates expr in an isolated world of every frame of the
// tab: its top document too when withTop, the frames below it, and
// cross-site frames (targets of their own) with the frames inside them.
// It hands each value to fn until fn returns true.
func (b *Browser) tabFramesEval(ctx context.Context, tabID, expr string, withTop bool, fn func(v any) bool) error {
	var top target.ID
	stopped := false
	each := func(v any) bool {
		stopped = fn(v)
		return stopped
	}
	err := b.onTab(ctx, tabID, func(pctx context.Context) error {
		t := chromedp.FromContext(pctx).Target
		top = t.TargetID
		call := func(ctx context.Context, method string, params any) (json.RawMessage, error) {
			var out json.RawMessage
			err := t.Call(ctx, method, params, &out)
			return out, err
		}
		return treeEval(pctx, call, expr, withTop, each)
	})
	if err != nil || stopped {
		return err
	}
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil || s.dead() {
		return errNoTab
	}
	ctx, cancel := context.WithTimeout(ctx, secretAskTimeout)
	defer cancel()
	ids, err := s.frameTargets(ctx, top)
	if err != nil {
		return err
	}
	for _, id := range ids {
		raw, err := s.openRaw(ctx, id)
		if err != nil {
			return fmt.Errorf("frame %s: %w", id, err)
		}
		err = treeEval(ctx, func(ctx context.Context, method string, params any) (json.RawMessage, error) {
			return raw.call(ctx, method, params, nil)
		}, expr, true, each)
		raw.close()
		if err != nil || stopped {
			return err
		}
	}
	return nil
}

// treeEval evaluates expr in an isolated world of every frame of one
// target (its root frame too when withRoot) and hands each value to fn,
// until fn returns true.
func treeEval(ctx context.Context, call cdpCall, expr string, withRoot bool, fn func(v any) bool) error {
	out, err := call(ctx, "Page.getFrameTree", struct{}{})
	if err != nil {
		return err
	}
	var res struct {
		FrameTree *page.FrameTree `json:"frameTree"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return err
	}
	var frames []*cdp.Frame
	var walk func(ft *page.FrameTree, root bool)
	walk = func(ft *page.FrameTree, root bool) {
		if ft == nil {
			return
		}
		if ft.Frame != nil && (!root || withRoot) {
			frames = append(frames, ft.Frame)
		}
		for _, c := range ft.ChildFrames {
			walk(c, false)
		}
	}
	walk(res.FrameTree, true)
	for _, f := range frames {
		out, err := call(ctx, "Page.createIsolatedWorld", map[string]any{"frameId": f.ID, "worldName": secretWorld})
		if err != nil {
			return fmt.Errorf("frame %s: %w", f.URL, err)
		}
		var world struct {
			ExecutionContextID int64 `json:"executionContextId"`
		}
		if err := json.Unmarshal(out, &world); err != nil {
			return err
		}
		out, err = call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "contextId": world.ExecutionContextID, "returnByValue": true})
		if err != nil {
			return fmt.Errorf("frame %s: %w", f.URL, err)
		}
		var ev struct {
			Result struct {
				Value any `json:"value"`
			} `json:"result"`
			ExceptionDetails json.RawMessage `json:"exceptionDetails"`
		}
		if err := json.Unmarshal(out, &ev); err != nil {
			return err
		}
		if len(ev.ExceptionDetails) > 0 {
			return fmt.Errorf("frame %s: the secret-field check failed", f.URL)
		}
		if fn(ev.Result.Value) {
			return nil
		}
	}
	return nil
}

// secretValuesJS lists the values of the document's secret fields.
const secretValuesJS = `(function(){` + secretFieldJS + `
return Array.from(document.querySelectorAll('input, textarea, [autocomplete]')).filter(__baSecret).map(el => String(el.value || '')).filter(v => v !== '');
})()`

// SecretValues returns what the tab's secret fields (as SecretField
// judges one) hold now, in its top document and every frame, cross-site
// ones too, each asked in an isolated world: what a result must not show
// (a card number a snapshot or a request body would carry).
func (b *Browser) SecretValues(ctx context.Context, tabID string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, secretAskTimeout)
	defer cancel()
	var out []string
	err := b.tabFramesEval(ctx, tabID, secretValuesJS, true, func(v any) bool {
		if list, ok := v.([]any); ok {
			for _, x := range list {
				if s, ok := x.(string); ok {
					out = append(out, s)
				}
			}
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

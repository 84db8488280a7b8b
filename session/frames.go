package session

import (
	"context"
	"strings"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/tools"
)

// How the element a write acts on is found, for judging the frame it is in.
const (
	elemNone = iota
	elemRef  // a native snapshot ref: an element of the top document, which may hold a frame
	elemAny  // any frame: an MCP uid (the server's snapshot covers every frame), input the page routes, a write naming no element
)

// elementOf says how the call names the element it acts on, as its
// catalogue entry says.
func (l locator) elementOf(c *tools.ResolvedCall) int {
	e := c.Entry
	switch {
	case c.Def.Source == tools.SourceBrowser:
		if e.Input {
			// A click or a key press lands wherever the page puts it: a
			// frame slid under the pointer, the focus moved into one. The
			// page's own scripts answer any question asked about it in
			// the page (what is at this point, what has the focus).
			return elemAny
		}
		if ref, _ := c.Args[e.Element].(string); ref != "" && e.Element != "" {
			return elemRef
		}
	case c.Def.Source == tools.SourceMCP && catalog.IsBrowserServer(c.Def.Server):
		keys := []string{"uid", "from_uid", "to_uid", "elements"}
		if e.Element != "" {
			keys = append(keys, e.Element) // evaluate_script's args: it runs in their frame
		}
		for _, k := range keys {
			if named(c.Args[k]) {
				return elemAny
			}
		}
		if e.Input || e.Effect == catalog.Write {
			// Input, or a write that names no element, cannot say which
			// frame it lands in: keys to the focus (press_key), coordinates
			// (click_at), a dialog a frame opened (handle_dialog), a tool
			// the catalogue derived.
			return elemAny
		}
	}
	return elemNone
}

// named reports whether an element argument names something: a uid, or a
// list or object holding any.
func named(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}

// framesOf lists the documents of the tab the call's element may be in,
// for the guard to judge it by the strictest (guard.Call.Frames): none
// when the call names no element and types nothing (the page alone); a
// native ref of an element inside a frame (f2e7) names its frame, which
// comes first (it wins a tie), then the page; a ref of an element that
// holds no frame stops there; while a dialog is open, the frame that
// opened it and the page (only its answer can run, and the paused page
// lists no frames); otherwise the page and every frame in it,
// so a click or a fill inside a bank's iframe on an ordinary page is
// judged as a write on the bank. The frames are asked from the live page;
// when it cannot say which frame holds the element, every frame counts.
// The locator only gathers these facts: the guard ranks them.
func (l locator) framesOf(ctx context.Context, c *tools.ResolvedCall, page tools.Page) []guard.Frame {
	b := l.s.Browser
	how := l.elementOf(c)
	if how == elemNone || b == nil || page.TabID == "" || strings.HasPrefix(page.TabID, "mcp:") {
		return nil
	}
	var frames []guard.Frame
	ref, _ := c.Args[c.Entry.Element].(string)
	if c.Def.Source == tools.SourceBrowser && browser.RefFrame(ref) != "" {
		u, addr, _, err := b.RefFrameURL(ctx, page.TabID, ref)
		if err != nil {
			how = elemAny // the frame cannot be found: every frame counts
		} else {
			frames = append(frames, guard.Frame{URL: u, Addr: addr}, guard.Frame{URL: page.URL, Addr: page.Addr})
		}
	}
	if u, addr, ok := b.DialogFrame(page.TabID); ok {
		// Only the dialog's answer can run now: it goes to the frame that
		// opened the dialog, and the page it paused lists no frames.
		return append(frames, guard.Frame{URL: u, Addr: addr}, guard.Frame{URL: page.URL, Addr: page.Addr})
	}
	if how == elemRef {
		if in, err := b.RefInFrame(ctx, page.TabID, ref); err == nil && !in {
			return frames
		}
	}
	urls, err := b.FrameURLs(ctx, page.TabID)
	if err != nil {
		return frames // the call's own check still judges the page
	}
	frames = append(frames, guard.Frame{URL: page.URL})
	for _, u := range urls {
		frames = append(frames, guard.Frame{URL: u})
	}
	return frames
}

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

// judgedURL is the address a call on page is judged by: the page's own, or
// the URL of a frame the call's element may be in when the guard is
// stricter there (deny before a sensitive ask before an ask before allow),
// so a click or a fill inside a bank's iframe on an ordinary page is
// judged as a write on the bank. A native ref of an element inside a frame
// (f2e7) names its frame: the call is judged by that frame, or by the page
// when the page is stricter. The frames are asked from the live page;
// when it cannot say which frame holds the element, every frame counts.
func (l locator) judgedURL(ctx context.Context, c *tools.ResolvedCall, page tools.Page) string {
	b := l.s.Browser
	how := l.elementOf(c)
	if how == elemNone || b == nil || page.TabID == "" || strings.HasPrefix(page.TabID, "mcp:") {
		return page.URL
	}
	call := c.GuardCall()
	call.TabID, call.Files = page.TabID, []guard.File{} // the page's part: the files are judged apart
	best, bestRank, addr0 := page.URL, -1, call.PageAddr
	judge := func(u, addr string) {
		if !hasOwnAddress(u) {
			return // about:blank, srcdoc, data: frames: the page's own content
		}
		call.PageURL, call.PageAddr = u, addr
		if r := strictness(l.s.Policy.Peek(call)); r > bestRank {
			best, bestRank = u, r
		}
	}
	ref, _ := c.Args[c.Entry.Element].(string)
	if c.Def.Source == tools.SourceBrowser && browser.RefFrame(ref) != "" {
		u, addr, _, err := b.RefFrameURL(ctx, page.TabID, ref)
		if err != nil {
			how = elemAny // the frame cannot be found: every frame counts
		} else {
			judge(u, addr) // first: it wins a tie
			judge(page.URL, page.Addr)
		}
	}
	if u, addr, ok := b.DialogFrame(page.TabID); ok {
		// Only the dialog's answer can run now: it goes to the frame that
		// opened the dialog, and the page it paused lists no frames.
		judge(u, addr)
		judge(page.URL, page.Addr)
		return best
	}
	if how == elemRef {
		if in, err := b.RefInFrame(ctx, page.TabID, ref); err == nil && !in {
			if bestRank < 0 {
				return page.URL
			}
			return best
		}
	}
	frames, err := b.FrameURLs(ctx, page.TabID)
	if err != nil {
		if bestRank >= 0 {
			return best
		}
		return page.URL // the call's own check still judges the page
	}
	for _, u := range append([]string{page.URL}, frames...) {
		judge(u, addr0)
	}
	return best
}

// hasOwnAddress reports whether a frame URL names content of its own, not
// content its parent wrote (about:, data:, javascript:).
func hasOwnAddress(u string) bool {
	i := strings.IndexByte(u, ':')
	if i < 0 {
		return false
	}
	switch strings.ToLower(u[:i]) {
	case "about", "data", "javascript", "":
		return false
	}
	return true
}

// strictness ranks decisions: deny, then a sensitive ask, an ask, allow.
func strictness(d guard.Decision) int {
	switch {
	case d.Verdict == guard.Deny:
		return 3
	case d.Verdict == guard.Ask && d.Sensitive:
		return 2
	case d.Verdict == guard.Ask:
		return 1
	}
	return 0
}

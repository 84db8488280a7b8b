package browser

import (
	"context"
	"fmt"
	"strings"
)

// lastSnapshot is what the model last read of a tab: the options it asked
// for and the whole outline (before any cut), which an action's result is
// compared with.
type lastSnapshot struct {
	opts  snapshotOptions
	url   string
	lines []string
}

// setLastSnapshot records the snapshot the model was given of the tab.
func (t *tab) setLastSnapshot(o snapshotOptions, s *Snapshot) {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	t.last = &lastSnapshot{opts: o, url: s.URL, lines: s.Lines}
}

// Bounds of what an action's result shows of the page's changes.
const (
	maxChangeLines = 40
	maxChangeChars = 3000
)

// changes outlines the tab again after an action, as the model's last
// snapshot of it did, and says what changed since: the lines added ("+")
// and gone ("-"), at most maxChangeLines and maxChangeChars of them, with
// a note on how to see the rest; the outline becomes the last snapshot.
// It says nothing when no snapshot was taken in the tab, when the tab now
// shows another page (the action's own line names it), when a dialog
// pauses the page, or when the page cannot be outlined now.
func (c *call) changes(ctx context.Context) (model, person string) {
	_, model, person = c.outlineChanges(ctx)
	return model, person
}

// outlineChanges is changes that also returns the new outline, whose
// title and URL the action's own line can say (nil when none was taken).
func (c *call) outlineChanges(ctx context.Context) (now *Snapshot, model, person string) {
	c.t.dmu.Lock()
	last := c.t.last
	c.t.dmu.Unlock()
	if last == nil || ctx.Err() != nil || c.t.openDialog() != nil {
		return nil, "", "" // a dialog pauses the page: it answers no script
	}
	s, err := c.snapshot(ctx, last.opts)
	if err != nil || s.Error != "" {
		return nil, "", ""
	}
	return c.changesOf(last, s)
}

// changesOf is outlineChanges with the new outline s taken.
func (c *call) changesOf(last *lastSnapshot, s *Snapshot) (now *Snapshot, model, person string) {
	c.t.setLastSnapshot(last.opts, s)
	if s.URL != last.url {
		return s, "", ""
	}
	model, person = lineChanges(last.lines, s.Lines)
	if last.opts.Interactive && strings.HasPrefix(model, "No change") {
		// The outline held only the controls and headings: its text may
		// have changed all the same.
		const none = "No change to the page's controls or headings since the last snapshot (which listed only those)."
		model, person = none, none
	}
	return s, model, person
}

// lineChanges says what changed between two outlines of a page, as
// changes does.
func lineChanges(lastLines, lines []string) (model, person string) {
	added, gone := lineDelta(lastLines, lines)
	if len(added)+len(gone) == 0 {
		const none = "No change on the page since the last snapshot."
		return none, none
	}
	var b strings.Builder
	noun := "lines"
	if len(added) == 1 {
		noun = "line"
	}
	fmt.Fprintf(&b, "Changes since the last snapshot (%d %s added, %d gone):", len(added), noun, len(gone))
	shown := 0
	for _, group := range []struct {
		mark  string
		lines []string
	}{{"+ ", added}, {"- ", gone}} {
		for _, l := range group.lines {
			l = group.mark + strings.TrimPrefix(strings.TrimLeft(l, " "), "- ")
			if shown == maxChangeLines || b.Len()+len(l) > maxChangeChars {
				break
			}
			b.WriteString("\n" + l)
			shown++
		}
	}
	model, person = b.String(), b.String()
	if left := len(added) + len(gone) - shown; left > 0 {
		model += fmt.Sprintf("\n[%d more changes: browser_snapshot shows the whole page]", left)
		person += fmt.Sprintf("\n[%d more changes: /snapshot shows the whole page]", left)
	}
	return model, person
}

// lineDelta returns the lines of now that were not in before and those of
// before that are not in now, each in its order, counting repeats: refs
// stay with their elements, so a line that moved is the same line.
func lineDelta(before, now []string) (added, gone []string) {
	count := map[string]int{}
	for _, l := range before {
		count[l]++
	}
	for _, l := range now {
		if count[l] > 0 {
			count[l]--
			continue
		}
		added = append(added, l)
	}
	for _, l := range before {
		if count[l] > 0 {
			count[l]--
			gone = append(gone, l)
		}
	}
	return added, gone
}

// withChanges appends the page's changes since the last snapshot to an
// action's result.
func (c *call) withChanges(ctx context.Context, r *Result) *Result {
	if r == nil || r.IsError {
		return r
	}
	if model, person := c.changes(ctx); model != "" {
		r.addLine(model, person)
	}
	return r
}

// outlined is the outline an action took of its tab's page together with
// its last script (withOutline), for the change list after it.
type outlined struct {
	last *lastSnapshot
	s    *Snapshot
}

// withOutline runs the script pre in the tab's top document and, in the
// same evaluation, once pre's value (a promise's) has come, the outline of
// that document that outlineChanges would take next: one round trip for
// both. It does so only where that outline is the top document's alone
// (the tab known to have no frames) and one will be taken (a snapshot of
// the tab was, and no dialog is open); else, and when the evaluation
// fails, out is nil and pre has not run. The outline serves (use) only if
// no frame was attached meanwhile.
func withOutline[T any](c *call, ctx context.Context, pre string) (v T, out *outlined, err error) {
	c.t.dmu.Lock()
	last := c.t.last
	c.t.dmu.Unlock()
	if none, _ := c.t.framesKnownNone(); last == nil || !none || ctx.Err() != nil || c.t.openDialog() != nil {
		return v, nil, nil
	}
	expr := fmt.Sprintf("(async () => { const pre = await (%s); return {pre, snap: %s}; })()", pre, snapshotExpr(last.opts, c.t.refBase(), ""))
	r, err := evalDoc[struct {
		Pre  T         `json:"pre"`
		Snap *Snapshot `json:"snap"`
	}](docCtx{ctx: ctx}, expr)
	if err != nil {
		return v, nil, err
	}
	if r.Snap != nil {
		c.t.noteRefs(r.Snap.Next)
		r.Snap.Lines = dropFramePlaceholders(r.Snap.Lines)
	}
	return r.Pre, &outlined{last: last, s: r.Snap}, nil
}

// use returns what outlineChanges would after the outline, or ok false
// when it does not serve: none was taken, the page could not be
// outlined, or a frame was attached since.
func (o *outlined) use(c *call) (now *Snapshot, model, person string, ok bool) {
	if o == nil || o.s == nil || o.s.Error != "" {
		return nil, "", "", false
	}
	if none, _ := c.t.framesKnownNone(); !none {
		return nil, "", "", false
	}
	now, model, person = c.changesOf(o.last, o.s)
	return now, model, person, true
}

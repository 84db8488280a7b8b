package browser

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
)

//go:embed snapshot.js
var snapshotJS string

// maxSnapshotLines bounds the work done in the page for a huge document.
const maxSnapshotLines = 20000

// Snapshot is the outline of a page: one line per element that matters,
// interactive elements tagged with refs. It is browser_snapshot's Data:
// Elements lists every element given a ref, frames' too, for callers that
// want them as data (`browseragent browser snapshot --json`).
type Snapshot struct {
	Title     string    `json:"title"`
	URL       string    `json:"url"`
	Lines     []string  `json:"lines"`
	Elements  []Element `json:"elements"`
	Refs      int       `json:"refs"`
	Truncated bool      `json:"truncated"`
	Next      int       `json:"next"` // highest ref number handed out so far
	Error     string    `json:"error,omitempty"`
}

// Element is one element of a snapshot that has a ref: what browser_click,
// browser_type and browser_select act on.
type Element struct {
	Ref      string `json:"ref"` // e7, or f2e7 inside frame f2
	Role     string `json:"role"`
	Name     string `json:"name,omitempty"`
	Value    string `json:"value,omitempty"` // a field's text (secret ones ••••), a <select>'s chosen label
	Checked  bool   `json:"checked,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	Href     string `json:"href,omitempty"`      // a link's absolute target
	Frame    string `json:"frame,omitempty"`     // the frame's key, "" in the top document
	FrameURL string `json:"frame_url,omitempty"` // the frame's document, when Frame is set
}

// snapshotOptions choose what a snapshot outlines.
type snapshotOptions struct {
	// Selector scopes the outline to the first element it matches ("":
	// the whole page).
	Selector string `json:"selector,omitempty"`
	// Interactive outlines only the elements with refs, and headings, one
	// flat line each, links without their targets: the page's controls
	// for a fraction of the bytes.
	Interactive bool `json:"interactive,omitempty"`
}

// snapshotDoc outlines one document of the tab, numbering new refs from
// base with prefix (a frame's key).
func snapshotDoc(d docCtx, o snapshotOptions, base int, prefix string) (*Snapshot, error) {
	// The values of secret fields (passwords, card numbers, one-time
	// codes: secretFieldJS, the guard's one definition) show as ••••.
	s, err := evalDoc[*Snapshot](d, snapshotExpr(o, base, prefix))
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("empty snapshot")
	}
	return s, nil
}

// snapshot outlines the call's tab: its top document (within selector),
// and in place of each <iframe> shown the outline of the frame's own
// document, same-origin or not, in-process or not, nested frames too.
func (c *call) snapshot(ctx context.Context, o snapshotOptions) (*Snapshot, error) {
	frames, release, err := c.s.listFrames(ctx, c.ctx, c.t)
	defer release()
	if err != nil {
		frames = nil // the top document is outlined all the same
	}
	top, err := snapshotDoc(docCtx{ctx: c.ctx}, o, c.t.refBase(), "")
	if err != nil {
		return nil, err
	}
	c.t.noteRefs(top.Next)
	if top.Error != "" || len(frames) == 0 {
		top.Lines = dropFramePlaceholders(top.Lines)
		return top, nil
	}
	byKey := map[string]*docFrame{}
	for _, f := range frames {
		byKey[f.key] = f
	}
	outlines := map[string]*frameOutline{}
	var order []*docFrame
	c.outlineFrames(ctx, top.Lines, byKey, o.Interactive, 0, outlines, &order)
	// One question about every frame outlined: which to leave out.
	var shown []*docFrame
	var urls []string
	for _, f := range order {
		if o := outlines[f.key]; o.err == nil {
			shown, urls = append(shown, f), append(urls, o.s.URL)
		}
	}
	for i, why := range c.framesWithheld(top.URL, shown, urls) {
		outlines[shown[i].key].withheld = why
	}
	top.Lines = c.spliceFrames(top, top.Lines, byKey, outlines, 0)
	return top, nil
}

// frameOutline is one frame's outline for spliceFrames: its snapshot or
// why it could not be read, and why it must be left out ("" it may show).
type frameOutline struct {
	s        *Snapshot
	err      error
	withheld string
}

// outlineFrames outlines, depth first in the order they appear, the
// frames whose placeholders lines hold ("\0key\0name") and the frames in
// them, into outlines, appending each to order. depth bounds the nesting.
func (c *call) outlineFrames(ctx context.Context, lines []string, frames map[string]*docFrame, interactive bool, depth int, outlines map[string]*frameOutline, order *[]*docFrame) {
	for _, line := range lines {
		_, rest, ok := strings.Cut(line, "\x00")
		if !ok {
			continue
		}
		key, _, _ := strings.Cut(rest, "\x00")
		f := frames[key]
		if f == nil || depth > 8 || outlines[key] != nil {
			continue
		}
		s, err := c.frameSnapshot(ctx, f, interactive)
		outlines[key] = &frameOutline{s: s, err: err}
		*order = append(*order, f)
		if err == nil {
			c.outlineFrames(ctx, s.Lines, frames, interactive, depth+1, outlines, order)
		}
	}
}

// spliceFrames replaces each frame placeholder of lines ("\0key\0name",
// indented) by a line naming the frame and, below it, the outline of the
// frame's document (outlineFrames), whose own frames are spliced in turn;
// a frame to leave out keeps only its line, saying why. depth bounds the
// nesting.
func (c *call) spliceFrames(top *Snapshot, lines []string, frames map[string]*docFrame, outlines map[string]*frameOutline, depth int) []string {
	out := make([]string, 0, len(lines))
	for _, line := range lines {
		indent, rest, ok := strings.Cut(line, "\x00")
		if !ok {
			out = append(out, line)
			continue
		}
		key, name, _ := strings.Cut(rest, "\x00")
		f, o := frames[key], outlines[key]
		if f == nil || o == nil || depth > 8 {
			continue
		}
		head := indent + "- iframe"
		if name != "" {
			head += " " + jsArg(name)
		}
		head += " [frame=" + key + "]"
		if o.err != nil {
			out = append(out, head+": (its content could not be read: "+o.err.Error()+")")
			continue
		}
		s := o.s
		if o.withheld != "" {
			out = append(out, head+": ("+o.withheld+")")
			continue
		}
		if s.URL != "" {
			head += " -> " + s.URL
		}
		out = append(out, head)
		top.Refs += s.Refs
		top.Truncated = top.Truncated || s.Truncated
		for _, e := range s.Elements {
			if e.Frame == "" {
				e.Frame, e.FrameURL = key, s.URL
			}
			top.Elements = append(top.Elements, e)
		}
		for _, l := range c.spliceFrames(top, s.Lines, frames, outlines, depth+1) {
			out = append(out, indent+"  "+l)
		}
	}
	return out
}

// frameSnapshot outlines the whole document of frame f.
func (c *call) frameSnapshot(ctx context.Context, f *docFrame, interactive bool) (*Snapshot, error) {
	d, release, err := c.s.frameDoc(ctx, c.ctx, c.t, f)
	if err != nil {
		return nil, err
	}
	defer release()
	s, err := snapshotDoc(d, snapshotOptions{Interactive: interactive}, c.t.refBase(), f.key)
	if err != nil {
		return nil, err
	}
	c.t.noteRefs(s.Next)
	if s.Error != "" {
		return nil, errors.New(s.Error)
	}
	return s, nil
}

// dropFramePlaceholders removes the placeholders of frames nobody outlined.
func dropFramePlaceholders(lines []string) []string {
	return slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, "\x00") })
}

// format renders the snapshot from line from (1-based) within limit
// characters, ending with a note on how to read the rest when cut, worded
// for the model.
func (s *Snapshot) format(from, limit int) string { return s.render(from, limit, modelNotes) }

// snapshotNotes are the notes of a snapshot that say how to go on. cut
// takes the lines and refs left and the line to go on from.
type snapshotNotes struct{ empty, cut, tooLong string }

// modelNotes name the tools; personNotes the shell's commands.
var (
	modelNotes = snapshotNotes{
		empty:   "(the page shows no text or controls yet: it may still be loading; try browser_wait)\n",
		cut:     "[%d more lines (%d more refs): call browser_snapshot with from_line=%d for them, or with interactive=true or selector for less; browser_extract gives the text]\n",
		tooLong: "[the page has more than %d lines: use browser_snapshot with selector or interactive=true, or browser_extract]\n",
	}
	personNotes = snapshotNotes{
		empty:   "(the page shows no text or controls yet: it may still be loading; /snapshot again in a moment)\n",
		cut:     "[%d more lines (%d more refs): /call browser_snapshot {\"from_line\": %d} shows them, /snapshot -i only the controls, /snapshot CSS one part]\n",
		tooLong: "[the page has more than %d lines: /snapshot -i shows only the controls, /snapshot CSS one part]\n",
	}
)

// result is the snapshot as a tool result: the model's notes in Text, the
// person's in Display when the snapshot has one; the snapshot itself in
// Data.
func (s *Snapshot) result(from, limit int) *Result {
	r := &Result{Text: s.render(from, limit, modelNotes), Data: s}
	if p := s.render(from, limit, personNotes); p != r.Text {
		r.Display = p
	}
	return r
}

func (s *Snapshot) render(from, limit int, notes snapshotNotes) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Page: %s\nURL: %s\n", s.Title, s.URL)
	if from < 1 {
		from = 1
	}
	if len(s.Lines) == 0 {
		b.WriteString(notes.empty)
		return b.String()
	}
	if from > len(s.Lines) {
		fmt.Fprintf(&b, "(from_line %d is past the end: the snapshot has %d lines)\n", from, len(s.Lines))
		return b.String()
	}
	i := from - 1
	for ; i < len(s.Lines); i++ {
		if b.Len()+len(s.Lines[i]) > limit {
			break
		}
		b.WriteString(s.Lines[i])
		b.WriteByte('\n')
	}
	if i < len(s.Lines) {
		refs := 0
		for _, l := range s.Lines[i:] {
			refs += strings.Count(l, "ref=")
		}
		fmt.Fprintf(&b, notes.cut, len(s.Lines)-i, refs, i+1)
	} else if s.Truncated {
		fmt.Fprintf(&b, notes.tooLong, maxSnapshotLines)
	}
	return b.String()
}

// minSnapshotChars is the smallest max_chars honoured: the header and a
// few lines.
const minSnapshotChars = 500

type snapshotArgs struct {
	Selector    string `json:"selector,omitempty" jsonschema:"optional CSS selector to outline only that part"`
	Interactive bool   `json:"interactive,omitempty" jsonschema:"only the controls (refs) and headings, one line each: far smaller"`
	MaxChars    int    `json:"max_chars,omitempty" jsonschema:"optional cap on the outline's size; the rest is named with from_line to read on"`
	FromLine    int    `json:"from_line,omitempty" jsonschema:"optional line to start at, to read past a cut"`
	tabArg
}

func toolSnapshot(ctx context.Context, c *call, a snapshotArgs) (*Result, error) {
	if _, r, err := c.page(ctx); r != nil || err != nil {
		return r, err
	}
	o := snapshotOptions{Selector: a.Selector, Interactive: a.Interactive}
	s, err := c.snapshot(ctx, o)
	if err != nil {
		return jsFail(err)
	}
	if s.Error != "" {
		return failf("%s", s.Error), nil
	}
	c.t.setLastSnapshot(o, s)
	limit := c.b.opts.SnapshotLimit
	if a.MaxChars > 0 {
		limit = min(limit, max(a.MaxChars, minSnapshotChars))
	}
	return s.result(a.FromLine, limit), nil
}

// snapshotExpr is the expression that outlines a document (snapshotDoc).
func snapshotExpr(o snapshotOptions, base int, prefix string) string {
	return fmt.Sprintf("(function(){%s\nreturn (%s)(%s, %d, %d, %s, %v)})()", secretFieldJS, snapshotJS, jsArg(o.Selector), maxSnapshotLines, base, jsArg(prefix), o.Interactive)
}

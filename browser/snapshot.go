package browser

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed snapshot.js
var snapshotJS string

// maxSnapshotLines bounds the work done in the page for a huge document.
const maxSnapshotLines = 20000

// Snapshot is the outline of a page: one line per element that matters,
// interactive elements tagged with refs.
type Snapshot struct {
	Title     string   `json:"title"`
	URL       string   `json:"url"`
	Lines     []string `json:"lines"`
	Refs      int      `json:"refs"`
	Truncated bool     `json:"truncated"`
	Next      int      `json:"next"` // highest ref number handed out so far
	Error     string   `json:"error"`
}

// takeSnapshot outlines the page behind ctx (selector "" means the whole
// body).
func takeSnapshot(ctx context.Context, selector string, base int) (*Snapshot, error) {
	// The values of secret fields (passwords, card numbers, one-time
	// codes: secretFieldJS, the guard's one definition) show as ••••.
	expr := fmt.Sprintf("(function(){%s\nreturn (%s)(%s, %d, %d)})()", secretFieldJS, snapshotJS, jsArg(selector), maxSnapshotLines, base)
	s, err := eval[*Snapshot](ctx, expr)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("empty snapshot")
	}
	return s, nil
}

// format renders the snapshot from line from (1-based) within limit
// characters, ending with a note on how to read the rest when cut, worded
// for the model.
func (s *Snapshot) format(from, limit int) string { return s.render(from, limit, modelNotes) }

// snapshotNotes are the notes of a snapshot that say how to go on.
type snapshotNotes struct{ empty, cut, tooLong string }

// modelNotes name the tools; personNotes the shell's commands.
var (
	modelNotes = snapshotNotes{
		empty:   "(the page shows no text or controls yet: it may still be loading; try browser_wait)\n",
		cut:     "[snapshot cut at line %d of %d: call browser_snapshot with from_line=%d for more, or with selector to outline one part; browser_extract gives the text]\n",
		tooLong: "[the page has more than %d lines: use browser_snapshot with selector, or browser_extract]\n",
	}
	personNotes = snapshotNotes{
		empty:   "(the page shows no text or controls yet: it may still be loading; /snapshot again in a moment)\n",
		cut:     "[snapshot cut at line %d of %d: /call browser_snapshot {\"from_line\": %d} shows the rest, /snapshot CSS outlines one part]\n",
		tooLong: "[the page has more than %d lines: /snapshot CSS outlines one part]\n",
	}
)

// result is the snapshot as a tool result: the model's notes in Text, the
// person's in Display when the snapshot has one.
func (s *Snapshot) result(from, limit int) *Result {
	r := &Result{Text: s.render(from, limit, modelNotes)}
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
		fmt.Fprintf(&b, notes.cut, i, len(s.Lines), i+1)
	} else if s.Truncated {
		fmt.Fprintf(&b, notes.tooLong, maxSnapshotLines)
	}
	return b.String()
}

func toolSnapshot(ctx context.Context, c *call) (*Result, error) {
	pctx, r, err := c.page(ctx, c.a.Tab)
	if r != nil || err != nil {
		return r, err
	}
	s, err := takeSnapshot(pctx, c.a.Selector, c.t.refBase())
	if err != nil {
		return jsFail(err)
	}
	c.t.noteRefs(s.Next)
	if s.Error != "" {
		return failf("%s", s.Error), nil
	}
	return s.result(c.a.FromLine, c.b.opts.SnapshotLimit), nil
}

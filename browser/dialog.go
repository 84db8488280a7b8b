package browser

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// A JavaScript dialog (alert, confirm, prompt, beforeunload) pauses its
// page until someone answers it. browseragent answers none by itself: the
// call that opened one says so in its result, and browser_dialog answers
// it, judged by the guard like any write on that page (so on a sensitive
// page, and in a tab the person opened, the person is asked). Until then
// every other tool on that tab is refused with the same words, since the
// paused page would answer none of them.

// dialogOpened records the dialog the page opened.
func (t *tab) dialogOpened(e *page.EventJavascriptDialogOpening) {
	t.dmu.Lock()
	t.dialog = e
	t.dmu.Unlock()
}

// dialogClosed records that the tab's dialog was answered (by anyone).
func (t *tab) dialogClosed() {
	t.dmu.Lock()
	t.dialog = nil
	t.dmu.Unlock()
}

// dialogAnswered forgets dialog d once it was answered, unless the page
// has opened another since (a confirm after a confirm): the event that
// closed d came first and cleared it, and the new one must stay.
func (t *tab) dialogAnswered(d *page.EventJavascriptDialogOpening) {
	t.dmu.Lock()
	if t.dialog == d {
		t.dialog = nil
	}
	t.dmu.Unlock()
}

// openDialog returns the dialog open in the tab, nil when none.
func (t *tab) openDialog() *page.EventJavascriptDialogOpening {
	t.dmu.Lock()
	defer t.dmu.Unlock()
	return t.dialog
}

// DialogFrame is the frame whose dialog is open in the tab: its URL as the
// dialog reported it and the address its document came from when the tab
// saw it ("" unknown); ok is false when no dialog is open. Answering the
// dialog is a write on that frame, whatever page holds it, and the page the
// dialog paused cannot list its frames meanwhile.
func (b *Browser) DialogFrame(tabID string) (url, addr string, ok bool) {
	b.mu.Lock()
	s := b.s
	b.mu.Unlock()
	if s == nil || s.dead() {
		return "", "", false
	}
	t, err := s.lookup(tabID)
	if err != nil {
		return "", "", false
	}
	t.dmu.Lock()
	defer t.dmu.Unlock()
	if t.dialog == nil {
		return "", "", false
	}
	return t.dialog.URL, t.frameAddrs[t.dialog.FrameID], true
}

// How dialogNote tells the model to answer each kind of dialog, in
// browser_dialog's arguments; DialogAnswers rewords them for a person.
const (
	answerConfirm = "browser_dialog accept=true (OK) or accept=false (Cancel)"
	answerAlert   = "browser_dialog accept=true"
	answerPrompt  = "browser_dialog accept=true text=\"your answer\", or accept=false"
	answerLeave   = "browser_dialog accept=true (leave the page) or accept=false (stay)"
)

// DialogAnswers rewords dialogNote's advice for a person who answers with
// the commands accept and dismiss (the shell's /dialog accept, the command
// line's browser dialog accept): the one place that knows its words.
func DialogAnswers(accept, dismiss string) *strings.Replacer {
	return strings.NewReplacer(
		answerConfirm, accept+" (OK) or "+dismiss+" (Cancel)",
		answerPrompt, accept+` "your answer", or `+dismiss,
		answerLeave, accept+" (leave the page) or "+dismiss+" (stay)",
		answerAlert, accept,
	)
}

// dialogNote says which dialog is open in tab t and how to answer it.
func dialogNote(t *tab, d *page.EventJavascriptDialogOpening, persons bool) string {
	how := answerConfirm
	switch d.Type {
	case page.DialogTypeAlert:
		how = answerAlert
	case page.DialogTypePrompt:
		how = answerPrompt
	case page.DialogTypeBeforeunload:
		how = answerLeave
	}
	a := "A"
	if d.Type == page.DialogTypeAlert {
		a = "An"
	}
	s := fmt.Sprintf("%s %s dialog is open in tab %s: %q. The page is paused until it is answered: %s.", a, d.Type, t.short, d.Message, how)
	if persons {
		s += " It is in a tab the person opened: browser_dialog there asks them first (unless they always allow it)."
	}
	return s
}

// dialogRefusal is the failure of a call made on a tab whose page is
// paused by a dialog.
func (c *call) dialogRefusal(d *page.EventJavascriptDialogOpening) *Result {
	return failf("nothing was done: %s", dialogNote(c.t, d, c.persons()))
}

// persons reports whether the call's tab is one the person opened
// (shared mode).
func (c *call) persons() bool {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return c.s.mode == ModeShared && !c.t.owned
}

type dialogArgs struct {
	Accept *bool  `json:"accept" jsonschema:"OK or Cancel"`
	Text   string `json:"text,omitempty" jsonschema:"a prompt's answer"`
	tabArg
}

// toolDialog answers the dialog open in the tab.
func toolDialog(ctx context.Context, c *call, a dialogArgs) (*Result, error) {
	pctx, r, err := c.page(ctx)
	if r != nil || err != nil {
		return r, err
	}
	d := c.t.openDialog()
	if d == nil {
		return failf("no dialog is open in tab %s", c.t.short), nil
	}
	if a.Accept == nil {
		return failf("browser_dialog needs accept: true (OK) or false (Cancel)"), nil
	}
	accept := *a.Accept
	params := page.HandleJavaScriptDialogParams{Accept: accept}
	text := ""
	if accept && d.Type == page.DialogTypePrompt {
		text = cmp.Or(a.Text, d.DefaultPrompt)
		params.PromptText = text
	} else if a.Text != "" && d.Type != page.DialogTypePrompt {
		return failf("text answers a prompt; this is a %s dialog: answer it with accept only", d.Type), nil
	}
	closed, stop := c.t.events.watch(is[*page.EventJavascriptDialogClosed])
	defer stop()
	before := c.beforeAction()
	// Leaving a page goes on with a navigation asked for before this call:
	// the answer waits for its new document as for one the action began.
	before.leaving = accept && d.Type == page.DialogTypeBeforeunload
	if _, err := chromedp.Call(pctx, page.HandleJavaScriptDialog, params); err != nil {
		return failf("could not answer the %s dialog: %v", d.Type, err), nil
	}
	if waitEvent(pctx, closed, 2*time.Second) != nil {
		// The event also does this (the next call must not wait for it),
		// but the page may have opened its next dialog already.
		c.t.dialogAnswered(d)
	}
	verb := fmt.Sprintf("Dismissed the %s %q; now in", d.Type, d.Message)
	switch {
	case accept && d.Type == page.DialogTypePrompt:
		verb = fmt.Sprintf("Answered the prompt %q with %q; now in", d.Message, text)
	case accept:
		verb = fmt.Sprintf("Accepted the %s %q; now in", d.Type, d.Message)
	}
	return c.afterAction(pctx, before, verb)
}

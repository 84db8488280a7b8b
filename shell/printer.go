package shell

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	prompt "github.com/c-bata/go-prompt"
	runewidth "github.com/mattn/go-runewidth"
)

// printer is the one way anything reaches the terminal. Output from other
// goroutines (MCP servers coming up, resources updated) would clobber the
// prompt go-prompt draws, so while a line is being read such output is
// queued and drawn above the prompt by the prompt goroutine itself (through
// an injected redraw key), after which go-prompt redraws the line. While a
// command runs, it is written at once, clearing the spinner first.
//
// All fields are guarded by mu.
type printer struct {
	mu    sync.Mutex
	out   io.Writer
	errw  io.Writer
	tty   bool
	color bool

	promptActive   bool
	inject         func() bool // asks the prompt goroutine to call drawAbove
	pending        []string    // notices waiting to be drawn above the prompt
	status         string      // the MCP status line
	statusDirty    bool        // status changed since it was last drawn
	statusOnScreen bool        // the line right above the prompt is the status line

	midLine bool // streamed text did not end with a newline
	spin    *spinState
	held    bool // a question is on screen: the spinner must not draw over it
}

func newPrinter(out, errw io.Writer, tty bool) *printer {
	return &printer{out: out, errw: errw, tty: tty, color: tty && colorAllowed()}
}

// colorAllowed honours NO_COLOR (https://no-color.org) and dumb terminals.
func colorAllowed() bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	return os.Getenv("TERM") != "dumb"
}

const (
	ansiRed   = "\x1b[31m"
	ansiDim   = "\x1b[2m"
	ansiBold  = "\x1b[1m"
	ansiGreen = "\x1b[32m"
	ansiReset = "\x1b[0m"
)

func (p *printer) paint(code, s string) string {
	if !p.color || s == "" {
		return s
	}
	return code + s + ansiReset
}

// Line prints one line of ordinary output.
func (p *printer) Line(format string, a ...any) {
	p.write(p.out, fmt.Sprintf(format, a...)+"\n")
}

// Text prints a block of output, adding the final newline if missing.
func (p *printer) Text(s string) {
	if s == "" {
		return
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	p.write(p.out, s)
}

// Error prints an error line, red on a colour terminal.
func (p *printer) Error(format string, a ...any) {
	p.write(p.errw, p.paint(ansiRed, "error: "+fmt.Sprintf(format, a...))+"\n")
}

// Hint prints a dim line: how to do what was asked.
func (p *printer) Hint(format string, a ...any) {
	p.write(p.out, p.paint(ansiDim, fmt.Sprintf(format, a...))+"\n")
}

// ErrHint prints a dim line under an error, on the error stream.
func (p *printer) ErrHint(format string, a ...any) {
	p.write(p.errw, p.paint(ansiDim, fmt.Sprintf(format, a...))+"\n")
}

// Stream prints a fragment of streamed text as it comes.
func (p *printer) Stream(s string) {
	if s == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearSpinner()
	io.WriteString(p.out, s)
	p.midLine = !strings.HasSuffix(s, "\n")
}

// EndStream ends streamed text with a newline when needed.
func (p *printer) EndStream() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.midLine {
		io.WriteString(p.out, "\n")
		p.midLine = false
	}
}

func (p *printer) write(w io.Writer, s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearSpinner()
	if p.midLine {
		io.WriteString(p.out, "\n")
		p.midLine = false
	}
	io.WriteString(w, s)
}

// Notice prints background news without breaking the prompt. Off a
// terminal it goes to stderr, so a script's stdout stays deterministic.
func (p *printer) Notice(s string) {
	p.mu.Lock()
	if !p.tty {
		p.mu.Unlock()
		fmt.Fprintln(p.errw, s)
		return
	}
	if p.promptActive {
		p.pending = append(p.pending, s)
		p.mu.Unlock()
		p.inject()
		return
	}
	p.mu.Unlock()
	p.write(p.out, p.paint(ansiDim, s)+"\n")
}

// Status replaces the one-line MCP status shown above the prompt.
func (p *printer) Status(s string) {
	p.mu.Lock()
	if !p.tty || s == p.status {
		p.mu.Unlock()
		return
	}
	p.status, p.statusDirty = s, true
	active := p.promptActive
	p.mu.Unlock()
	if active {
		p.inject()
	}
}

// setPromptActive tells the printer whether go-prompt owns the screen.
func (p *printer) setPromptActive(on bool) {
	p.mu.Lock()
	p.promptActive = on
	need := len(p.pending) > 0 || p.statusDirty
	var flush []string
	if !on {
		flush, p.pending = p.pending, nil
		p.statusOnScreen = false
	}
	p.mu.Unlock()
	if on && need {
		p.inject()
	}
	for _, s := range flush {
		p.write(p.out, p.paint(ansiDim, s)+"\n")
	}
}

// drawAbove runs on the prompt goroutine (bound to redrawKey): it erases the
// prompt go-prompt drew, prints what is queued, and leaves the cursor where
// go-prompt's next Render expects its previous cursor, so the redraw lands
// right below the new lines. The terminal is in raw mode: lines end in \r\n.
func (p *printer) drawAbove(buf *prompt.Buffer, prefix string, cols int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	notices := p.pending
	p.pending = nil
	status := ""
	if p.statusDirty {
		status, p.statusDirty = p.status, false
	}
	if len(notices) == 0 && status == "" {
		return
	}
	if cols <= 0 {
		cols = 80
	}
	pos := runewidth.StringWidth(prefix) + runewidth.StringWidth(buf.Document().TextBeforeCursor())
	row := pos / cols
	up := row
	if len(notices) == 0 && p.statusOnScreen {
		up++ // overwrite the previous status line in place
	}
	var b strings.Builder
	if up > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", up)
	}
	b.WriteString("\r\x1b[J")
	for _, l := range notices {
		b.WriteString(p.paint(ansiDim, strings.ReplaceAll(l, "\n", "\r\n")) + "\r\n")
	}
	if status != "" {
		b.WriteString(p.paint(ansiDim, status) + "\r\n")
	}
	b.WriteString(strings.Repeat("\r\n", row))
	p.statusOnScreen = status != ""
	io.WriteString(p.out, b.String())
}

// clearScreen wipes the terminal, as `clear` does: the screen and, with
// scrollback, the lines scrolled off it; the prompt then draws at the top.
func (p *printer) clearScreen(scrollback bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seq := "\x1b[H\x1b[2J"
	if scrollback {
		seq += "\x1b[3J"
	}
	io.WriteString(p.out, seq)
	p.statusOnScreen = false
}

// screenCleared notes that go-prompt cleared the screen (Ctrl-L): the
// status line is gone with everything else, so the next one is drawn
// anew instead of over the line above the prompt.
func (p *printer) screenCleared() {
	p.mu.Lock()
	p.statusOnScreen = false
	p.mu.Unlock()
}

// spinState is the spinner shown while a command or turn runs.
type spinState struct {
	label   string
	start   time.Time
	visible bool
	stop    chan struct{}
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// SpinStart shows a spinner with label and the elapsed time, after a short
// delay so fast commands do not flicker. Off a terminal it does nothing.
func (p *printer) SpinStart(label string) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spin != nil {
		p.spin.label = label
		return
	}
	s := &spinState{label: label, start: time.Now(), stop: make(chan struct{})}
	p.spin = s
	go p.spinLoop(s)
}

// SpinLabel changes what the spinner says (progress messages).
func (p *printer) SpinLabel(label string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spin != nil {
		p.spin.label = label
	}
}

// SpinStop removes the spinner.
func (p *printer) SpinStop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spin == nil {
		return
	}
	p.clearSpinner()
	close(p.spin.stop)
	p.spin = nil
}

func (p *printer) spinLoop(s *spinState) {
	delay := time.NewTimer(300 * time.Millisecond)
	select {
	case <-s.stop:
		delay.Stop()
		return
	case <-delay.C:
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		p.mu.Lock()
		if p.spin == s && !p.midLine && !p.held {
			el := time.Since(s.start).Truncate(100 * time.Millisecond)
			io.WriteString(p.out, "\r\x1b[2K"+spinFrames[i%len(spinFrames)]+" "+s.label+" "+p.paint(ansiDim, el.String()))
			s.visible = true
		}
		p.mu.Unlock()
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

// clearSpinner erases the spinner line; callers hold mu.
func (p *printer) clearSpinner() {
	if p.spin != nil && p.spin.visible {
		io.WriteString(p.out, "\r\x1b[2K")
		p.spin.visible = false
	}
}

// Hold keeps the spinner off the screen while a question waits for an
// answer (a parallel tool call may start one meanwhile).
func (p *printer) Hold(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearSpinner()
	p.held = on
}

// Prompt prints a question without a newline.
func (p *printer) Prompt(q string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearSpinner()
	io.WriteString(p.out, q)
}

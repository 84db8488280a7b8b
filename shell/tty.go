package shell

import (
	"errors"
	"io"
	"sync"
	"syscall"

	prompt "github.com/c-bata/go-prompt"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// go-prompt v0.2.6 keeps its own copy of the terminal state and never
// restores it on a panic or a signal (go-prompt#228). ttyParser replaces its
// console parser: the terminal state saved with x/term when the shell starts
// is the one put back after every line, before every command, on exit, on
// panic and on SIGTERM.

// Injected tokens: go-prompt sees them as keys. redrawKey is bound to the
// printer (prints background events above the prompt, then go-prompt
// redraws); quitKey is a key go-prompt ignores but that runs the exit
// checker, which ends Input when the shell is stopping.
var (
	redrawKey = []byte("\x1b[9999~")
	quitKey   = []byte{0x1b, '[', 'E'}
)

var errNoInput = errors.New("no input")

// ttyParser implements prompt.ConsoleParser on a terminal file descriptor.
// Read is called by go-prompt's reader goroutine, inject by others: mu
// guards everything.
type ttyParser struct {
	fd   int
	orig *term.State // the state the person had: restored after every line
	out  io.Writer   // for the bracketed-paste switch

	mu       sync.Mutex
	keys     keyReader
	injected [][]byte
	gated    bool // Enter was handed out: no more keys until the next Setup
	intr     bool // Ctrl-C was typed after Enter, before the terminal left raw mode
	lastEOF  bool // the last key handed out was Ctrl-D
}

func newTTYParser(fd int, orig *term.State, out io.Writer, pastes *pasteStore) *ttyParser {
	return &ttyParser{fd: fd, orig: orig, out: out, keys: keyReader{pastes: pastes}}
}

// Setup puts the terminal in raw, non-blocking mode for one line of input.
func (t *ttyParser) Setup() error {
	t.mu.Lock()
	t.gated, t.lastEOF = false, false
	t.mu.Unlock()
	if err := setRaw(t.fd); err != nil {
		return err
	}
	io.WriteString(t.out, "\x1b[?2004h") // bracketed paste on
	return syscall.SetNonblock(t.fd, true)
}

// TearDown puts the terminal back as the person had it. Keys typed after
// Enter while the terminal was still raw are kept for the next line; a
// Ctrl-C among them would otherwise be lost as a plain byte (it only
// becomes SIGINT in cooked mode), so it is remembered, and it discards the
// type-ahead before it as a terminal's interrupt does.
func (t *ttyParser) TearDown() error {
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(t.fd, buf)
		if n <= 0 || err != nil {
			break
		}
		t.mu.Lock()
		t.keys.feed(buf[:n])
		t.mu.Unlock()
	}
	t.mu.Lock()
	for i := len(t.keys.queue) - 1; i >= 0; i-- {
		if tok := t.keys.queue[i]; len(tok) == 1 && tok[0] == 0x03 {
			t.keys.queue = t.keys.queue[i+1:]
			t.intr = true
			break
		}
	}
	t.mu.Unlock()
	return t.restore()
}

// takeInterrupt reports (once) a Ctrl-C typed right after Enter.
func (t *ttyParser) takeInterrupt() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := t.intr
	t.intr = false
	return i
}

func (t *ttyParser) restore() error {
	io.WriteString(t.out, "\x1b[?2004l")
	err := syscall.SetNonblock(t.fd, false)
	if rerr := term.Restore(t.fd, t.orig); rerr != nil {
		return rerr
	}
	return err
}

// GetWinSize never panics (go-prompt's does when the ioctl fails).
func (t *ttyParser) GetWinSize() *prompt.WinSize {
	ws, err := unix.IoctlGetWinsize(t.fd, unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 || ws.Row == 0 {
		return &prompt.WinSize{Row: 24, Col: 80}
	}
	return &prompt.WinSize{Row: ws.Row, Col: ws.Col}
}

func (t *ttyParser) cols() int { return int(t.GetWinSize().Col) }

// Read hands go-prompt one token: injected ones first, then keys. The
// terminal read happens without the lock, so inject never waits on it.
func (t *ttyParser) Read() ([]byte, error) {
	if tok, ok := t.take(); ok {
		return tok, nil
	}
	if t.isGated() {
		return nil, errNoInput
	}
	buf := make([]byte, 4096)
	n, err := syscall.Read(t.fd, buf)
	if n <= 0 || err != nil {
		return nil, errNoInput
	}
	t.mu.Lock()
	t.keys.feed(buf[:n])
	t.mu.Unlock()
	if tok, ok := t.take(); ok {
		return tok, nil
	}
	return nil, errNoInput
}

func (t *ttyParser) isGated() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gated
}

// take pops an injected token or a decoded key, unless Enter was handed
// out already for this line.
func (t *ttyParser) take() ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gated {
		return nil, false
	}
	if len(t.injected) > 0 {
		tok := t.injected[0]
		t.injected = t.injected[1:]
		return tok, true
	}
	tok, ok := t.keys.next()
	if !ok {
		return nil, false
	}
	t.lastEOF = len(tok) == 1 && tok[0] == 0x04
	if len(tok) == 1 && (tok[0] == '\r' || tok[0] == '\n') {
		t.gated = true // what follows belongs to the next line
	}
	return tok, true
}

// inject queues a synthetic key for the line being read, or the next one.
func (t *ttyParser) inject(tok []byte) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, q := range t.injected {
		if string(q) == string(tok) {
			return true
		}
	}
	t.injected = append(t.injected, tok)
	return true
}

// setRaw is go-prompt's raw mode: no echo, no line editing, no signals from
// keys (Ctrl-C arrives as a key and clears the line), but output processing
// stays on, because go-prompt writes bare "\n" (x/term's MakeRaw turns it off).
func setRaw(fd int) error {
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return err
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Lflag &^= unix.ECHO | unix.ICANON | unix.IEXTEN | unix.ISIG | unix.ECHONL
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	return unix.IoctlSetTermios(fd, ioctlSetTermios, t)
}

// sawEOF reports whether the line just read ended with Ctrl-D.
func (t *ttyParser) sawEOF() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastEOF
}

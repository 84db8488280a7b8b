package shell

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/mcpclient"
)

// Options configures the shell. Nil dependencies disable the commands that
// need them; those commands then say how to enable them.
type Options struct {
	Stdin          io.Reader // a terminal gets the prompt; anything else is read line by line
	Stdout, Stderr io.Writer

	Tools   Tools     // the one tool-call path (the agent's registry); required
	Agent   Agent     // nil: no LLM configured
	Browser Browser   // nil: no browser
	Tabs    TabLister // for completing /tab N; may be nil
	MCP     MCP       // nil: MCP disabled (--no-mcp)
	Guard   Guard     // nil: /trust, /sites, /audit unavailable

	// NewAgent makes the agent for settings /provider NAME chose when the
	// session has none yet; nil: /provider then says how to configure one.
	NewAgent func(agent.Settings) (Agent, error)
	// ConfigPath is the config file /provider reads and /model --save and
	// /provider --save write; "" means agent.ConfigPath.
	ConfigPath string

	// NoLLMReason says why Agent is nil (agent.Settings.Why()); it is
	// printed with the hint on how to configure a model.
	NoLLMReason string

	// Connect, when set, attaches to the person's Chrome at start (--connect):
	// as /connect with these flags. A failure is printed; the shell still starts.
	Connect *browser.Target

	// Yes approves calls on ordinary pages once without asking (--yes);
	// sensitive pages still ask.
	Yes bool

	// HistoryFile is where typed lines are kept; "" means
	// $XDG_STATE_HOME/browseragent/history, "-" means no history.
	HistoryFile string
	// MCPWait bounds how long a script (input that is not a terminal)
	// waits for the MCP servers to start before its first line; 0 means
	// DefaultMCPWait. The terminal prompt never waits.
	MCPWait time.Duration

	// ScreenshotDir is where images of tool results (/call, /screenshot
	// without FILE) are saved; "" means defaultScreenshotDir().
	ScreenshotDir string

	// Hooks are the ones the session was built with (its approver, MCP
	// event sink, host callbacks, notices); New binds them to the shell.
	// Nil: the shell has hooks of its own, which nothing else reaches.
	Hooks *Hooks
}

// Shell is one interactive session. The rest of the program reaches it
// only through its Hooks, from any goroutine.
type Shell struct {
	opts   *Options
	hooks  *Hooks
	p      *printer
	tty    *ttyParser  // nil off a terminal
	pastes *pasteStore // multi-line pastes behind placeholders
	lines  chan string // non-terminal input, shared by the loop and approvals
	events chan mcpclient.Event
	// updates counts resource updates so a flood is a line per window.
	updates *updateCoalescer

	mu      sync.Mutex
	cancel  context.CancelFunc // cancels the running command or turn
	running context.Context    // the running command's context; nil between commands
	// idleInterrupt is what Ctrl-C does with nothing running: off a
	// terminal it ends the script; at the prompt it is only a key.
	idleInterrupt context.CancelFunc
	exiting       bool

	// unreadLine is, off a terminal, a script line an approval read but
	// could not take as its answer: the script's next command.
	unreadLine *string

	// ran and failed count the commands execute ran; off a terminal they
	// are Run's result. Only the goroutine running the loop touches them.
	ran, failed int
}

// New makes a shell from complete options, and binds opts.Hooks to it:
// build the hooks first, the session with them, then the shell.
func New(opts *Options) *Shell {
	if opts == nil {
		opts = &Options{}
	}
	h := opts.Hooks
	if h == nil {
		h = &Hooks{}
	}
	s := &Shell{opts: opts, hooks: h, pastes: &pasteStore{}, events: make(chan mcpclient.Event, 256), updates: newUpdateCoalescer()}
	h.bind(s)
	return s
}

// Run runs the shell until /exit, Ctrl-D, end of input or ctx is done. The
// terminal is left as it was found, whatever happens. Its hooks deliver
// while it runs.
func (s *Shell) Run(ctx context.Context) error {
	defer s.hooks.end()
	o := s.opts
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Tools == nil {
		return errors.New("shell: no tools: Options.Tools is required")
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if fd, ok := terminalFD(o.Stdin, o.Stdout); ok {
		return s.runTTY(ctx, fd)
	}
	s.p = newPrinter(o.Stdout, o.Stderr, false)
	return s.runLines(ctx)
}

// terminalFD says whether in and out are both terminals.
func terminalFD(in io.Reader, out io.Writer) (int, bool) {
	fi, ok := in.(*os.File)
	if !ok || !term.IsTerminal(int(fi.Fd())) {
		return 0, false
	}
	fo, ok := out.(*os.File)
	if !ok || !term.IsTerminal(int(fo.Fd())) {
		return 0, false
	}
	return int(fi.Fd()), true
}

// scriptError is what Run returns off a terminal when commands of the
// script failed (an unknown command, an error result, a refused or
// cancelled call). The script still ran to its end, like sh without -e;
// the caller exits non-zero. A terminal session never returns it.
type scriptError struct {
	Failed, Ran int
}

func (e *scriptError) Error() string {
	return fmt.Sprintf("%d of %s failed", e.Failed, plural(e.Ran, "command"))
}

// runLines is the non-terminal path: same commands, same output, no prompt.
// Ctrl-C cancels the running command; between commands it stops the
// script (there is no prompt to come back to).
func (s *Shell) runLines(ctx context.Context) error {
	s.lines = make(chan string)
	done := make(chan struct{})
	defer close(done)
	go readLines(s.opts.Stdin, s.lines, done)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s.mu.Lock()
	s.idleInterrupt = stop
	s.mu.Unlock()
	stopSig := s.watchSignals(ctx)
	defer stopSig()
	go s.pumpEvents(ctx)
	s.hooks.open(ctx)
	s.startup(ctx)
	waited := false
	for !s.isExiting() {
		line, err := s.nextLine(ctx)
		if err != nil {
			break
		}
		if !waited && strings.TrimSpace(line) != "" {
			waited = true
			if s.waitMCP(ctx) != nil {
				break // Ctrl-C while waiting ends the script
			}
		}
		s.execute(ctx, line)
	}
	if s.failed > 0 {
		return &scriptError{Failed: s.failed, Ran: s.ran}
	}
	return nil
}

// DefaultMCPWait is how long a script waits for MCP servers to start
// (--mcp-wait); `browseragent run` waits only when given --mcp-wait.
const DefaultMCPWait = 30 * time.Second

// waitMCP waits, up to Options.MCPWait, until no MCP server is starting, so
// a script's /call and its tasks find every server's tools. A server still
// starting after that is named, and the script goes on without it. It
// fails only when ctx ends.
func (s *Shell) waitMCP(ctx context.Context) error {
	if s.opts.MCP == nil {
		return nil
	}
	d := s.mcpWait()
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := s.opts.MCP.WaitAll(wctx) // a failed server is reported by its event
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil {
		return nil
	}
	for _, st := range s.opts.MCP.Status() {
		if st.State == mcpclient.StateStarting {
			s.goingOnWithout(st.Name, d)
		}
	}
	return nil
}

// mcpWait is how long a script waits for MCP servers: Options.MCPWait,
// or DefaultMCPWait.
func (s *Shell) mcpWait() time.Duration {
	if s.opts.MCPWait > 0 {
		return s.opts.MCPWait
	}
	return DefaultMCPWait
}

// goingOnWithout says that the script goes on without server name, still
// starting after waiting d for it.
func (s *Shell) goingOnWithout(name string, d time.Duration) {
	s.p.ErrHint("mcp %s: still starting after %s: going on without it (/mcp logs %s)", name, d, name)
}

// nextLine is the script's next line: first one an approval put back
// (unread), then the input's. It fails with io.EOF at the end of input
// and with ctx's error when ctx ends.
func (s *Shell) nextLine(ctx context.Context) (string, error) {
	s.mu.Lock()
	l := s.unreadLine
	s.unreadLine = nil
	s.mu.Unlock()
	if l != nil {
		return *l, nil
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case line, ok := <-s.lines:
		if !ok {
			return "", io.EOF
		}
		return line, nil
	}
}

// unread puts line back, to be the script's next line again.
func (s *Shell) unread(line string) {
	s.mu.Lock()
	s.unreadLine = &line
	s.mu.Unlock()
}

// readLines sends every line of r on ch until r ends or done is closed,
// then closes ch.
func readLines(r io.Reader, ch chan<- string, done <-chan struct{}) {
	defer close(ch)
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			select {
			case ch <- strings.TrimRight(line, "\r\n"):
			case <-done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// watchSignals makes SIGINT cancel the running command or turn, never the
// shell. It returns the function that stops watching.
func (s *Shell) watchSignals(ctx context.Context) func() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sig:
				s.interrupt()
			}
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// interrupt cancels what is running, if anything.
func (s *Shell) interrupt() {
	s.mu.Lock()
	cancel, idle := s.cancel, s.idleInterrupt
	s.mu.Unlock()
	switch {
	case cancel != nil:
		cancel()
	case idle != nil:
		idle()
	}
}

func (s *Shell) isExiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exiting
}

func (s *Shell) setExiting() {
	s.mu.Lock()
	s.exiting = true
	s.mu.Unlock()
}

// execute runs one submitted line: a /command or a message to the agent.
// It counts the commands that ran and failed.
func (s *Shell) execute(ctx context.Context, line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	s.ran++
	if err := s.runAsCommand(ctx, func(ctx context.Context) error { return s.dispatch(ctx, line) }); err != nil {
		s.failed++
	}
}

// runAsCommand runs fn as the one running command: Ctrl-C cancels it, its
// error is printed with its hint and returned.
func (s *Shell) runAsCommand(ctx context.Context, fn func(context.Context) error) error {
	cctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancel, s.running = cancel, cctx
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel, s.running = nil, nil
		s.mu.Unlock()
		cancel()
		s.p.SpinStop()
		s.p.EndStream()
	}()
	err := fn(cctx)
	cancel()
	s.waitForms()
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled) && ctx.Err() == nil:
		s.p.SpinStop()
		s.p.Hint("cancelled")
	default:
		s.p.SpinStop()
		s.p.Error("%s", words.Error(err)) // never Go's own wording
		var h hinted
		if errors.As(err, &h) {
			s.p.ErrHint("%s", h.Hint())
		}
	}
	return err
}

// startup does what the start flags ask (--connect), like the commands.
func (s *Shell) startup(ctx context.Context) {
	if t := s.opts.Connect; t != nil {
		_ = s.runAsCommand(ctx, func(ctx context.Context) error { // printed; the shell starts anyway
			return cmdConnect(ctx, s, &call{name: "connect", flags: map[string]string{
				"user-data-dir": t.UserDataDir, "browser-url": t.BrowserURL, "ws-endpoint": t.WSEndpoint}})
		})
	}
}

// hinted is an error that knows what the person can do about it.
type hinted interface{ Hint() string }

// hintError is an error with a hint printed under it.
type hintError struct {
	msg, hint string
}

func (e *hintError) Error() string { return e.msg }
func (e *hintError) Hint() string  { return e.hint }

// mcpEvent queues one of the MCP manager's events (Hooks.MCPEvent) for
// pumpEvents. It never blocks: when the shell falls behind, events are
// dropped, and the next one redraws the status from the manager's current
// state anyway.
func (s *Shell) mcpEvent(ev mcpclient.Event) {
	if s.counted(ev) {
		return
	}
	select {
	case s.events <- ev:
	default:
	}
}

// counted says whether ev is a resource update only counted: the line of
// its window says how many came.
func (s *Shell) counted(ev mcpclient.Event) bool {
	return ev.Kind == mcpclient.EventResourceUpdated && !s.updates.add(ev.Server, ev.URI)
}

// pumpEvents prints background events until ctx is done.
func (s *Shell) pumpEvents(ctx context.Context) {
	defer s.updates.stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-s.events:
			s.background(ctx, ev)
		case note := <-s.updates.notes:
			s.p.Notice(note)
		}
	}
}

// background handles one MCP event: the status line follows server states,
// notices say what a person would want to know.
func (s *Shell) background(ctx context.Context, ev mcpclient.Event) {
	switch ev.Kind {
	case mcpclient.EventState:
		s.p.Status(s.statusLine())
		if ev.State == mcpclient.StateError && ev.Err != nil {
			s.p.Notice(fmt.Sprintf("mcp %s: %s (/mcp logs %s)", ev.Server, words.Error(ev.Err), ev.Server))
		}
	case mcpclient.EventResourceUpdated:
		s.p.Notice(fmt.Sprintf("mcp %s: resource updated: %s", ev.Server, ev.URI))
	}
}

// statusLine is the one-line MCP summary: "mcp: chrome-devtools ✓ 32 tools · git … starting".
func (s *Shell) statusLine() string {
	if s.opts.MCP == nil {
		return ""
	}
	var parts []string
	for _, st := range s.opts.MCP.Status() {
		parts = append(parts, serverSummary(st))
	}
	if len(parts) == 0 {
		return ""
	}
	return "mcp: " + strings.Join(parts, " · ")
}

func serverSummary(st mcpclient.Status) string {
	switch st.State {
	case mcpclient.StateReady:
		if st.Reconnecting > 0 {
			return st.Name + " ⟳ " + st.StateText()
		}
		return st.Name + " ✓ " + plural(st.Tools, "tool")
	case mcpclient.StateStarting:
		return st.Name + " … starting"
	case mcpclient.StateError:
		if st.Err != nil && strings.HasPrefix(st.Err.Error(), "unavailable") {
			return st.Name + " ✗ unavailable"
		}
		return st.Name + " ✗ error"
	case mcpclient.StateIdle:
		return st.Name + " · on first use"
	}
	return st.Name + " " + st.State.String()
}

// termSignals end the shell (after the terminal is restored).
var termSignals = []os.Signal{syscall.SIGTERM, syscall.SIGHUP}

// notice prints a one-line message from the background above the prompt,
// without clobbering what the person is typing (Hooks.Notice).
func (s *Shell) notice(text string) {
	s.p.Notice(text)
}

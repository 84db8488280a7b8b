package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/browseragent/browseragent/browsercli/early"
)

// ClientOptions configure Do.
type ClientOptions struct {
	// Session names the session (DefaultSession when "").
	Session string
	// Daemon is the command line that starts the session's daemon when
	// none runs: the binary, then its arguments. Its output goes to the
	// session's log file.
	Daemon []string
	// Ask puts an approval question to the person at the terminal and
	// returns "once", "always" or "deny"; nil when there is no terminal
	// (the call is then parked for `browser confirm`).
	Ask func(ctx context.Context, q Ask) (string, error)
}

// startTimeout bounds a daemon's start (rules, the socket; the browser
// starts on its first use).
const startTimeout = 30 * time.Second

// Do runs req in its session's daemon, starting the daemon first when it
// is not running. A daemon found dead is reported (ExitLost) and replaced
// by a fresh one, and req is not run: its tabs and refs are gone.
func Do(ctx context.Context, req *Request, o *ClientOptions) (*Response, error) {
	p, err := PathsOf(sessionOf(o))
	if err != nil {
		return nil, err
	}
	req.Ask = o.Ask != nil
	if err := absPaths(req); err != nil {
		return nil, err
	}
	conn, lost, err := connect(ctx, p, o, req.Command)
	if err != nil {
		return nil, err
	}
	if conn == nil {
		return &Response{Exit: ExitOK, Text: fmt.Sprintf("Session %s is not running.", p.Name), Data: map[string]any{"session": p.Name, "running": false}}, nil
	}
	defer conn.Close()
	if lost != "" {
		return &Response{Exit: ExitLost, Error: lost, Data: map[string]any{"session": p.Name}}, nil
	}
	context.AfterFunc(ctx, func() { conn.Close() })
	resp, err := exchange(ctx, NewWire(conn), req, o)
	if errors.Is(err, errWithdrawn) {
		return &Response{Exit: ExitLost, Error: err.Error(), Data: map[string]any{"session": p.Name}}, nil
	}
	if errors.Is(err, errGone) {
		return gone(ctx, p, o)
	}
	return resp, err
}

// gone is what a command says when the session's daemon closed its
// connection without an answer: gone during the command, or died as it
// came, which is reported as on the next command, and the fresh one
// started.
func gone(ctx context.Context, p Paths, o *ClientOptions) (*Response, error) {
	if !dead(p) {
		return &Response{Exit: ExitLost, Error: "the session's daemon went away during the command (see `browseragent browser sessions`); the next command starts a fresh one"}, nil
	}
	lost := diedMessage(p)
	p.RemoveFiles()
	if err := startDaemon(ctx, p, o.Daemon); err != nil {
		return nil, err
	}
	return &Response{Exit: ExitLost, Error: lost, Data: map[string]any{"session": p.Name}}, nil
}

// dead reports whether the session's daemon is gone, giving a dying one
// a moment to let go of its lock.
func dead(p Paths) bool {
	for range 50 {
		if !p.Running() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func diedMessage(p Paths) string {
	pid := "?"
	if st, err := readState(p); err == nil {
		pid = fmt.Sprint(st.PID)
	}
	return fmt.Sprintf("session %s had ended unexpectedly (its daemon, pid %s, died): started a fresh one; run the command again (its tabs and refs are gone)", p.Name, pid)
}

func sessionOf(o *ClientOptions) string {
	if o.Session != "" {
		return o.Session
	}
	return DefaultSession
}

// needsNoDaemon are the commands that are answered "not running" rather
// than starting a session for nothing.
var needsNoDaemon = map[string]bool{"confirm": true, "deny": true, "pending": true, "shutdown": true}

// connect dials the session's socket, starting its daemon when none holds
// the session's lock. lost says a daemon had died (its state file stayed).
func connect(ctx context.Context, p Paths, o *ClientOptions, command string) (conn io.ReadWriteCloser, lost string, err error) {
	if c, err := dial(p); err == nil {
		return c, "", nil
	}
	if p.Running() {
		// Starting, or busy accepting: wait for its socket. A daemon
		// that is ending (another build's, `close`) lets go of the lock
		// with no socket: then a fresh one starts.
		c, err := waitDial(ctx, p, startTimeout)
		if !errors.Is(err, errEnded) {
			return c, "", err
		}
	}
	if _, err := readState(p); err == nil {
		lost = diedMessage(p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	p.RemoveFiles()
	if needsNoDaemon[command] && lost == "" {
		return nil, "", nil
	}
	if err := startDaemon(ctx, p, o.Daemon); err != nil {
		return nil, "", err
	}
	c, err := waitDial(ctx, p, startTimeout)
	return c, lost, err
}

// errEnded is waitDial's answer when the session's daemon let go of its
// lock without a socket: it ended.
var errEnded = errors.New("the session's daemon ended")

func waitDial(ctx context.Context, p Paths, limit time.Duration) (io.ReadWriteCloser, error) {
	deadline := time.Now().Add(limit)
	for {
		c, err := dial(p)
		if err == nil {
			return c, nil
		}
		if !p.Running() {
			if c, err := dial(p); err == nil { // it came up as we looked
				return c, nil
			}
			return nil, errEnded
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("session %s does not answer on %s: %v (its log: %s)", p.Name, p.Sock, err, p.Log)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// startDaemon starts the session's daemon in a session of its own (so a
// closed terminal does not end it) and waits for its "ok" on a pipe.
func startDaemon(ctx context.Context, p Paths, argv []string) error {
	if len(argv) == 0 {
		return errors.New("no daemon command to start the session with")
	}
	logf, err := os.OpenFile(p.Log, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("session log: %w", err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer null.Close()
	// os.StartProcess rather than os/exec, whose package state Quick would
	// wait for (see dial); argv[0] is a path (os.Executable), not a name
	// to look up.
	proc, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Files: []*os.File{null, logf, logf, w}, // fd 3: the daemon's ready line
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	w.Close()
	if err != nil {
		return fmt.Errorf("start session %s: %w", p.Name, err)
	}
	exited := make(chan struct{})
	go func() { _, _ = proc.Wait(); close(exited) }() // reaped if it fails; once it runs it outlives us
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s == "ok" || strings.Contains(s, ErrRunning.Error()) {
			return nil
		}
		if s == "" {
			s = "it exited at once (its log: " + p.Log + ")"
		}
		return fmt.Errorf("start session %s: %s", p.Name, s)
	case <-time.After(startTimeout):
		return fmt.Errorf("start session %s: no answer within %s (its log: %s)", p.Name, startTimeout, p.Log)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// received is one message read from the daemon, or why none was.
type received struct {
	m   Message
	err error
}

// errWithdrawn is exchange's answer when the session ended while its
// question was open at the terminal: the call was not run.
var errWithdrawn = errors.New("the session ended (close --all, its idle timeout or a signal) while its question was open: nothing was done; the next command starts a fresh session")

// askWhileOpen puts q to the person and returns their answer, or
// errWithdrawn when the daemon ends the session first (the question's
// context is cancelled, so the terminal stops waiting for a key).
func askWhileOpen(ctx context.Context, o *ClientOptions, q Ask, msgs <-chan received) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answered := make(chan string, 1)
	go func() {
		a, err := o.Ask(ctx, q)
		if err != nil {
			a = "deny"
		}
		answered <- a
	}()
	select {
	case a := <-answered:
		return a, nil
	case <-msgs: // the daemon closes the connection to withdraw the question
		cancel()
		<-answered
		return "", errWithdrawn
	}
}

// errGone is exchange's answer when the daemon closed the connection
// without answering.
var errGone = errors.New("the session's daemon went away during the command")

// exchange sends req and follows the daemon's messages to the outcome:
// questions are put to the person, a parked call ends the command with
// its pending id.
func exchange(ctx context.Context, w *Wire, req *Request, o *ClientOptions) (*Response, error) {
	if err := w.Send(Message{Type: "request", Request: req}); err != nil {
		// The socket took the connection but nobody reads it: a daemon
		// dying as we came (its socket closes with the process).
		return nil, errGone
	}
	// The daemon's messages are read as they come, also while a question
	// is open: the session may end then and withdraw it.
	msgs := make(chan received)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			m, err := w.Recv()
			select {
			case msgs <- received{m, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		r := <-msgs
		m, err := r.m, r.err
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, errGone
		}
		switch m.Type {
		case "ask":
			if m.Ask == nil || o.Ask == nil {
				if err := w.Send(Message{Type: "answer", Answer: "deny"}); err != nil {
					return nil, fmt.Errorf("session: %w", err)
				}
				continue
			}
			answer, err := askWhileOpen(ctx, o, *m.Ask, msgs)
			if err != nil {
				return nil, err
			}
			if err := w.Send(Message{Type: "answer", Answer: answer}); err != nil {
				return nil, fmt.Errorf("session: %w", err)
			}
		case "pending":
			pd := m.Pending
			return &Response{Exit: ExitPending, Pending: pd, Error: early.PendingError(pd.ID, pd.Command, pd.Reason, pd.Args),
				Data: map[string]any{"pending": pd}}, nil
		case "version":
			return nil, ErrNeedVersion
		case "done":
			if m.Done == nil {
				return nil, errors.New("session: empty answer")
			}
			return m.Done, nil
		}
	}
}

// CloseAll ends every running session (`close --all`): each daemon closes
// its browser and exits; CloseAll returns once their processes are gone.
func CloseAll(ctx context.Context) (*Response, error) {
	list, err := Sessions()
	if err != nil {
		return nil, err
	}
	var ended []string
	for _, st := range list {
		p, err := PathsOf(st.Name)
		if err != nil {
			continue
		}
		if !st.Alive {
			p.RemoveFiles()
			continue
		}
		if c, err := dial(p); err == nil {
			_, _ = exchange(ctx, NewWire(c), &Request{Command: "shutdown"}, &ClientOptions{})
			c.Close()
		}
		if waitGone(ctx, st.PID, 20*time.Second) {
			ended = append(ended, st.Name)
			continue
		}
		return nil, fmt.Errorf("session %s (pid %d) did not end within 20 s", st.Name, st.PID)
	}
	text := "No session was running."
	if len(ended) > 0 {
		text = fmt.Sprintf("Ended %d session(s): %s.", len(ended), strings.Join(ended, ", "))
	}
	return &Response{Text: text, Data: map[string]any{"ended": append([]string{}, ended...)}}, nil
}

func waitGone(ctx context.Context, pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for alive(pid) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// absPaths makes the arguments that name local files (early.FileArgs)
// absolute here, in the person's working folder, since the daemon runs in
// another.
func absPaths(req *Request) error {
	from, ok := early.FileArgs[req.Command]
	if !ok {
		return nil
	}
	for i := from; i < len(req.Args); i++ {
		abs, err := absPath(req.Args[i])
		if err != nil {
			return err
		}
		req.Args[i] = abs
	}
	return nil
}

// DefaultIdle is how long a session's daemon waits for its next command
// before it ends, closing its browser.
const DefaultIdle = time.Hour

// ErrRunning is the daemon's answer when the session's daemon runs
// already.
var ErrRunning = errors.New("the session is already running")

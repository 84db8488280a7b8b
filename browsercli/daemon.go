package browsercli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/browsercli/wire"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

// ServeOptions configure Serve; zero fields mean defaults.
type ServeOptions struct {
	Name string // the session (DefaultSession when "")
	// Open opens the daemon's session with its approver (the one that asks
	// at the command's terminal or parks the call). Serve closes it.
	Open func(ctx context.Context, approver tools.Approver) (*session.Session, error)
	// Idle ends the daemon after this long without a command (DefaultIdle).
	Idle time.Duration
	// Ready hears "ok\n" once the daemon listens, or the one-line reason it
	// cannot start: the pipe the starting command waits on.
	Ready io.Writer
	// Version is this build of browseragent (see Request.Version).
	Version string
}

// daemon is one running session and its socket.
type daemon struct {
	p       wire.Paths
	s       *session.Session
	idle    time.Duration
	stop    context.CancelFunc
	version string

	busy sync.Mutex // one command at a time
	// browserUp says the isolated browser ran when the last command ended
	// (guarded by busy): if it is gone when the next one comes, the tabs
	// and refs that command counts on went with it, and it is told so
	// rather than run on a fresh, empty browser.
	browserUp bool

	mu      sync.Mutex
	running string    // the command holding busy, for "busy with …"
	since   time.Time // when it began
	pending map[string]*parked
	last    time.Time // the last command's end, for the idle timeout
	// binaries are the program files (wire.Binary) whose commands run
	// here without saying their Version: the daemon's own, and each one
	// that said it was of this build.
	binaries map[string]bool
}

// Serve runs a session's daemon until its idle timeout, `close --all`, a
// signal in ctx, or a fatal error. It removes its socket and state file
// when it ends and closes the session, which stops the browser it
// launched (the person's is only detached).
func Serve(ctx context.Context, o ServeOptions) (err error) {
	ready := func(msg string) {
		if o.Ready != nil {
			fmt.Fprintln(o.Ready, msg)
			o.Ready = nil
		}
	}
	defer func() {
		if err != nil {
			ready(err.Error())
		}
	}()
	if o.Name == "" {
		o.Name = wire.DefaultSession
	}
	p, err := wire.PathsOf(o.Name)
	if err != nil {
		return err
	}
	ln, lock, err := listen(p)
	if err != nil {
		return err
	}
	defer lock.Close() // last: the next daemon may start once this one is gone
	defer ln.Close()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	d := &daemon{p: p, idle: o.Idle, stop: stop, version: o.Version, pending: map[string]*parked{}, last: time.Now(), binaries: map[string]bool{wire.Binary(): true}}
	if d.idle <= 0 {
		d.idle = wire.DefaultIdle
	}
	d.s, err = o.Open(ctx, approver{d})
	if err != nil {
		p.RemoveFiles()
		return err
	}
	defer func() {
		p.RemoveFiles()
		err = errors.Join(err, d.s.Close())
	}()
	if err := d.saveState(); err != nil {
		return fmt.Errorf("session state: %w", err)
	}
	ready("ok")
	go d.watchIdle(ctx)
	context.AfterFunc(ctx, func() { ln.Close() })
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("session socket: %w", err)
		}
		conns.Go(func() { d.serveConn(ctx, c) })
	}
}

// listen takes the session's lock and makes its socket, mode 0600 from
// its first moment. A socket left by a daemon that died is replaced.
func listen(p wire.Paths) (net.Listener, *os.File, error) {
	lock, ok, err := p.TakeLock()
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("session %q: %w", p.Name, wire.ErrRunning)
	}
	_ = os.Remove(p.Sock)
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", p.Sock)
	syscall.Umask(old)
	if err != nil {
		lock.Close()
		return nil, nil, fmt.Errorf("session socket: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // removeFiles does it, after the state file
	if err := os.Chmod(p.Sock, 0o600); err != nil {
		ln.Close()
		lock.Close()
		return nil, nil, err
	}
	return ln, lock, nil
}

func (d *daemon) saveState() error {
	return wire.WriteState(d.p, wire.State{Name: d.p.Name, PID: os.Getpid(), Started: time.Now().UTC().Truncate(time.Second),
		Mode: d.s.Mode().String(), Idle: d.idle.String(), Alive: true})
}

// watchIdle ends the daemon once no command came for d.idle and none is
// running or waiting for approval.
func (d *daemon) watchIdle(ctx context.Context) {
	tick := time.NewTicker(min(d.idle/4, 30*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		d.mu.Lock()
		quiet := time.Since(d.last) >= d.idle && len(d.pending) == 0 && d.running == ""
		d.mu.Unlock()
		if quiet {
			d.stop()
			return
		}
	}
}

// serveConn answers one command on one connection.
func (d *daemon) serveConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	w := wire.NewWire(c)
	terminal, err := checkPeer(c)
	if err != nil {
		_ = w.Send(wire.Message{Type: "done", Done: &wire.Response{Exit: wire.ExitDenied, Error: err.Error()}})
		return
	}
	m, err := w.Recv()
	if err != nil || m.Request == nil {
		return
	}
	d.touch()
	defer d.touch()
	req := m.Request
	// Only a command whose process reads from a terminal has someone to ask.
	cl := &client{w: w, req: req, terminal: req.Ask && terminal, conn: c, ending: ctx}
	if !d.knownBinary(req) && req.Command != "shutdown" {
		// Another program file (rebuilt, upgraded, or a copy): only its
		// Version says whether it is another build. Nothing is run.
		_ = w.Send(wire.Message{Type: "version"})
		return
	}
	if req.Version != "" && d.version != "" && req.Version != d.version && req.Command != "shutdown" {
		// An upgrade: the old daemon would run the new command with old code.
		_ = w.Send(wire.Message{Type: "done", Done: &wire.Response{Exit: wire.ExitLost, Error: fmt.Sprintf("session %s ran browseragent %s, this is %s: it ended; run the command again for a fresh one (its tabs and refs are gone)", d.p.Name, d.version, req.Version)}})
		d.stop()
		return
	}
	var resp *wire.Response
	switch req.Command {
	case "confirm", "deny":
		resp = d.resolve(ctx, cl)
	case "pending":
		resp = d.listPending()
	case "shutdown":
		resp = &wire.Response{Text: fmt.Sprintf("Session %s ended.", d.p.Name), Data: map[string]any{"session": d.p.Name}}
		_ = w.Send(wire.Message{Type: "done", Done: resp})
		d.stop()
		return
	default:
		resp = d.run(ctx, cl)
	}
	if resp != nil {
		_ = w.Send(wire.Message{Type: "done", Done: resp})
	}
}

// knownBinary reports whether req may run without its Version: it says
// it (and is judged by it), or it comes from a program file of this
// build. A file that says it is of this build is remembered as one.
func (d *daemon) knownBinary(req *wire.Request) bool {
	if req.Binary == "" || d.version == "" {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if req.Version == d.version {
		d.binaries[req.Binary] = true
	}
	return req.Version != "" || d.binaries[req.Binary]
}

func (d *daemon) touch() {
	d.mu.Lock()
	d.last = time.Now()
	d.mu.Unlock()
}

// run runs one browser command, refusing it while another one runs.
func (d *daemon) run(ctx context.Context, cl *client) *wire.Response {
	req := cl.req
	if !d.busy.TryLock() {
		d.mu.Lock()
		what, since := d.running, time.Since(d.since)
		d.mu.Unlock()
		return &wire.Response{Exit: wire.ExitBusy, Error: fmt.Sprintf("session %s is busy with `%s` (for %.1f s): run one command at a time per session, or use another --session", d.p.Name, what, since.Seconds())}
	}
	defer d.busy.Unlock()
	d.setRunning(commandLine(req))
	defer d.setRunning("")
	ctx = context.WithValue(ctx, clientKey{}, cl)
	ctx = tools.WithClient(ctx, &tools.Client{Name: "browseragent-browser", Session: d.p.Name, Yes: req.Yes})
	b := d.s.Browser
	if d.browserUp && !b.Running() && b.Mode() == browser.ModeIsolated {
		d.browserUp = false
		return &wire.Response{Exit: wire.ExitLost, Error: "the session's browser went away (closed or crashed) since the last command: nothing was done; run the command again for a fresh one (its tabs and refs are gone)"}
	}
	resp := d.execute(ctx, req)
	d.browserUp = b.Running() && b.Mode() == browser.ModeIsolated
	if cl.parked != nil {
		cl.parked.done <- resp // to `browser confirm`: the command's own client has gone
		return nil
	}
	return resp
}

func (d *daemon) setRunning(what string) {
	d.mu.Lock()
	d.running, d.since = what, time.Now()
	d.mu.Unlock()
}

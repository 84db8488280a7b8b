package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Shutdown waits for a stdio server: after stdin is closed, after SIGTERM,
// and after SIGKILL. Each is bounded so Close never hangs.
var (
	stdinGrace   = 2 * time.Second
	sigtermGrace = 2 * time.Second
	sigkillGrace = 2 * time.Second
)

// process is a running stdio server in its own process group, so that
// signals reach npx's node grandchild too.
type process struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	done    chan struct{} // closed when the leader has been reaped
	waitErr error
	stopped sync.Once

	// stopping is set when stop begins; asked is closed when a request of
	// the server is unanswered then, or comes after (see requested).
	stopping atomic.Bool
	asked    chan struct{}
	askOnce  sync.Once
	askMu    sync.Mutex
	open     map[string]bool // the server's requests not answered yet
	log      *ringBuffer     // the server's log, for a note on how it was stopped
}

// requested is called for every request the server sends, answered for
// every answer sent. A request unanswered when stopping begins, or sent
// after, can never be answered (stdin is closed), and a server waiting for
// the answer does not exit on its own: server-everything asks for roots
// 350 ms after initialize, and a one-shot command that closed sooner
// waited out the whole stdin grace. Such a request ends the grace at once.
func (p *process) requested(id jsonrpc.ID) {
	p.askMu.Lock()
	if p.open == nil {
		p.open = map[string]bool{}
	}
	p.open[fmt.Sprint(id.Raw())] = true
	p.askMu.Unlock()
	if p.stopping.Load() {
		p.cutGrace()
	}
}

func (p *process) answered(id jsonrpc.ID) {
	p.askMu.Lock()
	delete(p.open, fmt.Sprint(id.Raw()))
	p.askMu.Unlock()
}

// beginStop marks the stop, and ends the grace at once when a request of
// the server is waiting for an answer.
func (p *process) beginStop() {
	p.stopping.Store(true)
	p.askMu.Lock()
	waiting := len(p.open) > 0
	p.askMu.Unlock()
	if waiting {
		p.cutGrace()
	}
}

func (p *process) cutGrace() { p.askOnce.Do(func() { close(p.asked) }) }

// stdioTransport starts the command and speaks newline-delimited JSON over
// its stdin/stdout through the SDK's IOTransport. It replaces
// mcp.CommandTransport because that one signals only the leader process.
type stdioTransport struct {
	cfg      *ServerConfig
	stderr   *ringBuffer
	maxBytes int
	started  func(*process)
	// background starts it at nice BackgroundNice (Options.Background).
	background bool
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	p, stdout, err := startProcess(t.cfg, t.stderr)
	if err != nil {
		return nil, err
	}
	if t.background {
		// The whole group: the leader and whatever it forked by now;
		// later children inherit it.
		_ = syscall.Setpriority(syscall.PRIO_PGRP, p.PID(), BackgroundNice)
	}
	t.started(p)
	filter := newStdoutFilter(stdout, t.stderr, t.maxBytes)
	filter.onRequest = p.requested
	tr := &mcp.IOTransport{
		Reader:        io.NopCloser(filter),
		Writer:        p.stdin,
		MaxLineLength: -1, // stdoutFilter enforces the limit without killing the session
	}
	return tr.Connect(ctx)
}

func startProcess(cfg *ServerConfig, stderr *ringBuffer) (*process, io.Reader, error) {
	if err := findCommand(cfg); err != nil {
		return nil, nil, err
	}
	name, args := groupLeader(cfg.Command, cfg.Args)
	cmd := exec.Command(name, args...)
	cmd.Dir = cfg.Cwd
	cmd.Env = os.Environ()
	for _, k := range sortedKeys(cfg.Env) {
		cmd.Env = append(cmd.Env, k+"="+cfg.Env[k])
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := startCmd(cmd); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, nil, notFound(cfg, err)
		}
		return nil, nil, fmt.Errorf("start %q: %w", cfg.Command, err)
	}
	p := &process{cmd: cmd, stdin: stdin, done: make(chan struct{}), asked: make(chan struct{}), log: stderr}
	stderrDone := make(chan struct{})
	go func() {
		stderr.readFrom(errPipe)
		close(stderrDone)
	}()
	go func() {
		// Wait closes the pipes, so let the stderr reader drain first; the
		// bound covers a grandchild that keeps stderr open.
		select {
		case <-stderrDone:
		case <-time.After(500 * time.Millisecond):
		}
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, stdout, nil
}

// findCommand fails early, with what to do, when the server's command does
// not exist (the group leader below would only report it as an exit).
func findCommand(cfg *ServerConfig) error {
	path := cfg.Command
	if strings.Contains(path, "/") && !filepath.IsAbs(path) && cfg.Cwd != "" {
		path = filepath.Join(cfg.Cwd, path)
	}
	if _, err := exec.LookPath(path); err != nil {
		return notFound(cfg, err)
	}
	return nil
}

func notFound(cfg *ServerConfig, err error) error {
	return fmt.Errorf("command %q (from %s) not found: install it (npx comes with Node.js 20+) or fix the command: %w", cfg.Command, cfg.Source, err)
}

// PID is the leader's pid, which is also the process group id.
func (p *process) PID() int { return p.cmd.Process.Pid }

// exited reports whether the leader has exited, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// stop closes stdin, then sends SIGTERM and SIGKILL to the whole group,
// each after a bounded wait. It returns once the group is gone or the last
// wait has expired; it is safe to call more than once.
func (p *process) stop() {
	p.stopped.Do(func() {
		p.beginStop()
		_ = p.stdin.Close()
		pgid := p.PID()
		if waitGroupGone(p.done, p.asked, pgid, stdinGrace) {
			return
		}
		select {
		case <-p.asked:
			p.log.add("[browseragent] the server sent a request after its input was closed, which cannot be answered: stopped with SIGTERM at once")
		default:
		}
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		if waitGroupGone(p.done, nil, pgid, sigtermGrace) {
			return
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		waitGroupGone(p.done, nil, pgid, sigkillGrace)
	})
}

// kill ends a server that never finished starting: SIGKILL to its whole
// group at once. It has no session to end and nothing to save, and the
// polite sequence of stop (stdin, then SIGTERM, which npx handles in its
// own time) would only make the caller, usually an exit, wait for it.
// SIGKILL cannot be caught, so it waits only for the leader to be reaped,
// not for a scan of /proc to see every member gone (tens of milliseconds
// on a loaded machine).
func (p *process) kill() {
	p.stopped.Do(func() {
		_ = p.stdin.Close()
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
		select {
		case <-p.done:
		case <-time.After(sigkillGrace):
		}
	})
}

// waitGroupGone waits until the leader is reaped and no live member of the
// group remains (zombies reparented to init do not count), or d passes, or
// cut is closed.
func waitGroupGone(done, cut <-chan struct{}, pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		select {
		case <-done:
			if !groupAlive(pgid) {
				return true
			}
		case <-cut:
			return false
		default:
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupAlive reports whether a non-zombie process is in group pgid.
func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return false
	}
	return len(liveGroupMembers(pgid)) > 0
}

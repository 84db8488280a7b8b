package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/browseragent/browseragent/browsercli/early"
)

// DefaultSession is the session a command uses without --session or
// BROWSERAGENT_SESSION.
const DefaultSession = early.DefaultSession

// SessionEnv names the session when --session is not given.
const SessionEnv = early.SessionEnv

// CheckName refuses a session name that is not a plain word: it names a
// socket and a state file, so "/" or ".." would reach outside their folder.
func CheckName(name string) error {
	if !early.SessionName(name) {
		return usageErrorf("bad session name %q: use letters, digits, '-', '_' and '.', starting with a letter or digit (no '/' or '..')", name)
	}
	return nil
}

// sessionsDir is the folder of the sessions' sockets and state files:
// $XDG_RUNTIME_DIR/browseragent, else browseragent-UID in the temporary
// folder. It is made with mode 0700 and refused when another user owns it
// or others may enter it.
func sessionsDir() (string, error) {
	dir := joinPath(os.TempDir(), fmt.Sprintf("browseragent-%d", os.Getuid()))
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && isAbsPath(rt) {
		dir = joinPath(rt, "browseragent")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sessions folder %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("sessions folder %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("sessions folder %s is not a folder of yours that only you can enter (mode 0700): remove it, or set XDG_RUNTIME_DIR", dir)
	}
	return dir, nil
}

// Paths are one session's files: its name, socket, state file, log and
// lock.
type Paths struct {
	Name, Sock, State, Log, Lock string
}

// PathsOf returns the files of session name, refusing a name that is not
// a plain word.
func PathsOf(name string) (Paths, error) {
	if err := CheckName(name); err != nil {
		return Paths{}, err
	}
	dir, err := sessionsDir()
	if err != nil {
		return Paths{}, err
	}
	base := joinPath(dir, name)
	p := Paths{Name: name, Sock: base + ".sock", State: base + ".json", Log: base + ".log", Lock: base + ".lock"}
	if len(p.Sock) > 100 { // sun_path holds 108 bytes
		return Paths{}, fmt.Errorf("session socket path %s is too long for a Unix socket: set XDG_RUNTIME_DIR to a shorter folder", p.Sock)
	}
	return p, nil
}

// State is what a running daemon says about itself in its state file.
type State struct {
	Name    string    `json:"name"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Mode    string    `json:"mode"` // isolated or shared
	// Idle is the idle timeout after which the daemon ends.
	Idle string `json:"idle_timeout"`
	// Alive is false for a session whose daemon died without cleaning up.
	Alive bool `json:"alive"`
}

// WriteState saves the daemon's state file.
func WriteState(p Paths, st State) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := p.State + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p.State)
}

// readState reads a session's state file; Alive says whether its daemon
// still runs.
func readState(p Paths) (State, error) {
	b, err := os.ReadFile(p.State)
	if err != nil {
		return State{}, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("session state %s: %w", p.State, err)
	}
	st.Alive = alive(st.PID)
	return st, nil
}

// TakeLock takes the session's lock, held by its daemon for as long as it
// runs (the kernel lets go when the process dies). ok is false when a
// daemon holds it.
func (p Paths) TakeLock() (f *os.File, ok bool, err error) {
	f, err = os.OpenFile(p.Lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("session lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("session lock: %w", err)
	}
	return f, true, nil
}

// Running reports whether a daemon holds the session's lock.
func (p Paths) Running() bool {
	f, ok, err := p.TakeLock()
	if ok {
		f.Close()
	}
	return !ok && err == nil
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A daemon that exited but was not reaped yet is gone too.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: kill's answer stands
	}
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// RemoveFiles removes a session's socket and state file (its log stays,
// for the person to read why it ended).
func (p Paths) RemoveFiles() {
	_ = os.Remove(p.Sock)
	_ = os.Remove(p.State)
}

// Sessions lists the sessions that have a state file, by name; a daemon
// that died is listed with Alive false.
func Sessions() ([]State, error) {
	dir, err := sessionsDir()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []State
	for _, e := range entries { // sorted by name
		name, isState := strings.CutSuffix(e.Name(), ".json")
		if !isState {
			continue
		}
		p, err := PathsOf(name)
		if err != nil {
			continue
		}
		st, err := readState(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

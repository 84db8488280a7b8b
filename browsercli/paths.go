package browsercli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultSession is the session a command uses without --session or
// BROWSERAGENT_SESSION.
const DefaultSession = "default"

// SessionEnv names the session when --session is not given.
const SessionEnv = "BROWSERAGENT_SESSION"

var sessionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// CheckName refuses a session name that is not a plain word: it names a
// socket and a state file, so "/" or ".." would reach outside their folder.
func CheckName(name string) error {
	if !sessionName().MatchString(name) || strings.Contains(name, "..") {
		return usageErrorf("bad session name %q: use letters, digits, '-', '_' and '.', starting with a letter or digit (no '/' or '..')", name)
	}
	return nil
}

// Dir is the folder of the sessions' sockets and state files:
// $XDG_RUNTIME_DIR/browseragent, else browseragent-UID in the temporary
// folder. It is made with mode 0700 and refused when another user owns it
// or others may enter it.
func Dir() (string, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("browseragent-%d", os.Getuid()))
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		dir = filepath.Join(rt, "browseragent")
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

// paths are one session's files.
type paths struct {
	name, sock, state, log, lock string
}

func pathsOf(name string) (paths, error) {
	if err := CheckName(name); err != nil {
		return paths{}, err
	}
	dir, err := Dir()
	if err != nil {
		return paths{}, err
	}
	base := filepath.Join(dir, name)
	p := paths{name: name, sock: base + ".sock", state: base + ".json", log: base + ".log", lock: base + ".lock"}
	if len(p.sock) > 100 { // sun_path holds 108 bytes
		return paths{}, fmt.Errorf("session socket path %s is too long for a Unix socket: set XDG_RUNTIME_DIR to a shorter folder", p.sock)
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

func writeState(p paths, st State) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := p.state + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p.state)
}

func readState(p paths) (State, error) {
	b, err := os.ReadFile(p.state)
	if err != nil {
		return State{}, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("session state %s: %w", p.state, err)
	}
	st.Alive = alive(st.PID)
	return st, nil
}

// takeLock takes the session's lock, held by its daemon for as long as it
// runs (the kernel lets go when the process dies). ok is false when a
// daemon holds it.
func (p paths) takeLock() (f *os.File, ok bool, err error) {
	f, err = os.OpenFile(p.lock, os.O_RDWR|os.O_CREATE, 0o600)
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

// running reports whether a daemon holds the session's lock.
func (p paths) running() bool {
	f, ok, err := p.takeLock()
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

// removeFiles removes a session's socket and state file (its log stays,
// for the person to read why it ended).
func (p paths) removeFiles() {
	_ = os.Remove(p.sock)
	_ = os.Remove(p.state)
}

// Sessions lists the sessions that have a state file, by name; a daemon
// that died is listed with Alive false.
func Sessions() ([]State, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []State
	for _, m := range matches {
		name := strings.TrimSuffix(filepath.Base(m), ".json")
		p, err := pathsOf(name)
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
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

package guard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/browseragent/browseragent/internal/xdg"
)

// Entry is one line of the audit log: one tool call and what was decided.
type Entry struct {
	Time      time.Time      `json:"time"`
	Tool      string         `json:"tool"`
	Server    string         `json:"server,omitempty"`
	Mode      string         `json:"mode"`
	Effect    string         `json:"effect,omitempty"`
	PageURL   string         `json:"page_url,omitempty"`
	TargetURL string         `json:"target_url,omitempty"`
	Rule      string         `json:"rule,omitempty"`
	Decision  string         `json:"decision"`   // allow | ask | deny: the final answer
	DecidedBy string         `json:"decided_by"` // rule | grant | policy | person | --yes | no answer (nobody at a terminal)
	Reason    string         `json:"reason,omitempty"`
	Args      map[string]any `json:"args,omitempty"`
	Duration  time.Duration  `json:"duration_ns,omitempty"`
	Error     string         `json:"error,omitempty"`
	// Client and Session name the MCP client that made the call through
	// `browseragent mcp serve`: its clientInfo name and its session id.
	// Empty for calls made by browseragent itself.
	Client  string `json:"client,omitempty"`
	Session string `json:"session,omitempty"`
	// Secret marks a call that typed into a password field (the caller
	// knows the field); every typed value is then redacted. Not written.
	Secret bool `json:"-"`
}

// FromDecision fills an entry from a call and its final decision; the
// caller adds Duration and Error after running the call.
func FromDecision(c Call, d Decision) Entry {
	return Entry{
		Time: time.Now().UTC(), Tool: c.Tool, Server: c.Server, Mode: d.Mode.String(),
		Effect: d.Effect.String(), PageURL: c.PageURL, TargetURL: c.TargetURL,
		Rule: d.Rule, Decision: d.Verdict.String(), DecidedBy: d.DecidedBy,
		Reason: d.Reason, Args: c.Args,
	}
}

// AuditLog appends entries to a JSON-lines file. It is safe for concurrent
// use; each entry is one write of one line.
type AuditLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// DefaultAuditPath is $XDG_STATE_HOME/browseragent/audit.jsonl
// (~/.local/state when XDG_STATE_HOME is unset).
func DefaultAuditPath() string {
	if p := xdg.StatePath(nil, "audit.jsonl"); p != "" {
		return p
	}
	return filepath.Join(os.TempDir(), "browseragent-audit.jsonl")
}

// OpenAudit opens (creating it and its directory, private to the user) the
// audit log at path for appending.
func OpenAudit(path string) (*AuditLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &AuditLog{f: f, path: path}, nil
}

// Path returns the file the log writes to.
func (a *AuditLog) Path() string { return a.path }

// Append writes e as one JSON line with secrets redacted: URLs lose their
// passwords and token-like query values, arguments lose values under
// secret-like names (password, token, cookie, authorization...), and every
// typed value when e.Secret is set.
func (a *AuditLog) Append(e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	e.PageURL, e.TargetURL = RedactURL(e.PageURL), RedactURL(e.TargetURL)
	e.Args = RedactArgs(e.Args, e.Secret)
	e.Error = RedactText(e.Error)
	e.Reason = RedactText(e.Reason)
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return errors.New("audit log: closed")
	}
	if _, err := a.f.Write(line); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	return nil
}

// Close closes the file.
func (a *AuditLog) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// maxAuditLine bounds one line when reading; longer lines are skipped.
const maxAuditLine = 1 << 20

// ReadAudit returns the last n entries of the log at path (all when n <= 0),
// oldest first. A missing file is no entries. Lines that are not valid JSON
// (a crash mid-write) are skipped.
func ReadAudit(path string, n int) ([]Entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer f.Close()
	lines, err := lastLines(f, n)
	if err != nil {
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	out := make([]Entry, 0, len(lines))
	for _, l := range lines {
		var e Entry
		if json.Unmarshal(l, &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// lastLines keeps the last n non-empty lines of r in a ring.
func lastLines(r io.Reader, n int) ([][]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxAuditLine)
	var ring [][]byte
	for sc.Scan() {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 {
			continue
		}
		ring = append(ring, bytes.Clone(l))
		if n > 0 && len(ring) > n {
			ring = ring[1:]
		}
	}
	return ring, sc.Err()
}

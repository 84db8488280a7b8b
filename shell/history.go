package shell

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// history keeps typed lines in a file, without secrets: /call argument
// values of fields that look like passwords or tokens are masked, and lines
// typed at an approval prompt never reach it.
type history struct {
	path  string // "" when history is off
	lines []string
}

const historyMax = 1000

// historyPath is $XDG_STATE_HOME/browseragent/history (~/.local/state/...).
func historyPath(opt string) string {
	switch opt {
	case "-":
		return ""
	case "":
	default:
		return opt
	}
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "browseragent", "history")
}

// openHistory loads the last lines; a missing or unreadable file is an
// empty history, never an error that stops the shell.
func (s *Shell) openHistory() *history {
	h := &history{path: historyPath(s.opts.HistoryFile)}
	if h.path == "" {
		return h
	}
	f, err := os.Open(h.path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			h.lines = append(h.lines, l)
		}
	}
	if len(h.lines) > historyMax {
		h.lines = h.lines[len(h.lines)-historyMax:]
	}
	return h
}

// add appends line (redacted, one line) to the file.
func (h *history) add(line string) {
	line = redactLine(strings.TrimSpace(line))
	if h.path == "" || line == "" || strings.Contains(line, "\n") {
		return // multi-line pastes are not replayable from a line history
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(line + "\n")
}

var secretKey = regexp.MustCompile(`(?i)pass(word|wd|phrase)?|secret|token|api[_-]?key|otp|pin|cvv|cvc|card|credential|auth`)

// redactLine masks secrets in a line before it is written to history.
func redactLine(line string) string {
	cmd, rest, _ := strings.Cut(line, " ")
	if cmd != "/call" {
		return line
	}
	tool, args, ok := strings.Cut(strings.TrimSpace(rest), " ")
	if !ok {
		return line
	}
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		if secretKey.MatchString(args) {
			return "/call " + tool + " ***"
		}
		return line
	}
	masked := false
	v = maskSecrets(v, false, &masked)
	if !masked {
		return line // keep the line as typed
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "/call " + tool + " ***"
	}
	return "/call " + tool + " " + string(b)
}

// maskSecrets replaces the values of secret-looking keys with "***".
func maskSecrets(v any, secret bool, masked *bool) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = maskSecrets(x, secret || secretKey.MatchString(k), masked)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = maskSecrets(x, secret, masked)
		}
		return t
	}
	if secret {
		*masked = true
		return "***"
	}
	return v
}

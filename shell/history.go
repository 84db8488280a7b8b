package shell

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/xdg"
	"github.com/browseragent/browseragent/tools"
)

// history keeps typed lines in a file, without secrets: what a command
// typed into a password field is masked (/type e2 ****), /call argument
// values of fields that look like passwords or tokens are masked, URL
// passwords and token-like query values are masked, credential-looking
// text (bearer tokens, API keys) is masked, and lines typed at an approval
// prompt never reach it.
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
	return xdg.StatePath(nil, "history")
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

// add appends line (redacted, one line) to the file. secret says the line
// typed into a password field (its tool result was Secret): its typed value
// is masked before anything else.
func (h *history) add(line string, secret bool) {
	line = historyLine(strings.TrimSpace(line), secret)
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

var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)pass(word|wd|phrase)?|secret|token|api[_-]?key|otp|pin|cvv|cvc|card|credential|auth`)
})

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
		if secretKey().MatchString(args) {
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
			t[k] = maskSecrets(x, secret || secretKey().MatchString(k), masked)
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

// historyLine is line as history keeps it: the typed value masked when
// secret, then every secret the line itself shows.
func historyLine(line string, secret bool) string {
	if secret {
		line = maskTyped(line)
	}
	if !strings.HasPrefix(line, "/") {
		line = maskSaidSecrets(line)
	}
	return guard.RedactText(redactURLs(redactLine(line)))
}

// saidSecret is a secret a person writes into a task: a secret-like word
// ("password", "pin", "api key"…), how they give it (":", "=", "is", or
// just a space) and the value.
var saidSecret = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(pass(?:word|wd|phrase|code)?|pw|pwd|pin|otp|secret|token|api[ _-]?key)(\s*[:=]\s*|\s+is\s+|\s+)("[^"]*"|'[^']*'|\S+)`)
})

// maskSaidSecrets masks the value in "password hunter2", "pin: 1234",
// "my password is s3cret" in a task line, as the audit log masks a
// secret-named argument. After a bare space only a value that does not
// read as a word is masked ("the password field" stays as typed).
func maskSaidSecrets(line string) string {
	re := saidSecret()
	return re.ReplaceAllStringFunc(line, func(m string) string {
		sub := re.FindStringSubmatch(m)
		value := strings.TrimRight(sub[3], ".,;!?)]}")
		if strings.TrimSpace(sub[2]) == "" && isWord(value) {
			return m
		}
		return sub[1] + sub[2] + "***" + sub[3][len(value):]
	})
}

// isWord reports whether s is letters only (a word of prose, not a value).
func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

// maskTyped hides what a command typed: /call keeps its JSON with every
// typed value redacted; any other command keeps its name and first
// argument (the field's ref) and loses the rest.
func maskTyped(line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return line
	}
	if len(f) > 2 && f[0] == "/call" {
		_, rest, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "/call")), " ")
		var m map[string]any
		if json.Unmarshal([]byte(rest), &m) == nil {
			if b, err := json.Marshal(guard.RedactArgs(m, true)); err == nil {
				return "/call " + f[1] + " " + string(b)
			}
		}
	}
	if len(f) > 2 {
		return f[0] + " " + f[1] + " ****"
	}
	return f[0] + " ****"
}

// urlish is a word (also inside JSON strings) with an @ or a ?: a URL
// that may carry a password or a token.
var urlish = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[^\s"'<>{}\[\],]*[@?][^\s"'<>{}\[\],]*`)
})

// redactURLs masks the password of user:password@ and the values of
// token-like query parameters in every word that looks like a URL, with or
// without a scheme. Words with nothing to mask stay as typed.
func redactURLs(line string) string {
	return urlish().ReplaceAllStringFunc(line, func(w string) string {
		u, bare := w, !strings.Contains(w, "://")
		if bare {
			u = "http://" + w
		}
		r := guard.RedactURL(u)
		if r == u || !strings.Contains(r, "redacted") {
			return w
		}
		if bare {
			r = strings.TrimPrefix(r, "http://")
		}
		return r
	})
}

// lineMark is how a command tells the loop that reads lines what its tool
// result said: the line typed into a password field (secret), or a tool
// answered that it did not (plain). It travels in the command's context.
type lineMark struct{ secret, plain atomic.Bool }

// typedSecret says whether line must be kept as a secret line: a tool said
// so, or the line types text and no tool answered (it failed before the
// page was asked, or never ran), so nobody knows what the field was.
func (m *lineMark) typedSecret(line string) bool {
	return m.secret.Load() || !m.plain.Load() && typesText(line)
}

// typesText reports whether line is a command that types into a field:
// /type, or a /call of a tool the catalogue says types.
func typesText(line string) bool {
	f := strings.Fields(line)
	switch {
	case len(f) == 0:
		return false
	case f[0] == "/type":
		return true
	case f[0] != "/call" || len(f) < 2:
		return false
	}
	server, name := guard.SplitToolName(f[1])
	e := catalog.Describe(server, name, catalog.Hints{}, nil)
	return e.TypesText()
}

type lineMarkKey struct{}

// withLineMark returns ctx carrying a fresh mark for one line.
func withLineMark(ctx context.Context) (context.Context, *lineMark) {
	m := &lineMark{}
	return context.WithValue(ctx, lineMarkKey{}, m), m
}

// markLine records what a tool result of the line being run said.
func markLine(ctx context.Context, res *tools.ToolResult) {
	m, ok := ctx.Value(lineMarkKey{}).(*lineMark)
	switch {
	case !ok || res == nil:
	case res.Secret:
		m.secret.Store(true)
	default:
		m.plain.Store(true)
	}
}

package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browseragent/browseragent/internal/xdg"
)

// The edits of `mcp add`, `add-json`, `remove` and
// `add-from-claude-desktop`, and what `mcp get` shows of an entry.

// ErrServerExists is AddServer's error for a name the scope already has
// (as Claude Code does: remove it first); ErrNoServer is RemoveServer's
// for a name it has not.
var (
	ErrServerExists = errors.New("exists")
	ErrNoServer     = errors.New("no such server")
)

// serverNameRE is the names Claude Code accepts, so a server added here
// can be added there too.
var serverNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
})

// CheckServerName refuses a name Claude Code would not take.
func CheckServerName(name string) error {
	if !serverNameRE().MatchString(name) {
		return fmt.Errorf("server name %q: use only letters, digits, - and _ (as Claude Code does)", name)
	}
	return nil
}

// editServers edits scope's servers for workDir (editScope on ScopeFile).
// The project's .mcp.json keeps its trust: the person made this change,
// so a file they trusted (or that did not exist) is trusted with its new
// content, and one they never trusted stays untrusted; untrusted is then
// its absolute path, for the caller to say so.
func editServers(scope, workDir string, edit func(servers map[string]json.RawMessage) error) (untrusted string, err error) {
	file := ScopeFile(scope, workDir)
	if scope != ScopeProject {
		return "", editScope(file, scope, workDir, edit)
	}
	store := NewTrustStore("")
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	before, err := os.ReadFile(abs)
	keep := errors.Is(err, fs.ErrNotExist)
	if err == nil {
		st, _ := store.state(abs, before)
		keep = st == Trusted
	}
	if err := editUserConfig(abs, edit); err != nil {
		return "", err
	}
	p, err := ReadProjectFile(abs)
	if err != nil {
		return "", err
	}
	if !keep {
		return abs, nil
	}
	return "", store.Trust(p)
}

// AddServer writes entry as server name in scope, refusing to replace one
// (ErrServerExists). untrusted is as editServers says.
func AddServer(scope, workDir, name string, entry json.RawMessage) (untrusted string, err error) {
	return editServers(scope, workDir, func(servers map[string]json.RawMessage) error {
		if _, ok := servers[name]; ok {
			return ErrServerExists
		}
		servers[name] = entry
		return nil
	})
}

// RemoveServer removes server name from scope (ErrNoServer when it has
// none). untrusted is as editServers says.
func RemoveServer(scope, workDir, name string) (untrusted string, err error) {
	return editServers(scope, workDir, func(servers map[string]json.RawMessage) error {
		if _, ok := servers[name]; !ok {
			return ErrNoServer
		}
		delete(servers, name)
		return nil
	})
}

// ScopesHaving lists the scopes whose files define name, in scopeNames order.
func ScopesHaving(name, workDir string) ([]string, error) {
	var has []string
	for _, scope := range scopeNames {
		servers, err := scopeServers(ScopeFile(scope, workDir), scope, workDir)
		if err != nil {
			return nil, err
		}
		if _, ok := servers[name]; ok {
			has = append(has, scope)
		}
	}
	return has, nil
}

// CheckEntry reads one server's JSON as a .mcp.json entry would be read
// (variables are left for when it starts), so a broken entry is refused
// now with the field named (what names the input in messages). It returns
// the entry compacted, and the warnings reading it gave.
func CheckEntry(name string, raw []byte, what string) (json.RawMessage, []string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		why := "got null"
		if err != nil {
			why = err.Error()
		}
		return nil, nil, fmt.Errorf(`%s must be a JSON object such as '{"command":"npx","args":["-y","PACKAGE"]}' or '{"type":"http","url":"https://…"}': %v`, what, why)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, nil, err
	}
	doc, _ := json.Marshal(map[string]map[string]json.RawMessage{"mcpServers": {name: buf.Bytes()}})
	c, err := Parse(doc, what, anyValue)
	if err != nil {
		return nil, nil, err
	}
	if sc := c.Servers[name]; sc.Err != nil {
		return nil, nil, sc.Err
	}
	return buf.Bytes(), c.Warnings, nil
}

// anyValue fills in every variable, for reading an entry's shape only.
func anyValue(string) (string, bool) { return "x", true }

// DesktopConfigPath is Claude Desktop's configuration file: under
// ~/Library/Application Support/Claude on macOS, else
// $XDG_CONFIG_HOME/Claude (~/.config/Claude, where the Linux builds keep it).
func DesktopConfigPath() string {
	if runtime.GOOS == "darwin" {
		home, _ := os.UserHomeDir()
		return filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
	}
	return filepath.Join(xdg.ConfigHome(nil), "Claude", "claude_desktop_config.json")
}

// ParseDesktop reads Claude Desktop's file: its entries as written (to
// copy them unchanged) and as read (to check them).
func ParseDesktop(data []byte, file string) (map[string]json.RawMessage, *Config, error) {
	cfg, err := Parse(data, file, anyValue)
	if err != nil {
		return nil, nil, err
	}
	var top struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	_ = json.Unmarshal(data, &top) // Parse checked it
	return top.MCPServers, cfg, nil
}

// Describe is the entry of sc as written (variables not filled in, so no
// secret from the environment is shown), one line per field, values of
// env and headers hidden.
func Describe(sc *ServerConfig, workDir string) []string {
	shown := asWritten(sc, workDir)
	out := []string{"Type: " + sc.Transport()}
	if sc.Transport() == TypeStdio {
		words := append([]string{shown.Command}, shown.Args...)
		for i, w := range words {
			words[i] = shellWord(w)
		}
		out = append(out, "Command: "+strings.Join(words, " "))
		if shown.Cwd != "" {
			out = append(out, "Working directory: "+shown.Cwd)
		}
		if len(sc.Env) > 0 {
			out = append(out, "Environment: "+hiddenNames(sc.Env))
		}
	} else {
		out = append(out, "URL: "+shown.URL)
		if len(sc.Headers) > 0 {
			out = append(out, "Headers: "+hiddenNames(sc.Headers))
		}
	}
	if sc.Timeout > 0 {
		out = append(out, "Start timeout: "+time.Duration(sc.Timeout).String())
	}
	if sc.CallTimeout > 0 {
		out = append(out, "Call timeout: "+time.Duration(sc.CallTimeout).String())
	}
	if len(sc.IncludeTools) > 0 {
		out = append(out, "Only tools: "+strings.Join(sc.IncludeTools, ", "))
	}
	if len(sc.ExcludeTools) > 0 {
		out = append(out, "Without tools: "+strings.Join(sc.ExcludeTools, ", "))
	}
	if sc.Trust {
		out = append(out, `Trust: "trust": true (Gemini CLI): its tools run without asking in isolated mode, outside sensitive sites and local files`)
	}
	return out
}

func hiddenNames(m map[string]string) string {
	return strings.Join(sortedKeys(m), ", ") + " (values hidden)"
}

// asWritten re-reads sc's file with every ${VAR} left as it is written.
// When that fails, the command's arguments are not shown (they may hold
// a filled-in secret).
func asWritten(sc *ServerConfig, workDir string) *ServerConfig {
	hidden := &ServerConfig{Command: sc.Command, Cwd: sc.Cwd, URL: "(hidden)"}
	if len(sc.Args) > 0 {
		hidden.Args = []string{"(" + strconv.Itoa(len(sc.Args)) + " arguments hidden)"}
	}
	data, err := os.ReadFile(sc.Source)
	if err != nil {
		return hidden
	}
	verbatim := func(k string) (string, bool) { return "${" + k + "}", true }
	var c *Config
	if sc.Scope == ScopeLocal {
		c, err = parseLocal(data, sc.Source, absPath(workDir), verbatim)
	} else {
		c, err = Parse(data, sc.Source, verbatim)
	}
	if err != nil || c.Servers[sc.Name] == nil || c.Servers[sc.Name].Err != nil {
		return hidden
	}
	return c.Servers[sc.Name]
}

// shellWord quotes a word of a command for the shell; unlike shellQuote
// it leaves a ${VAR} as written, since Describe shows variables unfilled.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\;&|<>()*?[]#~!`") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

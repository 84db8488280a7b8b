package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/browseragent/browseragent/catalog"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/browseragent/browseragent/internal/xdg"
)

// Transport kinds accepted in a server's "type" field.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// DefaultServerName is the built-in server, part of every merged
// configuration unless a file defines a server of that name.
const DefaultServerName = catalog.BrowserServer

// BuiltInSource is the Source of the built-in server.
const BuiltInSource = "built-in"

// chromeDevToolsPackage is the pinned npm package of the default server.
const chromeDevToolsPackage = "chrome-devtools-mcp@1.11.0"

// ServerConfig is one entry of "mcpServers". Fields follow Claude Code's
// .mcp.json; Disabled, Timeout, CallTimeout and the tool filters are ours.
type ServerConfig struct {
	Name         string            `json:"-"`
	Type         string            `json:"type,omitempty"`
	Command      string            `json:"command,omitempty"`
	Args         []string          `json:"args,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	Cwd          string            `json:"cwd,omitempty"`
	URL          string            `json:"url,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	Disabled     bool              `json:"disabled,omitempty"`
	Timeout      Duration          `json:"timeout,omitempty"`
	CallTimeout  Duration          `json:"callTimeout,omitempty"`
	IncludeTools []string          `json:"includeTools,omitempty"`
	ExcludeTools []string          `json:"excludeTools,omitempty"`
	OAuth        *OAuthConfig      `json:"oauth,omitempty"`
	// Trust is Gemini CLI's "trust": true (settings.json only): the guard
	// lets this server's tools run without asking in isolated mode, where
	// it would otherwise ask (see guard.Policy.TrustServers).
	Trust bool `json:"-"`

	// Source is the file this entry came from ("built-in" for the default).
	Source string `json:"-"`
	// Scope is ScopeLocal when the entry came from the projects part of
	// its file (parseLocal), else "".
	Scope string `json:"-"`
	// Toggled says `mcp enable/disable` decided Disabled (Config.Toggles).
	Toggled bool `json:"-"`
	// Err, when set, is why this entry cannot be used; the server reports
	// state error with it and the others are unaffected.
	Err error `json:"-"`
}

// Transport returns the effective transport kind: the "type" field, or
// inferred from command/url.
func (sc *ServerConfig) Transport() string {
	if sc.Type != "" {
		return sc.Type
	}
	if sc.URL != "" {
		return TypeHTTP
	}
	return TypeStdio
}

// clone returns a deep copy, so hooks may edit it freely.
func (sc *ServerConfig) clone() *ServerConfig {
	c := *sc
	c.Args = slices.Clone(sc.Args)
	c.Env = cloneMap(sc.Env)
	c.Headers = cloneMap(sc.Headers)
	c.IncludeTools = slices.Clone(sc.IncludeTools)
	c.ExcludeTools = slices.Clone(sc.ExcludeTools)
	c.OAuth = sc.OAuth.clone()
	return &c
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Duration is a timeout in a config file: a number of milliseconds (as in
// Gemini CLI) or a Go duration string such as "30s".
type Duration time.Duration

// UnmarshalJSON accepts 30000 or "30s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var n float64
	if err := json.Unmarshal(b, &n); err == nil {
		*d = Duration(time.Duration(n * float64(time.Millisecond)))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`want milliseconds or a duration string like "30s"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf(`want milliseconds or a duration string like "30s": %v`, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// Config is the merged set of servers.
type Config struct {
	Servers map[string]*ServerConfig
	// Files are the files that were read, in merge order.
	Files []string
	// Warnings are problems that did not stop anything (unknown fields).
	Warnings []string
	// Skipped are files whose Gate refused them (untrusted projects).
	Skipped []string
	// Toggles are the servers turned on (true) or off (false) by
	// `mcp enable/disable`: the "enabledMcpServers" and
	// "disabledMcpServers" lists, which win over an entry's "disabled".
	Toggles map[string]bool
}

// Names returns the server names, sorted.
func (c *Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DefaultConfig is the configuration without any file: the built-in
// server alone, chrome-devtools-mcp via npx, told to send nothing anywhere.
// The browser wiring adds --wsEndpoint/--executablePath through
// Options.Adjust.
func DefaultConfig() *Config {
	return &Config{Servers: map[string]*ServerConfig{DefaultServerName: defaultServer()}}
}

// defaultServer is the built-in chrome-devtools entry.
func defaultServer() *ServerConfig {
	return &ServerConfig{
		Name:    DefaultServerName,
		Command: "npx",
		Args:    []string{"-y", chromeDevToolsPackage, "--no-performance-crux"},
		Env: map[string]string{
			"CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS": "1",
			"CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS":    "1",
			"CHROME_DEVTOOLS_MCP_NO_CONFIG_DISCOVERY": "1",
		},
		Source: BuiltInSource,
	}
}

// UserConfigPath is $XDG_CONFIG_HOME/browseragent/mcp.json (or
// ~/.config/browseragent/mcp.json).
func UserConfigPath() string {
	return xdg.ConfigPath(nil, "mcp.json")
}

// ConfigFile is one file to merge; a missing optional file is skipped.
type ConfigFile struct {
	Path     string
	Required bool
	// Project marks a project's .mcp.json (see trust.go).
	Project bool
	// Gate, when set, is asked before the file's servers are merged; false
	// skips the file (ProjectGate.Allow).
	Gate func(ProjectFile) bool
	// Local, when set, is the working directory (absolute) whose
	// projects[Local] part of the file is read (parseLocal) instead of its
	// top level: the local scope.
	Local string
	// Foreign marks another client's own file (Claude Code's
	// ~/.claude.json), read but never written: a problem in it is a
	// warning, not a failed start, and its enable/disable lists are that
	// client's, not browseragent's.
	Foreign bool
}

// claudeCodeConfigPath is Claude Code's own file, where `claude mcp add`
// keeps user- and local-scope servers: $CLAUDE_CONFIG_DIR/.claude.json, else
// ~/.claude.json; "" without a home directory.
func claudeCodeConfigPath() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".claude.json")
}

// DefaultFiles are, in merge order (later wins per name, as in Claude
// Code): Claude Code's ~/.claude.json, its top level (user scope) and
// projects[workDir] (local scope), read only, so a server added with
// `claude mcp add` is there too; the user file's top level (user scope),
// the project's .mcp.json in workDir (project scope), the user file's
// projects[workDir] (local scope), then each extra file (from
// --mcp-config, required), top level then its projects[workDir] (so
// ~/.claude.json works whole). Each server's Source names its file.
func DefaultFiles(workDir string, extra ...string) []ConfigFile {
	wd := absPath(workDir)
	user := UserConfigPath()
	var files []ConfigFile
	if cc := claudeCodeConfigPath(); cc != "" {
		files = append(files, ConfigFile{Path: cc, Foreign: true}, ConfigFile{Path: cc, Local: wd, Foreign: true})
	}
	files = append(files, ConfigFile{Path: user}, ConfigFile{Path: filepath.Join(workDir, ".mcp.json"), Project: true}, ConfigFile{Path: user, Local: wd})
	for _, e := range extra {
		if e != "" {
			files = append(files, ConfigFile{Path: e, Required: true}, ConfigFile{Path: e, Local: wd})
		}
	}
	return files
}

// LoadFiles reads and merges files, later files winning per server name.
// The built-in server is added unless a file defines DefaultServerName
// (an entry with "disabled": true keeps it off), so adding servers never
// removes it. Malformed JSON is an error with file:line:column; problems
// inside one entry fail only that server.
func LoadFiles(files []ConfigFile) (*Config, error) {
	merged := &Config{Servers: map[string]*ServerConfig{}}
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) && !f.Required {
			continue
		}
		if err != nil && f.Foreign {
			merged.Warnings = append(merged.Warnings, fmt.Sprintf("mcp config: %v (another program's file: its servers are left out)", err))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("mcp config: %w", err)
		}
		var c *Config
		if f.Local != "" {
			c, err = parseLocal(data, f.Path, f.Local, os.LookupEnv)
		} else {
			c, err = Parse(data, f.Path, os.LookupEnv)
		}
		if err != nil && f.Foreign {
			merged.Warnings = append(merged.Warnings, fmt.Sprintf("%v (another program's file: its servers are left out)", err))
			continue
		}
		if err != nil {
			return nil, err
		}
		if f.Foreign {
			c.Toggles = nil
		}
		if f.Gate != nil && !f.Gate(newProjectFile(absPath(f.Path), data, c)) {
			merged.Skipped = append(merged.Skipped, f.Path)
			continue
		}
		if f.Local == "" || len(c.Servers)+len(c.Toggles) > 0 {
			merged.Files = append(merged.Files, f.Path)
		}
		merged.Warnings = append(merged.Warnings, c.Warnings...)
		for n, sc := range c.Servers {
			merged.Servers[n] = sc
		}
		for n, on := range c.Toggles {
			if f.Project {
				break // a shared file does not make your choices
			}
			if merged.Toggles == nil {
				merged.Toggles = map[string]bool{}
			}
			merged.Toggles[n] = on
		}
	}
	if _, ok := merged.Servers[DefaultServerName]; !ok {
		merged.Servers[DefaultServerName] = defaultServer()
	}
	merged.applyToggles()
	return merged, nil
}

var knownFields = map[string]bool{
	"type": true, "command": true, "args": true, "env": true, "cwd": true,
	"url": true, "headers": true, "disabled": true, "timeout": true,
	"callTimeout": true, "includeTools": true, "excludeTools": true, "oauth": true,
}

// Parse reads one configuration file's bytes, in the dialect of the client
// that wrote it (see Dialect: the name and top level tell): its top-level
// servers (the user scope of ~/.claude.json and of browseragent's own
// mcp.json; their "projects" are read by parseLocal). file names it in
// messages; lookup resolves ${VAR} (os.LookupEnv in production).
func Parse(data []byte, file string, lookup func(string) (string, bool)) (*Config, error) {
	return parse(data, file, "", lookup)
}

// parseLocal reads the servers file keeps for the project directory dir
// (absolute): the object projects[dir] of ~/.claude.json's shape, Claude
// Code's local scope, which browseragent's own mcp.json shares. A file
// without that entry has no servers.
func parseLocal(data []byte, file, dir string, lookup func(string) (string, bool)) (*Config, error) {
	return parse(data, file, dir, lookup)
}

func parse(data []byte, file, dir string, lookup func(string) (string, bool)) (*Config, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty file; want {\"mcpServers\": {...}}", file)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, syntaxError(data, file, err)
	}
	d := detectDialect(file, top)
	c := &Config{Servers: map[string]*ServerConfig{}, Files: []string{file}}
	obj := top
	if dir != "" {
		var projects map[string]map[string]json.RawMessage
		if raw, ok := top["projects"]; !ok || d != DialectClaude || json.Unmarshal(raw, &projects) != nil || projects[dir] == nil {
			return c, nil
		}
		obj = projects[dir]
	}
	key := "mcpServers"
	if d == DialectVSCode {
		key = "servers"
		lookup = workspaceLookup(file, lookup)
	}
	for _, k := range sortedKeys(obj) {
		if k == key || d == DialectVSCode && k == "inputs" || quietTop(file, d) {
			continue
		}
		if d == DialectClaude && (k == toggleOff || k == toggleOn || k == "projects" && dir == "") {
			continue
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: unknown %s field %q ignored", where(file, fieldLine(data, data, k)), topWhat(dir), k))
	}
	if d == DialectClaude {
		c.Warnings = append(c.Warnings, readToggles(c, obj, data, file)...)
	}
	raw, ok := obj[key]
	if !ok {
		return c, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("%s: field %s: want an object of servers", file, key)
	}
	p := parser{file: file, data: data, dialect: d, lookup: lookup, inputs: vscodeInputs(top["inputs"])}
	for name, body := range entries {
		sc, warns := p.server(name, body)
		if dir != "" {
			sc.Scope = ScopeLocal
		}
		c.Servers[name] = sc
		c.Warnings = append(c.Warnings, warns...)
	}
	sort.Strings(c.Warnings)
	return c, nil
}

func topWhat(dir string) string {
	if dir == "" {
		return "top-level"
	}
	return "project"
}

// parser reads the servers of one file.
type parser struct {
	file    string
	data    []byte
	dialect Dialect
	lookup  func(string) (string, bool)
	inputs  map[string]vscodeInput
}

func (p parser) server(name string, body json.RawMessage) (*ServerConfig, []string) {
	file := p.file
	sc := &ServerConfig{Name: name, Source: file}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		sc.Err = fmt.Errorf("%s: server %q: want an object", file, name)
		return sc, nil
	}
	line := func(k string) int { return fieldLine(p.data, body, k) }
	var warns []string
	for _, k := range sortedKeys(fields) {
		if dialectFields[p.dialect][k] {
			continue // read below, as that client means it
		}
		if !knownFields[k] {
			warns = append(warns, fmt.Sprintf("%s: server %q: %s", where(file, line(k)), name, unknownField(p.dialect, k)))
			continue
		}
		if err := json.Unmarshal(fields[k], fieldPtr(sc, k)); err != nil {
			sc.Err = fmt.Errorf("%s: server %q: field %s: %s", where(file, line(k)), name, k, typeMessage(err))
			return sc, warns
		}
	}
	switch p.dialect {
	case DialectGemini:
		warns = append(warns, applyGemini(sc, fields, file, line)...)
		bareServer(sc)
	case DialectVSCode:
		if _, ok := fields["envFile"]; ok {
			warns = append(warns, fmt.Sprintf("%s: server %q: \"envFile\" is not read; put the variables in \"env\"", where(file, line("envFile")), name))
		}
		if err := p.fillInputs(sc); err != nil {
			sc.Err = fmt.Errorf("%s: server %q: %w", file, name, err)
			return sc, warns
		}
	}
	inheritBuiltIn(sc)
	sc.Err = validate(sc, file)
	if sc.Err == nil {
		sc.Err = expandServer(sc, p.lookup)
		if sc.Err != nil {
			sc.Err = fmt.Errorf("%s: server %q: %w", file, name, sc.Err)
		}
	}
	return sc, warns
}

// inheritBuiltIn gives an entry named DefaultServerName that sets neither
// command nor url the built-in command, args (unless given) and env (theirs
// added), so
// {"chrome-devtools": {"disabled": true}} turns the default off and
// {"chrome-devtools": {"timeout": "3m"}} tunes it without repeating it.
func inheritBuiltIn(sc *ServerConfig) {
	if sc.Name != DefaultServerName || sc.Command != "" || sc.URL != "" || sc.Transport() != TypeStdio {
		return
	}
	def := defaultServer()
	sc.Command = def.Command
	if sc.Args == nil {
		sc.Args = def.Args
	}
	for k, v := range sc.Env { // theirs over the built-in's
		def.Env[k] = v
	}
	sc.Env = def.Env
}

func fieldPtr(sc *ServerConfig, k string) any {
	switch k {
	case "type":
		return &sc.Type
	case "command":
		return &sc.Command
	case "args":
		return &sc.Args
	case "env":
		return &sc.Env
	case "cwd":
		return &sc.Cwd
	case "url":
		return &sc.URL
	case "headers":
		return &sc.Headers
	case "disabled":
		return &sc.Disabled
	case "timeout":
		return &sc.Timeout
	case "callTimeout":
		return &sc.CallTimeout
	case "includeTools":
		return &sc.IncludeTools
	case "oauth":
		return &sc.OAuth
	default:
		return &sc.ExcludeTools
	}
}

func typeMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("want %s, got %s", te.Type, te.Value)
	}
	return err.Error()
}

func validate(sc *ServerConfig, file string) error {
	prefix := fmt.Sprintf("%s: server %q", file, sc.Name)
	switch {
	case sc.Command != "" && sc.URL != "":
		return fmt.Errorf("%s: both command and url are set; keep one (command for stdio, url for http/sse)", prefix)
	case sc.Command == "" && sc.URL == "":
		return fmt.Errorf("%s: set command (stdio) or url (http/sse)", prefix)
	}
	switch sc.Type {
	case "", TypeStdio, TypeHTTP, TypeSSE:
	case "streamable-http", "streamableHttp":
		sc.Type = TypeHTTP
	default:
		return fmt.Errorf("%s: field type: %q is not stdio, http or sse", prefix, sc.Type)
	}
	if sc.Type == TypeStdio && sc.Command == "" {
		return fmt.Errorf("%s: type stdio needs command", prefix)
	}
	if (sc.Type == TypeHTTP || sc.Type == TypeSSE) && sc.URL == "" {
		return fmt.Errorf("%s: type %s needs url", prefix, sc.Type)
	}
	if err := sc.OAuth.check(); err != nil {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	return nil
}

var varRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
})

// expand replaces ${VAR} and ${VAR:-default}. An unset VAR without a
// default is an error naming it.
func expand(s string, lookup func(string) (string, bool)) (string, error) {
	var missing []string
	out := varRE().ReplaceAllStringFunc(s, func(m string) string {
		sub := varRE().FindStringSubmatch(m)
		if v, ok := lookup(sub[1]); ok && (v != "" || sub[2] == "") {
			return v
		}
		if sub[2] != "" {
			return sub[3]
		}
		missing = append(missing, sub[1])
		return m
	})
	if len(missing) > 0 {
		return s, fmt.Errorf("environment variable %s is not set (set it or write ${%s:-default})", missing[0], missing[0])
	}
	return out, nil
}

func expandServer(sc *ServerConfig, lookup func(string) (string, bool)) error {
	var first error
	sc.eachExpandable(func(field string, s *string) {
		v, err := expand(*s, lookup)
		if err != nil && first == nil {
			first = fmt.Errorf("field %s: %w", field, err)
		}
		*s = v
	})
	return first
}

// eachExpandable calls fn with every field of sc that takes variables
// (${VAR}; in their own files Gemini CLI's $VAR and VS Code's ${input:id}),
// named as an error names it, in a fixed order: the one list of them.
func (sc *ServerConfig) eachExpandable(fn func(field string, s *string)) {
	fn("command", &sc.Command)
	fn("cwd", &sc.Cwd)
	fn("url", &sc.URL)
	for i := range sc.Args {
		fn("args", &sc.Args[i])
	}
	for _, k := range sortedKeys(sc.Env) {
		v := sc.Env[k]
		fn("env."+k, &v)
		sc.Env[k] = v
	}
	for _, k := range sortedKeys(sc.Headers) {
		v := sc.Headers[k]
		fn("headers."+k, &v)
		sc.Headers[k] = v
	}
	if sc.OAuth != nil {
		fn("oauth.clientId", &sc.OAuth.ClientID)
		fn("oauth.clientSecret", &sc.OAuth.ClientSecret)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// syntaxError turns a JSON decode error into "file:line:col: message".
func syntaxError(data []byte, file string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var off int64 = -1
	msg := err.Error()
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off, msg = te.Offset, "the file must be a JSON object like {\"mcpServers\": {...}}"
	}
	if off < 0 {
		return fmt.Errorf("%s: %v", file, err)
	}
	line, col := lineCol(data, int(off))
	return fmt.Errorf("%s:%d:%d: invalid JSON: %s", file, line, col, msg)
}

func lineCol(data []byte, off int) (int, int) {
	off = min(off, len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	if off > 0 && col > 1 {
		col-- // Offset points just past the offending byte.
	}
	return line, col
}

// editUserConfig rewrites path, applying edit to its top-level
// "mcpServers" object while keeping every other field. It creates the file
// (and its directory) when missing.
func editUserConfig(path string, edit func(servers map[string]json.RawMessage) error) error {
	return editScope(path, ScopeUser, "", edit)
}

// ParseCommandLine splits "npx -y pkg --flag 'a b'" into words, honouring
// single and double quotes and backslash escapes (for --cmd).
func ParseCommandLine(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	runes := []rune(s)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == '\'':
			cur.WriteRune(r)
		case r == '\\' && i+1 < len(runes):
			i++
			cur.WriteRune(runes[i])
			inWord = true
		case quote == 0 && (r == '\'' || r == '"'):
			quote, inWord = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

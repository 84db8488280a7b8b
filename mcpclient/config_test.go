package mcpclient

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestParse(t *testing.T) {
	vars := env(map[string]string{"TOKEN": "s3cret", "HOME": "/home/me", "EMPTY": ""})
	tests := []struct {
		name     string
		json     string
		want     map[string]*ServerConfig
		wantErrs map[string]string // server -> substring of its Err
		warnings []string
	}{
		{
			name: "stdio and http with expansion",
			json: `{"mcpServers": {
				"fs": {"command": "npx", "args": ["-y", "fs-server", "${HOME}/docs"], "env": {"K": "${MISSING:-dflt}"}, "cwd": "${HOME}"},
				"api": {"url": "https://example.test/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "timeout": 5000, "callTimeout": "2m"},
				"old": {"type": "sse", "url": "http://127.0.0.1:9/sse", "disabled": true, "includeTools": ["a*"], "excludeTools": ["ab"]}
			}}`,
			want: map[string]*ServerConfig{
				"fs":  {Name: "fs", Command: "npx", Args: []string{"-y", "fs-server", "/home/me/docs"}, Env: map[string]string{"K": "dflt"}, Cwd: "/home/me"},
				"api": {Name: "api", URL: "https://example.test/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}, Timeout: Duration(5 * time.Second), CallTimeout: Duration(2 * time.Minute)},
				"old": {Name: "old", Type: "sse", URL: "http://127.0.0.1:9/sse", Disabled: true, IncludeTools: []string{"a*"}, ExcludeTools: []string{"ab"}},
			},
		},
		{
			name: "bad entries fail alone",
			json: `{"mcpServers": {
				"both": {"command": "x", "url": "http://127.0.0.1:1"},
				"neither": {"args": ["a"]},
				"unset": {"command": "run", "args": ["--key=${NOPE}"]},
				"emptydefault": {"command": "run", "args": ["${EMPTY:-fallback}", "${EMPTY}"]},
				"badtype": {"command": "x", "args": "not-a-list"},
				"badkind": {"type": "websocket", "url": "ws://x"},
				"good": {"command": "ok", "extra": 1}
			}, "version": 2}`,
			want: map[string]*ServerConfig{
				"emptydefault": {Name: "emptydefault", Command: "run", Args: []string{"fallback", ""}},
				"good":         {Name: "good", Command: "ok"},
			},
			wantErrs: map[string]string{
				"both":    `server "both": both command and url are set`,
				"neither": `server "neither": set command (stdio) or url (http/sse)`,
				"unset":   `field args: environment variable NOPE is not set`,
				"badtype": `field args: want []string, got string`,
				"badkind": `field type: "websocket" is not stdio, http or sse`,
			},
			warnings: []string{
				`f.json:8: server "good": unknown field "extra" ignored`,
				`f.json:9: unknown top-level field "version" ignored`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.json), "f.json", vars)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]*ServerConfig{}
			for name, sc := range c.Servers {
				if sc.Err != nil {
					want, ok := tc.wantErrs[name]
					if !ok || !strings.Contains(sc.Err.Error(), want) || !strings.HasPrefix(sc.Err.Error(), "f.json") {
						t.Errorf("server %s: err %q, want one starting with f.json and containing %q", name, sc.Err, want)
					}
					delete(tc.wantErrs, name)
					continue
				}
				got[name] = sc
			}
			for name := range tc.wantErrs {
				t.Errorf("server %s: no error, want %q", name, tc.wantErrs[name])
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(ServerConfig{}, "Source", "Err")); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.warnings, c.Warnings, cmpopts.SortSlices(func(a, b string) bool { return a < b }), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSyntaxErrors(t *testing.T) {
	tests := []struct{ json, want string }{
		{"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", "f.json:3:26: invalid JSON: invalid character '}'"},
		{"{\"mcpServers\": {}", "f.json:1:17: invalid JSON: unexpected end of JSON input"},
		{"[1,2]", "f.json:1:1: invalid JSON: the file must be a JSON object"},
		{"  ", "f.json: empty file"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.json), "f.json", env(nil))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error = %v, want prefix %q", tc.json, err, tc.want)
		}
	}
}

func TestLoadFilesMerge(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	project := filepath.Join(dir, ".mcp.json")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(user, `{"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}}}`)
	write(project, `{"mcpServers": {"b": {"command": "project-b"}, "c": {"url": "http://127.0.0.1:1/mcp"}}}`)

	c, err := LoadFiles([]ConfigFile{{Path: user}, {Path: project}, {Path: filepath.Join(dir, "missing.json")}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for n, sc := range c.Servers {
		got[n] = sc.Command + sc.URL + " from " + filepath.Base(sc.Source)
	}
	want := map[string]string{"a": "user-a from user.json", "b": "project-b from .mcp.json", "c": "http://127.0.0.1:1/mcp from .mcp.json",
		DefaultServerName: "npx from built-in"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}

	if _, err := LoadFiles([]ConfigFile{{Path: filepath.Join(dir, "missing.json"), Required: true}}); err == nil {
		t.Error("a missing --mcp-config file is not an error")
	}
	def, err := LoadFiles([]ConfigFile{{Path: filepath.Join(dir, "missing.json")}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(DefaultConfig(), def); diff != "" {
		t.Errorf("no files: want the built-in default (-want +got):\n%s", diff)
	}
	wantArgs := []string{"-y", "chrome-devtools-mcp@1.11.0", "--no-performance-crux"}
	if diff := cmp.Diff(wantArgs, def.Servers[DefaultServerName].Args); diff != "" {
		t.Errorf("default args (-want +got):\n%s", diff)
	}
}

// TestLoadFilesBuiltIn: the built-in chrome-devtools server is in every
// merged configuration unless a file defines that name; a file's entry
// wins, and one without command or url keeps the built-in command. State
// and Source are what the manager reports (mcp list) before starting.
func TestLoadFilesBuiltIn(t *testing.T) {
	type row struct {
		Command, URL string
		Args         []string
		Env          map[string]string
		Timeout      Duration
		State        string // before Start: starting, disabled or error
		Source       string
	}
	def := defaultServer()
	builtIn := row{Command: def.Command, Args: def.Args, Env: def.Env, State: "starting", Source: "built-in"}
	withEnv := func(k, v string) map[string]string {
		e := cloneMap(def.Env)
		e[k] = v
		return e
	}
	tests := []struct {
		name  string
		files []string // contents, merged in order; "" = a missing file
		want  map[string]row
	}{
		{
			name:  "no file",
			files: []string{""},
			want:  map[string]row{DefaultServerName: builtIn},
		},
		{
			name:  "a file with another server: both",
			files: []string{`{"mcpServers": {"x": {"command": "run-x"}}}`},
			want:  map[string]row{"x": {Command: "run-x", State: "starting", Source: "f0.json"}, DefaultServerName: builtIn},
		},
		{
			name:  "the last server removed: the built-in stays",
			files: []string{`{"mcpServers": {}}`},
			want:  map[string]row{DefaultServerName: builtIn},
		},
		{
			name:  "a file redefining chrome-devtools: theirs",
			files: []string{`{"mcpServers": {"chrome-devtools": {"command": "my-cdm", "args": ["--isolated"]}}}`},
			want:  map[string]row{DefaultServerName: {Command: "my-cdm", Args: []string{"--isolated"}, State: "starting", Source: "f0.json"}},
		},
		{
			name:  "redefined over http",
			files: []string{`{"mcpServers": {"chrome-devtools": {"url": "http://127.0.0.1:1/mcp"}}}`},
			want:  map[string]row{DefaultServerName: {URL: "http://127.0.0.1:1/mcp", State: "starting", Source: "f0.json"}},
		},
		{
			name: "disabled in the project file: listed as disabled",
			files: []string{`{"mcpServers": {"x": {"command": "run-x"}}}`,
				`{"mcpServers": {"chrome-devtools": {"disabled": true}}}`},
			want: map[string]row{
				"x":               {Command: "run-x", State: "starting", Source: "f0.json"},
				DefaultServerName: {Command: def.Command, Args: def.Args, Env: def.Env, State: "disabled", Source: "f1.json"},
			},
		},
		{
			name:  "tuned without repeating the command",
			files: []string{`{"mcpServers": {"chrome-devtools": {"timeout": "3m", "env": {"DEBUG": "*"}}}}`},
			want: map[string]row{DefaultServerName: {Command: def.Command, Args: def.Args, Env: withEnv("DEBUG", "*"),
				Timeout: Duration(3 * time.Minute), State: "starting", Source: "f0.json"}},
		},
		{
			name:  "a broken redefinition fails that entry, not back to the built-in",
			files: []string{`{"mcpServers": {"chrome-devtools": {"type": "sse"}}}`},
			want:  map[string]row{DefaultServerName: {State: "error", Source: "f0.json"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var files []ConfigFile
			for i, body := range tc.files {
				p := filepath.Join(dir, "f"+strconv.Itoa(i)+".json")
				if body != "" {
					if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				files = append(files, ConfigFile{Path: p})
			}
			c, err := LoadFiles(files)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]row{}
			m := NewManager(c, nil) // not started: nothing runs
			defer m.Close()
			for _, st := range m.Status() {
				sc := c.Servers[st.Name]
				if sc.URL == "" && sc.Err == nil && sc.Command == "" {
					t.Errorf("server %s has neither command nor url", st.Name)
				}
				got[st.Name] = row{Command: sc.Command, URL: sc.URL, Args: sc.Args, Env: sc.Env, Timeout: sc.Timeout,
					State: st.State.String(), Source: filepath.Base(st.Source)}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEditUserConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "mcp.json")
	add := func(name string, sc ServerConfig) {
		t.Helper()
		err := editUserConfig(path, func(s map[string]json.RawMessage) error {
			b, _ := json.Marshal(sc)
			s[name] = b
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("one", ServerConfig{Command: "npx", Args: []string{"-y", "pkg"}})
	add("two", ServerConfig{URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X-Key": "k"}})
	err := editUserConfig(path, func(s map[string]json.RawMessage) error { delete(s, "one"); return nil })
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadFiles([]ConfigFile{{Path: path, Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{DefaultServerName, "two"}, c.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if got := c.Servers["two"].Headers["X-Key"]; got != "k" {
		t.Errorf("header = %q", got)
	}
}

func TestParseCommandLine(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"npx -y @modelcontextprotocol/server-everything", []string{"npx", "-y", "@modelcontextprotocol/server-everything"}},
		{`run --name "a b" 'c d' e\ f`, []string{"run", "--name", "a b", "c d", "e f"}},
		{`x ""`, []string{"x", ""}},
	}
	for _, tc := range tests {
		got, err := ParseCommandLine(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseCommandLine(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	if _, err := ParseCommandLine(`x "open`); err == nil {
		t.Error("unterminated quote accepted")
	}
}

// TestDefaultFilesReadClaudeCode: the servers `claude mcp add` keeps in
// ~/.claude.json (user scope, and local scope for this directory) are in
// the default configuration, each naming that file as its source;
// browseragent's own file wins a name both have; Claude Code's disable
// list is its own; a broken ~/.claude.json is a warning, not a failed
// start. The file is only read.
func TestDefaultFilesReadClaudeCode(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	wd := t.TempDir()
	cc := filepath.Join(home, ".claude.json")
	claude := `{"numStartups": 3, "mcpServers": {"cc-user": {"type": "stdio", "command": "cc-user-server", "args": [], "env": {}},
  "both": {"type": "stdio", "command": "claude-version"}},
 "projects": {"` + wd + `": {"allowedTools": [], "mcpServers": {"cc-local": {"type": "http", "url": "http://127.0.0.1:1/mcp"}},
   "disabledMcpServers": ["cc-user"]}}}`
	if err := os.WriteFile(cc, []byte(claude), 0o600); err != nil {
		t.Fatal(err)
	}
	own := UserConfigPath()
	if err := os.MkdirAll(filepath.Dir(own), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte(`{"mcpServers": {"both": {"command": "browseragent-version"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadFiles(DefaultFiles(wd))
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Command, URL, Source string }
	got := map[string]row{}
	for _, n := range cfg.Names() {
		sc := cfg.Servers[n]
		if n != DefaultServerName {
			got[n] = row{sc.Command, sc.URL, sc.Source}
		}
		if n == "cc-user" && sc.Disabled {
			t.Errorf("Claude Code's disabledMcpServers turned cc-user off in browseragent")
		}
	}
	want := map[string]row{
		"cc-user":  {"cc-user-server", "", cc},
		"cc-local": {"", "http://127.0.0.1:1/mcp", cc},
		"both":     {"browseragent-version", "", own},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("servers (-want +got)\n%s", diff)
	}
	after, _ := os.ReadFile(cc)
	if string(after) != claude {
		t.Errorf("~/.claude.json was changed")
	}

	if err := os.WriteFile(cc, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = LoadFiles(DefaultFiles(wd))
	if err != nil || len(cfg.Warnings) == 0 || !strings.Contains(strings.Join(cfg.Warnings, "\n"), cc) {
		t.Errorf("a broken ~/.claude.json: err %v, warnings %q; want a warning naming it", err, cfg.Warnings)
	}
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/internal/testutil"
)

// cliStep is one command of a CLI table test: its exit code and regexps
// its stdout and stderr must match.
type cliStep struct {
	args     []string
	code     int
	out, err string
}

func runSteps(t *testing.T, steps []cliStep) {
	t.Helper()
	for _, st := range steps {
		code, out, errs := mcpCLI(t, "", st.args...)
		if code != st.code || !regexp.MustCompile(st.out).MatchString(out) || !regexp.MustCompile(st.err).MatchString(errs) {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want %d, /%s/, /%s/", st.args, code, out, errs, st.code, st.out, st.err)
		}
	}
}

func readJSONFile(t *testing.T, p string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(mcpReadFile(t, p), &v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return v
}

// TestMCPConfigCommands drives Claude Code's configuration commands (add
// with -t/-e/-H/-s, add-json, get, remove, enable/disable,
// reset-project-choices, add-from-claude-desktop) against the real test
// server, and checks the files they write: local and user servers in
// browseragent's own mcp.json, project servers in ./.mcp.json.
func TestMCPConfigCommands(t *testing.T) {
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	bin := rawServerBin(t)
	dir := mcpEnv(t)
	t.Setenv("HOME", dir)
	desktop := filepath.Join(dir, "config", "Claude", "claude_desktop_config.json")
	if err := os.MkdirAll(filepath.Dir(desktop), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(desktop, []byte(`{"mcpServers": {
  "desk1": {"command": "`+bin+`", "args": ["ok"]},
  "desk2": {"url": "http://127.0.0.1:1/mcp"},
  "loc": {"command": "`+bin+`", "args": ["ok"]}
}, "globalShortcut": "Ctrl+Space"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	runSteps(t, []cliStep{
		// The built-in server would start npx: off for this directory.
		{[]string{"mcp", "disable", "chrome-devtools"}, 0, `disabled MCP server "chrome-devtools" in .*undo: browseragent mcp enable -s local chrome-devtools`, `^$`},
		{[]string{"mcp", "add", "-e", "K=v", "-e", "SECRET=hunter2", "loc", "--", bin, "ok"}, 0, `added stdio MCP server "loc" \(.* ok\) to local config \(.*mcp.json, for ` + regexp.QuoteMeta(dir) + `\)`, `^$`},
		{[]string{"mcp", "add", "-s", "user", "-t", "http", "-H", "Authorization: Bearer s3cret", "web", "http://127.0.0.1:1/mcp"}, 0, `added http MCP server "web" \(http://127.0.0.1:1/mcp\) to user config`, `^$`},
		{[]string{"mcp", "add", "--scope", "project", "--transport", "sse", "old", "http://127.0.0.1:1/sse"}, 0, `added sse MCP server "old" .* to project config \(` + regexp.QuoteMeta(filepath.Join(dir, ".mcp.json")) + `\)`, `^$`},
		{[]string{"mcp", "add", "-s", "project", "proj", bin, "ok"}, 0, `added stdio MCP server "proj"`, `^$`},
		{[]string{"mcp", "add-json", "-s", "user", "js", `{"command":"` + bin + `","args":["ok"],"env":{"T":"${TOKEN:-x}"}}`}, 0, `added MCP server "js" to user config`, `^$`},
		// Bad input names the flag or the field.
		{[]string{"mcp", "add", "-t", "ftp", "x", "y"}, 2, `^$`, `--transport "ftp": want stdio, http or sse`},
		{[]string{"mcp", "add", "-s", "global", "x", "y"}, 2, `^$`, `--scope "global": want local, user or project`},
		{[]string{"mcp", "add", "-H", "A: b", "x", "--", "cmd"}, 2, `^$`, `--header is for http/sse servers`},
		{[]string{"mcp", "add", "-t", "http", "-e", "A=b", "x", "http://127.0.0.1:1/"}, 2, `^$`, `--env is for stdio servers`},
		{[]string{"mcp", "add", "-e", "NOEQUALS", "x", "--", "cmd"}, 2, `^$`, `--env "NOEQUALS": want KEY=VALUE`},
		{[]string{"mcp", "add", "-t", "http", "-H", "nocolon", "x", "http://127.0.0.1:1/"}, 2, `^$`, `--header "nocolon": want "Key: Value"`},
		{[]string{"mcp", "add", "x", "http://127.0.0.1:1/mcp"}, 2, `^$`, `is a URL, but the transport is stdio \(the default\): add -t http`},
		{[]string{"mcp", "add", "-t", "http", "x", "ftp://h/"}, 2, `^$`, `URL "ftp://h/": want http://HOST/PATH`},
		{[]string{"mcp", "add", "-t", "http", "x", "http://a/", "extra"}, 2, `^$`, `--transport http takes one URL after NAME`},
		{[]string{"mcp", "add", "bad name", "--", "cmd"}, 2, `^$`, `server name "bad name": use only letters, digits, - and _`},
		{[]string{"mcp", "add", "--", "cmd"}, 2, `^$`, `NAME comes before --`},
		{[]string{"mcp", "add", "-s", "user", "--project", "x", "--", "cmd"}, 2, `^$`, `--project and --scope user contradict`},
		{[]string{"mcp", "add-json", "x", `[1]`}, 2, `^$`, `JSON must be a JSON object`},
		{[]string{"mcp", "add-json", "x", `{"command":"a","url":"http://b/"}`}, 2, `^$`, `JSON: server "x": both command and url are set`},
		{[]string{"mcp", "add-json", "x", `{"type":"websocket","url":"ws://b/"}`}, 2, `^$`, `field type: "websocket" is not stdio, http or sse`},
		{[]string{"mcp", "add", "loc", "--", bin, "ok"}, 1, `^$`, `MCP server "loc" already exists in local config .*remove it first with: browseragent mcp remove -s local loc`},
		// get: where, what, state; values of env and headers never shown.
		{[]string{"mcp", "get", "loc"}, 0, `(?s)^loc:\n  Scope: local config \(private to you in ` + regexp.QuoteMeta(dir) + `\)\n  File: .*/config/browseragent/mcp.json\n  Status: ready \(5 tools, \d+ prompts, \d+ resources\)\n  Type: stdio\n  Command: .* ok\n  Environment: K, SECRET \(values hidden\)\n\nTo remove this server, run: browseragent mcp remove -s local loc\n$`, `^$`},
		{[]string{"mcp", "get", "web"}, 0, `(?s)Scope: user config.*Status: error: .*connection refused.*URL: http://127.0.0.1:1/mcp\n  Headers: Authorization \(values hidden\)\n`, `^$`},
		{[]string{"mcp", "get", "js"}, 0, `(?s)Status: ready.*Environment: T \(values hidden\)`, `^$`},
		{[]string{"mcp", "get", "proj"}, 0, `(?s)Scope: project config \(shared via .mcp.json\)\n  File: ` + regexp.QuoteMeta(filepath.Join(dir, ".mcp.json")) + `\n  Status: ready`, `^$`},
		{[]string{"mcp", "get", "chrome-devtools"}, 0, `(?s)Scope: built-in\n  Status: disabled by 'browseragent mcp disable'`, `^$`},
		{[]string{"mcp", "get", "nope"}, 1, `^$`, `no MCP server named "nope"; configured: chrome-devtools, js, loc, old, proj, web`},
		// The same name in two scopes: the local one wins; remove asks which.
		{[]string{"mcp", "add", "-s", "user", "loc", "--", bin, "ok"}, 0, `to user config`, `^$`},
		{[]string{"mcp", "get", "loc"}, 0, `(?s)Scope: local config.*Also defined in: user config .*\(this one wins\)`, `^$`},
		{[]string{"mcp", "remove", "loc"}, 2, `^$`, `MCP server "loc" is in the local and user configs; say which with -s local\|user`},
		{[]string{"mcp", "remove", "-s", "user", "loc"}, 0, `removed MCP server "loc" from user config`, `^$`},
		{[]string{"mcp", "remove", "old"}, 0, `removed MCP server "old" from project config`, `^$`},
		{[]string{"mcp", "remove", "old"}, 1, `^$`, `no MCP server "old" in the local, project or user config`},
		// enable/disable last across runs.
		{[]string{"mcp", "disable", "loc"}, 0, `disabled MCP server "loc"`, `^$`},
		{[]string{"mcp", "list"}, 0, `(?m)^loc +disabled +- `, `^$`},
		{[]string{"mcp", "enable", "loc"}, 0, `enabled MCP server "loc"`, `^$`},
		{[]string{"mcp", "list"}, 0, `(?m)^loc +ready +5 `, `^$`},
		{[]string{"mcp", "disable", "-s", "project", "loc"}, 2, `^$`, `--scope project: disable is your own choice`},
		{[]string{"mcp", "disable", "nope"}, 1, `^$`, `no MCP server named "nope"`},
		// reset-project-choices forgets the approval of ./.mcp.json.
		{[]string{"mcp", "reset-project-choices"}, 0, `forgot your approval of ` + regexp.QuoteMeta(filepath.Join(dir, ".mcp.json")), `^$`},
		{[]string{"mcp", "get", "proj"}, 0, `Status: pending approval: .*\.mcp\.json is not trusted, so nothing was started`, `^$`},
		{[]string{"mcp", "reset-project-choices"}, 0, `no approval of .* was recorded`, `^$`},
		// add-from-claude-desktop: the names given, or all; never a replacement.
		{[]string{"mcp", "add-from-claude-desktop"}, 2, `(?s)MCP servers in .*claude_desktop_config.json:\n  1. desk1: .*\n  2. desk2: http http://127.0.0.1:1/mcp\n  3. loc: `, `name the servers to import, or give --all`},
		{[]string{"mcp", "add-from-claude-desktop", "-s", "user", "desk1"}, 0, `added MCP server "desk1"\nimported 1 of 1 server\(s\) to user config`, `^$`},
		{[]string{"mcp", "add-from-claude-desktop", "-s", "user", "--all"}, 1, `added MCP server "desk2"\nadded MCP server "loc"\nimported 2 of 3`, `skipped "desk1": MCP server "desk1" already exists in user config`},
		{[]string{"mcp", "add-from-claude-desktop", "nope"}, 2, `^$`, `has no server "nope"; it has: desk1, desk2, loc`},
		{[]string{"mcp", "add-from-claude-desktop", "--file", filepath.Join(dir, "none.json")}, 1, `^$`, `no Claude Desktop config at .*none.json`},
	})

	user := readJSONFile(t, filepath.Join(dir, "config", "browseragent", "mcp.json"))
	wantUser := map[string]any{
		"mcpServers": map[string]any{
			"web":   map[string]any{"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": map[string]any{"Authorization": "Bearer s3cret"}},
			"js":    map[string]any{"command": bin, "args": []any{"ok"}, "env": map[string]any{"T": "${TOKEN:-x}"}},
			"desk1": map[string]any{"command": bin, "args": []any{"ok"}},
			"desk2": map[string]any{"url": "http://127.0.0.1:1/mcp"},
			"loc":   map[string]any{"command": bin, "args": []any{"ok"}},
		},
		"projects": map[string]any{dir: map[string]any{
			"disabledMcpServers": []any{"chrome-devtools"},
			"mcpServers":         map[string]any{"loc": map[string]any{"command": bin, "args": []any{"ok"}, "env": map[string]any{"K": "v", "SECRET": "hunter2"}}},
		}},
	}
	if diff := cmp.Diff(wantUser, user); diff != "" {
		t.Errorf("user file (-want +got):\n%s", diff)
	}
	project := readJSONFile(t, filepath.Join(dir, ".mcp.json"))
	wantProject := map[string]any{"mcpServers": map[string]any{"proj": map[string]any{"command": bin, "args": []any{"ok"}}}}
	if diff := cmp.Diff(wantProject, project); diff != "" {
		t.Errorf(".mcp.json (-want +got):\n%s", diff)
	}
	if fi, err := os.Stat(filepath.Join(dir, "config", "browseragent", "mcp.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("user file mode: %v %v, want 0600", fi.Mode(), err)
	}
	if data := string(mcpReadFile(t, desktop)); !strings.Contains(data, "globalShortcut") || strings.Contains(data, "projects") {
		t.Errorf("Claude Desktop's file was changed:\n%s", data)
	}
}

// TestGeminiTrust: a Gemini CLI settings.json server with "trust": true
// runs its tools without --yes (isolated mode, an ordinary call through
// the registry), the same server without it still needs approval, and
// `mcp get` says what the trust does.
func TestGeminiTrust(t *testing.T) {
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	bin := rawServerBin(t)
	dir := mcpEnv(t)
	settings := filepath.Join(dir, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	body := `{"mcpServers": {
  "trusted": {"command": "` + bin + `", "args": ["ok"], "trust": true},
  "plain": {"command": "` + bin + `", "args": ["ok"]},
  "chrome-devtools": {"disabled": true}
}}`
	if err := os.WriteFile(settings, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	runSteps(t, []cliStep{
		{[]string{"mcp", "call", "--mcp-config", settings, "trusted", "echo", `{"message":"no question asked"}`}, 0, `^no question asked\n$`, `^$`},
		{[]string{"mcp", "call", "--mcp-config", settings, "plain", "echo", `{"message":"hi"}`}, 1, `approval`, `^browseragent: mcp__\w+__echo may change something[^\n]*--yes`},
		{[]string{"mcp", "get", "--mcp-config", settings, "trusted"}, 0, `(?s)Scope: --mcp-config file\n  File: ` + regexp.QuoteMeta(settings) + `\n  Status: ready.*Trust: "trust": true \(Gemini CLI\): its tools run without asking in isolated mode`, `^$`},
	})
	entries, err := guardAudit(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(entries, `configured with \"trust\": true`) {
		t.Errorf("the audit log does not say why the trusted call ran:\n%s", entries)
	}
}

func guardAudit(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "state", "browseragent", "audit.jsonl"))
	return string(b), err
}

// TestPickNames: the answer to add-from-claude-desktop's question.
func TestPickNames(t *testing.T) {
	names := []string{"a", "b", "c"}
	tests := []struct {
		answer string
		want   []string
		err    string
	}{
		{"", nil, ""},
		{"1,3", []string{"a", "c"}, ""},
		{"b, 1", []string{"b", "a"}, ""},
		{"all", names, ""},
		{"4", nil, `"4" is not one of the numbers or names listed`},
		{"x", nil, `"x" is not one of the numbers or names listed`},
	}
	for _, tt := range tests {
		got, err := pickNames(tt.answer, names)
		if diff := cmp.Diff(tt.want, got); diff != "" || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("pickNames(%q) = %q, %v; want %q, %q (-want +got):\n%s", tt.answer, got, err, tt.want, tt.err, diff)
		}
	}
}

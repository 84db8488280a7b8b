package mcpclient

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// docExamples returns the JSON blocks of docs/mcp-host.md that follow a
// line naming their file: "<!-- doc-test file: NAME -->" (the doc test
// of package cli runs the commands shown after them).
func docExamples(t *testing.T) map[string]string {
	t.Helper()
	doc := string(must(os.ReadFile("../docs/mcp-host.md")))
	re := regexp.MustCompile("(?s)<!-- doc-test file: ([^ ]+) -->\\s*```json\\n(.*?)```")
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(doc, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestDialects reads each client's config as that client means it.
func TestDialects(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	vars := env(map[string]string{"TOKEN": "t0k", "HOME": "/home/me"})
	gemini := write(".gemini/settings.json", `{
  "theme": "Default",
  "mcpServers": {
    "remote": {"httpUrl": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer $TOKEN"}, "timeout": 30000, "trust": true, "oauth": {"clientId": "app", "clientSecret": "$TOKEN"}},
    "legacy": {"url": "http://127.0.0.1:9/sse"},
    "local": {"command": "node", "args": ["$HOME/srv.js"], "cwd": "/tmp", "includeTools": ["a*"], "excludeTools": ["ab"], "bogus": 1}
  }
}`)
	c, err := Parse(must(os.ReadFile(gemini)), gemini, vars)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ServerConfig{}
	for n, sc := range c.Servers {
		if sc.Err != nil {
			t.Fatalf("%s: %v", n, sc.Err)
		}
		got[n] = *sc
	}
	want := map[string]ServerConfig{
		"remote": {Name: "remote", Type: TypeHTTP, URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"Authorization": "Bearer t0k"}, CallTimeout: Duration(30 * time.Second), Trust: true, Source: gemini,
			OAuth: &OAuthConfig{ClientID: "app", ClientSecret: "t0k"}}, // $VAR in every field that is expanded
		"legacy": {Name: "legacy", Type: TypeSSE, URL: "http://127.0.0.1:9/sse", Source: gemini},
		"local":  {Name: "local", Command: "node", Args: []string{"/home/me/srv.js"}, Cwd: "/tmp", IncludeTools: []string{"a*"}, ExcludeTools: []string{"ab"}, Source: gemini},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(ServerConfig{}, "Err")); diff != "" {
		t.Errorf("gemini (-want +got):\n%s", diff)
	}
	wantWarn := []string{
		gemini + `:6: server "local": unknown field "bogus" ignored`,
	}
	if diff := cmp.Diff(wantWarn, c.Warnings, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("gemini warnings (-want +got):\n%s", diff)
	}

	PromptInput = func(file, id, desc string, password bool) (string, error) {
		if id != "api-key" || !password || desc != "The key" {
			t.Errorf("asked for %q %q %v", id, desc, password)
		}
		return "s3cret", nil
	}
	t.Cleanup(func() { PromptInput = nil })
	vscode := write("proj/.vscode/mcp.json", `{
  "inputs": [{"type": "promptString", "id": "api-key", "description": "The key", "password": true}],
  "servers": {
    "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "${input:api-key}"}},
    "again": {"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {"X-Key": "${input:api-key}"}},
    "fs": {"type": "stdio", "command": "npx", "args": ["-y", "srv", "${workspaceFolder}"]}
  }
}`)
	asked := 0
	inner := PromptInput
	PromptInput = func(file, id, desc string, password bool) (string, error) {
		asked++
		return inner(file, id, desc, password)
	}
	c, err = Parse(must(os.ReadFile(vscode)), vscode, vars)
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Errorf("input asked %d times, want once", asked)
	}
	for n, sc := range c.Servers {
		if sc.Err != nil {
			t.Fatalf("%s: %v", n, sc.Err)
		}
	}
	if h := c.Servers["web"].Headers["X-Key"]; h != "s3cret" || c.Servers["again"].Headers["X-Key"] != "s3cret" {
		t.Errorf("input not filled in: %q", h)
	}
	if a := c.Servers["fs"].Args[2]; a != filepath.Join(dir, "proj") {
		t.Errorf("workspaceFolder = %q", a)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("vscode warnings: %q", c.Warnings)
	}
	if c.Servers["again"].Transport() != TypeSSE || c.Servers["web"].Transport() != TypeHTTP {
		t.Error("types")
	}

	// Claude: "url" is Streamable HTTP, $VAR stays literal, unknown
	// fields of ~/.claude.json's own settings are not warned about.
	claude := write("home/.claude.json", `{"numStartups": 3, "mcpServers": {"x": {"url": "http://127.0.0.1:9/mcp", "headers": {"A": "$TOKEN"}}}}`)
	c, err = Parse(must(os.ReadFile(claude)), claude, vars)
	if err != nil {
		t.Fatal(err)
	}
	if sc := c.Servers["x"]; sc.Transport() != TypeHTTP || sc.Headers["A"] != "$TOKEN" || len(c.Warnings) != 0 {
		t.Errorf("claude: %+v %q", sc, c.Warnings)
	}

	// Another client's field in a Claude file says what it would mean.
	mcpjson := write("proj/.mcp.json", "{\"mcpServers\": {\"g\": {\"command\": \"c\",\n  \"httpUrl\": \"http://127.0.0.1:9/\",\n  \"trust\": true}}}")
	c, err = Parse(must(os.ReadFile(mcpjson)), mcpjson, vars)
	if err != nil {
		t.Fatal(err)
	}
	wantWarn = []string{
		mcpjson + `:2: server "g": "httpUrl" is Gemini CLI's (settings.json); in this file write "type": "http" and "url"; ignored`,
		mcpjson + `:3: server "g": "trust" is read only in Gemini CLI's settings.json; here each call is judged by the guard; ignored`,
	}
	if diff := cmp.Diff(wantWarn, c.Warnings); diff != "" {
		t.Errorf("claude file with Gemini fields (-want +got):\n%s", diff)
	}
	if c.Servers["g"].Trust {
		t.Error("trust honoured outside Gemini's settings.json")
	}
}

// TestDocExamplesWorkUnchanged: the Claude .mcp.json, Gemini settings.json
// and VS Code mcp.json shown in docs/mcp-host.md, written to files of
// those names, load without a warning and their servers start (the real
// server-everything over stdio).
func TestDocExamplesWorkUnchanged(t *testing.T) {
	parallel(t) // no other parallel test reads PromptInput
	requireNode(t)
	ex := docExamples(t)
	dir := t.TempDir()
	PromptInput = func(string, string, string, bool) (string, error) { return "token", nil }
	t.Cleanup(func() { PromptInput = nil })
	for _, name := range []string{".mcp.json", ".gemini/settings.json", ".vscode/mcp.json"} {
		body, ok := ex[name]
		if !ok {
			t.Fatalf("docs/mcp-host.md has no example for %s (have %v)", name, ex)
		}
		t.Run(name, func(t *testing.T) {
			parallel(t) // each example its own servers; PromptInput is set for all three
			p := filepath.Join(dir, name)
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadFiles([]ConfigFile{{Path: p, Required: true}})
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Warnings) > 0 {
				t.Errorf("warnings: %q", cfg.Warnings)
			}
			delete(cfg.Servers, DefaultServerName)
			var names []string
			for n, sc := range cfg.Servers {
				if sc.Err != nil {
					t.Fatalf("%s: %v", n, sc.Err)
				}
				if sc.Transport() != TypeStdio {
					delete(cfg.Servers, n) // remote examples point at no server here
					continue
				}
				names = append(names, n)
			}
			if len(names) == 0 {
				t.Fatal("no stdio server in the example to start")
			}
			m := startManager(t, cfg, &Options{InitTimeout: 120 * time.Second})
			for _, n := range names {
				waitReady(t, m, n)
				if !strings.Contains(call(t, m, toolName(n, "echo"), `{"message":"hi"}`).Text, "hi") {
					t.Errorf("%s: echo failed", n)
				}
			}
		})
	}
}

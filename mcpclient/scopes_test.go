package mcpclient

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScopesMerge: the user file's top level (user), the project's
// .mcp.json (project) and the user file's projects[dir] (local) merge as
// in Claude Code, local over project over user; enable/disable lists win
// over "disabled", except in a shared .mcp.json; ~/.claude.json given as
// a file is read whole, its projects[dir] included.
func TestScopesMerge(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	work := filepath.Join(dir, "work")
	write := func(p, body string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	user := write(UserConfigPath(), `{
  "mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}, "c": {"command": "user-c"}, "off": {"command": "x", "disabled": true}},
  "disabledMcpServers": ["c"],
  "projects": {
    "`+work+`": {"mcpServers": {"a": {"command": "local-a"}}, "enabledMcpServers": ["off"], "disabledMcpServers": ["chrome-devtools"]},
    "/elsewhere": {"mcpServers": {"z": {"command": "other-dir"}}}
  }
}`)
	project := write(filepath.Join(work, ".mcp.json"), `{"mcpServers": {"a": {"command": "project-a"}, "b": {"command": "project-b"}}, "enabledMcpServers": ["c"]}`)
	claude := write(filepath.Join(dir, ".claude.json"), `{"numStartups": 2, "mcpServers": {"cu": {"type": "sse", "url": "http://127.0.0.1:9/sse"}},
  "projects": {"`+work+`": {"allowedTools": [], "mcpServers": {"cl": {"type": "stdio", "command": "claude-local"}}, "disabledMcpServers": ["cu"], "hasTrustDialogAccepted": false}}}`)

	cfg, err := LoadFiles(DefaultFiles(work, claude))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Command, Source, Scope string
		Disabled, Toggled      bool
	}
	got := map[string]row{}
	for n, sc := range cfg.Servers {
		got[n] = row{sc.Command, sc.Source, sc.Scope, sc.Disabled, sc.Toggled}
	}
	want := map[string]row{
		"a":               {"local-a", user, ScopeLocal, false, false},
		"b":               {"project-b", project, "", false, false},
		"c":               {"user-c", user, "", true, true}, // the project file's enabledMcpServers does not count
		"off":             {"x", user, "", false, true},
		"chrome-devtools": {"npx", BuiltInSource, "", true, true},
		"cu":              {"", claude, "", true, true},
		"cl":              {"claude-local", claude, ScopeLocal, false, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
	for n, scope := range map[string]string{"a": ScopeLocal, "b": ScopeProject, "c": ScopeUser, "cu": "", "chrome-devtools": ""} {
		if s := ScopeOf(cfg.Servers[n], work); s != scope {
			t.Errorf("ScopeOf(%s) = %q, want %q", n, s, scope)
		}
	}
}

// TestEditScopes: editScope and SetToggle write only their part of the
// file and keep the rest; emptied parts disappear.
func TestEditScopes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	path := UserConfigPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"theme": "dark", "mcpServers": {"u": {"command": "u"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	must0 := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must0(editScope(path, ScopeLocal, "/w", func(s map[string]json.RawMessage) error { s["l"] = json.RawMessage(`{"command":"l"}`); return nil }))
	must0(SetToggle(ScopeLocal, "/w", "u", ToggleOff))
	must0(SetToggle(ScopeUser, "/w", "l", ToggleOn))
	servers, err := scopeServers(path, ScopeLocal, "/w")
	must0(err)
	var l ServerConfig
	if json.Unmarshal(servers["l"], &l) != nil || l.Command != "l" {
		t.Errorf("local servers: %s", servers)
	}
	want := `{
  "enabledMcpServers": [
    "l"
  ],
  "mcpServers": {
    "u": {
      "command": "u"
    }
  },
  "projects": {
    "/w": {
      "disabledMcpServers": [
        "u"
      ],
      "mcpServers": {
        "l": {
          "command": "l"
        }
      }
    }
  },
  "theme": "dark"
}
`
	if diff := cmp.Diff(want, string(must(os.ReadFile(path)))); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	must0(editScope(path, ScopeLocal, "/w", func(s map[string]json.RawMessage) error { delete(s, "l"); return nil }))
	must0(SetToggle(ScopeLocal, "/w", "u", ToggleClear))
	must0(SetToggle(ScopeUser, "/w", "l", ToggleClear))
	want = `{
  "mcpServers": {
    "u": {
      "command": "u"
    }
  },
  "theme": "dark"
}
`
	if diff := cmp.Diff(want, string(must(os.ReadFile(path)))); diff != "" {
		t.Errorf("file after undoing (-want +got):\n%s", diff)
	}
}

package xdg

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPaths(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory:", err)
	}
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"config set", ConfigPath(env(map[string]string{"XDG_CONFIG_HOME": "/c"}), "mcp.json"), "/c/browseragent/mcp.json"},
		{"config unset", ConfigPath(env(nil), "mcp.json"), filepath.Join(home, ".config", "browseragent", "mcp.json")},
		{"state set", StatePath(env(map[string]string{"XDG_STATE_HOME": "/s"}), "history"), "/s/browseragent/history"},
		{"state unset", StatePath(env(nil), "audit.jsonl"), filepath.Join(home, ".local", "state", "browseragent", "audit.jsonl")},
		{"config home", ConfigHome(env(map[string]string{"XDG_CONFIG_HOME": "/c"})), "/c"},
		{"output chosen", OutputDir(env(map[string]string{"BROWSERAGENT_OUTPUT_DIR": "/o", "XDG_DOWNLOAD_DIR": "/d"})), "/o"},
		{"output is the download folder", OutputDir(env(map[string]string{"BROWSERAGENT_DOWNLOAD_DIR": "/dl"})), "/dl"},
		{"output in downloads", OutputDir(env(map[string]string{"XDG_DOWNLOAD_DIR": "/d"})), "/d/browseragent"},
		{"output default", OutputDir(env(map[string]string{"HOME": "/h"})), "/h/Downloads/browseragent"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

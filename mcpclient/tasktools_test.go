package mcpclient

import (
	"strings"
	"testing"
	"time"
)

// TestTaskOnlyToolsNotOffered: a tool the server runs only as a task
// (SEP-1686, server-everything's simulate-research-query) is not offered,
// since every call browseragent made of it would fail, and the server's
// log says why; its other tools are.
func TestTaskOnlyToolsNotOffered(t *testing.T) {
	parallel(t)
	requireNode(t)
	cfg := &Config{Servers: map[string]*ServerConfig{
		"everything": {Name: "everything", Command: "npx", Args: []string{"-y", EverythingPackage}},
	}}
	m := startManager(t, cfg, &Options{InitTimeout: 120 * time.Second})
	waitReady(t, m, "everything")
	tools, err := m.ServerTools("everything")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tool := range tools {
		have[tool.RawName] = true
	}
	if have["simulate-research-query"] || !have["echo"] {
		t.Errorf("tools offered: %v; want echo and not the task-only simulate-research-query", have)
	}
	logs, err := m.Logs("everything")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(logs, "\n"), `tool "simulate-research-query" is not offered: the server runs it only as a task`) {
		t.Errorf("the server's log does not say why the tool is left out:\n%s", strings.Join(logs, "\n"))
	}
}

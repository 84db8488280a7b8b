package mcpclient

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// namedServers dials an in-memory go-sdk server per config name, each
// with the tools listed for it (a name twice means a duplicate).
func namedServers(t *testing.T, tools map[string][]string, opts *Options) *Manager {
	t.Helper()
	cfg := &Config{Servers: map[string]*ServerConfig{}}
	for name := range tools {
		cfg.Servers[name] = &ServerConfig{Name: name, Command: "unused"}
	}
	if opts == nil {
		opts = &Options{}
	}
	opts.Dial = func(name string, _ *ServerConfig) (mcp.Transport, error) {
		srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
		for _, tool := range tools[name] {
			text := name + "/" + tool
			srv.AddTool(&mcp.Tool{Name: tool, InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
				})
		}
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	m := startManager(t, cfg, opts)
	for name := range tools {
		waitReady(t, m, name)
	}
	return m
}

// TestNamesUniqueAcrossServers: server a__b's tool c and server a's tool
// b__c both map to mcp__a__b__c; each gets a stable suffixed name and
// calls reach the right one. Before: one name, routed at random.
func TestNamesUniqueAcrossServers(t *testing.T) {
	m := namedServers(t, map[string][]string{"a__b": {"c"}, "a": {"b__c", "d"}}, nil)
	names := map[string]string{}
	for _, tool := range m.Tools() {
		names[tool.Server+"/"+tool.RawName] = tool.Name
	}
	want := map[string]string{
		"a__b/c": collisionName("mcp__a__b__c", "a__b", "c"),
		"a/b__c": collisionName("mcp__a__b__c", "a", "b__c"),
		"a/d":    "mcp__a__d",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	for key, name := range want {
		if r := call(t, m, name, `{}`); r.Text != key {
			t.Errorf("%s called %q, want %q", name, r.Text, key)
		}
	}
	if _, err := m.CallTool(context.Background(), "mcp__a__b__c", nil); err == nil {
		t.Error("the shared name still routes somewhere")
	}
}

// TestNamesDuplicateInOneServer: a tool listed twice is offered once and
// reported. Before: listed twice.
func TestNamesDuplicateInOneServer(t *testing.T) {
	tools, dups := convertToolsDup("dup", &ServerConfig{}, []*mcp.Tool{{Name: "x"}, {Name: "y"}, {Name: "x"}})
	var got []string
	for _, tool := range tools {
		got = append(got, tool.Name)
	}
	if diff := cmp.Diff([]string{"mcp__dup__x", "mcp__dup__y"}, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`the server lists tool "x" more than once; only the first is offered`}, dups); diff != "" {
		t.Errorf("reported (-want +got):\n%s", diff)
	}
}

// TestNamesLongServer: a 56-character server name is shortened, not the
// tool names. Before: every tool became mcp__<server>…_<hash>.
func TestNamesLongServer(t *testing.T) {
	server := strings.Repeat("s", 39) + "-very-long-server"
	if len(server) != 56 {
		t.Fatalf("len %d", len(server))
	}
	got := toolName(server, "navigate_page")
	want := "mcp__" + server[:35] + "_" + hash8(server) + "__navigate_page"
	if got != want || len(got) > maxToolNameLen {
		t.Errorf("toolName = %q (%d), want %q", got, len(got), want)
	}
	if a, b := toolName(server, "click"), toolName(server, "navigate_page"); !strings.HasSuffix(a, "__click") || a == b {
		t.Errorf("click = %q", a)
	}
}

func TestMentioned(t *testing.T) {
	m := NewManager(&Config{Servers: map[string]*ServerConfig{
		"github": {Command: "x"}, "everything": {Command: "x"}, "my-db": {Command: "x"}, "db": {Command: "x"},
	}}, nil) // not started: nothing runs
	tests := []struct {
		task string
		want []string
	}{
		{"what is the secret word in http://127.0.0.1:8765/article.html?", nil},
		{"list my issues with @github", []string{"github"}},
		{"read @everything:test://static/resource/1", []string{"everything"}},
		{"Ask GitHub, then tell me everything.", []string{"everything", "github"}},
		{"query my-db for the totals", []string{"my-db"}},
		{"githubbing is not a server, nor is my-dbs", nil},
		{"fetch https://github.com/x", []string{"github"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, m.Mentioned(tt.task)); diff != "" {
			t.Errorf("Mentioned(%q) (-want +got):\n%s", tt.task, diff)
		}
	}
}

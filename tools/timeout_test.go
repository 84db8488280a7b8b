package tools

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/guard"
)

// deadlineTool is an MCP-like tool source that reports how long the
// registry gave its call.
type deadlineTool struct {
	def  ToolDef
	left time.Duration
}

func (d *deadlineTool) Tools() []ToolDef { return []ToolDef{d.def} }

func (d *deadlineTool) Call(ctx context.Context, _ *ResolvedCall) (*ToolResult, error) {
	if dl, ok := ctx.Deadline(); ok {
		d.left = time.Until(dl)
	}
	return &ToolResult{Text: "done"}, nil
}

// TestRegistryTimeoutDeclaredOnce: a tool's limit is the one declared for
// it (an MCP server's callTimeout, the catalogue's entry), not cut by a
// hidden registry-wide three minutes (the manual's "callTimeout": "5m"
// example was silently cut to 3m).
func TestRegistryTimeoutDeclaredOnce(t *testing.T) {
	ro := true
	tests := []struct {
		name    string
		timeout time.Duration
		min     time.Duration
		max     time.Duration
	}{
		{"server declares 5m", 5 * time.Minute, 4*time.Minute + 50*time.Second, 5 * time.Minute},
		{"server declares 10s", 10 * time.Second, 5 * time.Second, 10 * time.Second},
		{"nothing declared: the catalogue's default", 0, catalog.DefaultTimeout - 10*time.Second, catalog.DefaultTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			tool := &deadlineTool{def: ToolDef{Name: "mcp__slow__wait", Server: "slow", RawName: "wait", Source: SourceMCP,
				Parameters: map[string]any{"type": "object", "properties": map[string]any{}}, ReadOnlyHint: &ro, Timeout: tt.timeout}}
			r := NewRegistry(guard.NewPolicy(rules, nil), nil)
			r.Add(tool)
			res, err := r.Call(context.Background(), "mcp__slow__wait", nil, OriginScript)
			if err != nil || res.IsError() {
				t.Fatalf("call: %v %+v", err, res)
			}
			if tool.left < tt.min || tool.left > tt.max {
				t.Errorf("the call had %s, want between %s and %s", tool.left, tt.min, tt.max)
			}
		})
	}
}

// waitTool waits until its call is cut short and fails with Go's wording.
type waitTool struct{ def ToolDef }

func (w *waitTool) Tools() []ToolDef { return []ToolDef{w.def} }

func (w *waitTool) Call(ctx context.Context, _ *ResolvedCall) (*ToolResult, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestRegistryTimeoutWords: a call that runs out its time tells the model
// what to try and the person how long it was given, in seconds, with no
// "context deadline exceeded".
func TestRegistryTimeoutWords(t *testing.T) {
	ro := true
	rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRegistry(guard.NewPolicy(rules, nil), nil)
	r.Add(&waitTool{def: ToolDef{Name: "mcp__slow__wait", Server: "slow", RawName: "wait", Source: SourceMCP,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{}}, ReadOnlyHint: &ro, Timeout: 1500 * time.Millisecond}})
	res, err := r.Call(context.Background(), "mcp__slow__wait", nil, OriginCommand)
	if err != nil || !res.IsError() {
		t.Fatalf("call: %v %+v", err, res)
	}
	if diff := cmp.Diff([]string{"mcp__slow__wait timed out after 1.5s; try a smaller step or a wait with a shorter timeout", "mcp__slow__wait timed out after 1.5 s"},
		[]string{res.Text, res.ForPerson()}); diff != "" {
		t.Errorf("model and person text (-want +got)\n%s", diff)
	}
}

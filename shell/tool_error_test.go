package shell

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/agent/llmtest"
)

// TestToolErrorNamesToolOnce: a failed MCP tool call in a turn is one line
// that names the tool once, whether the tool failed (the server's words) or
// the call could not be made (the registry's error, which names the tool
// itself: "…take_snapshot: mcp__cdt__take_snapshot: …" was printed).
func TestToolErrorNamesToolOnce(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "cdt", Version: "1"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	srv.AddTool(&mcp.Tool{Name: "take_snapshot", InputSchema: map[string]any{"type": "object"}, Annotations: ro},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("no page selected")
		})
	sess := memSession(t, "cdt", srv, nil, nil)
	const name = "mcp__cdt__take_snapshot"
	llm := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("tool fails"), Reply: llmtest.Call(name, `{}`)},
		llmtest.Rule{When: llmtest.LastUser("bad call"), Reply: llmtest.Call(name, `[1]`)},
		llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("done")},
	)
	ag, err := agent.New(agent.Settings{BaseURL: llm.URL, Model: "test-model"}, sess.Registry, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Tools: sess.Registry, MCP: sess.MCP, Agent: ag}
	_, errb := scriptIO(opts, "the tool fails\na bad call\n")
	failures(t, New(opts).Run(context.Background()))
	var lines []string
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.Contains(l, "take_snapshot") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("want two error lines naming the tool, stderr:\n%s", errb.String())
	}
	for i, want := range []string{"no page selected", "arguments must be a JSON object"} {
		if n := strings.Count(lines[i], "take_snapshot"); n != 1 || !strings.Contains(lines[i], want) {
			t.Errorf("line %q names the tool %d times, want once, with %q", lines[i], n, want)
		}
	}
}

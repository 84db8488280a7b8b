package session

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
)

// TestToolSearchWithManyTools: a real MCP server (go-sdk, Streamable
// HTTP on 127.0.0.1) with 300 tools. The first request carries at most
// agent.MaxRequestTools tools within agent.MaxToolDefBytes, tool_search among them, and
// leaves none out silently: every tool is sent or deferred. The model
// searches, the tool found is offered on the next step, and its call
// reaches the server.
func TestToolSearchWithManyTools(t *testing.T) {
	testutil.Parallel(t)
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	srv := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "1"}, nil)
	var mu sync.Mutex
	var called []string
	for i := range 300 {
		name, desc := fmt.Sprintf("tool_%03d", i), fmt.Sprintf("Tool number %d of a big catalogue: it does thing %d to a record.", i, i)
		if i == 250 {
			name, desc = "weather_forecast", "Give the weather forecast for a city."
		}
		srv.AddTool(&mcp.Tool{Name: name, Description: desc, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}, InputSchema: map[string]any{"type": "object",
			"properties": map[string]any{"city": map[string]any{"type": "string", "description": "the city"}}, "required": []any{"city"}}},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				mu.Lock()
				called = append(called, req.Params.Name)
				mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny in Lisbon, 24°C."}}}, nil
			})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close) // after the session's Close (cleanups run last first): its GET stream holds a connection
	s := openSessionWith(t, &SessionOptions{MCP: &mcpclient.Config{Servers: map[string]*mcpclient.ServerConfig{
		"many": {Name: "many", URL: ts.URL, Source: "test"}}}})
	s.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.MCP.WaitReady(ctx, "many"); err != nil {
		t.Fatal(err)
	}

	llm := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("weather"), Reply: llmtest.Call(agent.ToolSearchName, `{"query":"weather forecast"}`)},
		llmtest.Rule{When: llmtest.AfterCall(agent.ToolSearchName), Reply: llmtest.Call("mcp__many__weather_forecast", `{"city":"Lisbon"}`)},
		llmtest.Rule{When: llmtest.LastTool("Sunny"), Reply: llmtest.Text("Sunny in Lisbon.")},
	)
	a, err := agent.New(agent.ResolveSettings(agent.Overrides{BaseURL: llm.URL, Model: "m"}, func(string) string { return "" }, nil), s.Registry, nil)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := a.Turn(ctx, "what is the weather in Lisbon?", discardEvents{})
	if err != nil || answer != "Sunny in Lisbon." {
		t.Fatalf("Turn = %q, %v", answer, err)
	}
	reqs := llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	first := reqs[0]
	if len(first.Tools) > agent.MaxRequestTools || first.ToolsBytes > agent.MaxToolDefBytes || !slices.Contains(first.Tools, agent.ToolSearchName) {
		t.Errorf("first request: %d tools, %d bytes, tool_search offered: %v; want at most %d tools and %d bytes, with tool_search",
			len(first.Tools), first.ToolsBytes, slices.Contains(first.Tools, agent.ToolSearchName), agent.MaxRequestTools, agent.MaxToolDefBytes)
	}
	if slices.Contains(first.Tools, "mcp__many__weather_forecast") {
		t.Fatal("the test needs weather_forecast deferred in the first request")
	}
	total := len(s.Registry.Tools())
	offered := 0
	for _, n := range reqs[2].Tools { // the shelf holds what the last request deferred
		if n != agent.ToolSearchName {
			offered++
		}
	}
	if deferred := len(a.DeferredTools()); offered+deferred != total {
		t.Errorf("%d sent + %d deferred != %d tools: some were dropped silently", offered, deferred, total)
	}
	if !slices.Contains(reqs[1].Tools, "mcp__many__weather_forecast") {
		t.Errorf("the tool tool_search found is not offered on the next step: %v", reqs[1].Tools)
	}
	if got := reqs[1].Last().Content; !strings.Contains(got, "mcp__many__weather_forecast: Give the weather forecast for a city.") {
		t.Errorf("tool_search result:\n%s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(called, []string{"weather_forecast"}) {
		t.Errorf("the server received %v, want one weather_forecast call", called)
	}
	if n := len(a.DeferredTools()); n == 0 || slices.Contains(a.DeferredTools(), "mcp__many__weather_forecast") {
		t.Errorf("DeferredTools after the search: %d, weather_forecast among them: %v", n, slices.Contains(a.DeferredTools(), "mcp__many__weather_forecast"))
	}
}

// discardEvents is a turn's event sink that keeps nothing.
type discardEvents struct{}

func (discardEvents) Event(agent.Event) {}

package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/browseragent/browseragent/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A manager connects to the MCP servers a Claude-style config names and
// offers their tools under mcp__<server>__<tool>. Here the server is one
// of the go-sdk's, in process, over Streamable HTTP; a "command" entry
// would start a local one (npx …) instead.
func ExampleManager() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1"}, nil)
	type who struct {
		Name string `json:"name" jsonschema:"whom to greet"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, _ *mcp.CallToolRequest, in who) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})
	site := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer site.Close()

	cfg, err := mcpclient.Parse([]byte(`{"mcpServers": {"greeter": {"url": "`+site.URL+`"}}}`), "mcp.json", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := mcpclient.NewManager(cfg, nil)
	defer m.Close()
	ctx := context.Background()
	m.Start(ctx) // every server in the background; the caller goes on at once
	if err := m.WaitReady(ctx, "greeter"); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range m.Tools() {
		fmt.Println(t.Name, "-", t.Description)
	}
	res, err := m.CallTool(ctx, "mcp__greeter__greet", json.RawMessage(`{"name": "Ada"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text)
	// Output:
	// mcp__greeter__greet - Greets someone.
	// Hello, Ada!
}

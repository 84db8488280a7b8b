package shell

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/mcpclient"
)

// TestCompleteFromServer: prompt arguments and URI-template variables are
// completed by the server (completion/complete) through a real manager.
func TestCompleteFromServer(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			var pool []string
			switch r.Params.Argument.Name {
			case "city":
				pool = []string{"Paris", "Perth", "Oslo"}
			case "id":
				pool = []string{"41", "42", "7"}
			}
			var vals []string
			for _, v := range pool {
				if strings.HasPrefix(v, r.Params.Argument.Value) {
					vals = append(vals, v)
				}
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: vals}}, nil
		},
	})
	srv.AddPrompt(&mcp.Prompt{Name: "weather", Arguments: []*mcp.PromptArgument{{Name: "city", Required: true}, {Name: "days"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	m := mcpclient.NewManager(&mcpclient.Config{Servers: map[string]*mcpclient.ServerConfig{"c": {Name: "c", Command: "unused"}}},
		&mcpclient.Options{Dial: func(string, *mcpclient.ServerConfig) (mcp.Transport, error) {
			ct, st := mcp.NewInMemoryTransports()
			_, err := srv.Connect(context.Background(), st, nil)
			return ct, err
		}})
	defer m.Close()
	m.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.WaitReady(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	sh := New(&Options{MCP: m})
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"/mcp__c__weather ", []string{"city=", "days="}},
		{"/mcp__c__weather city=Paris ", []string{"days="}},
		{"/mcp__c__weather city=P", []string{"city=Paris", "city=Perth"}},
		{"/mcp__c__nosuch city=P", nil},
		{"look at @c:test://items/4", []string{"@c:test://items/41", "@c:test://items/42"}},
	} {
		var got []string
		for _, sg := range sh.suggest(tc.text) {
			got = append(got, sg.text)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("suggest(%q) (-want +got):\n%s", tc.text, d)
		}
	}
}

package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestURLElicitationRequired: a go-sdk server refuses "consent" with
// -32042 until it has been called once (refuse=1), or always (refuse=99).
// Without a person the call fails with the URL and the server's message,
// in a text the agent can act on; a person who says they opened it gets
// the call sent once more; a refusal, or a second -32042, is the answer.
func TestURLElicitationRequired(t *testing.T) {
	tests := []struct {
		name    string
		refuse  int32  // how many calls are refused
		answer  string // the person's answer; "" means no Elicit hook
		want    string // the result text, or
		wantErr string // the error text
		calls   int32
		asked   []Elicitation
	}{
		{name: "no person", refuse: 1, wantErr: "mcp srv/consent: the server needs the person to open a URL first (sign in to Example first): " +
			"the person must open https://example.test/consent?x=1 (Approve access for browseragent) in a browser, then the call can be made again", calls: 1},
		{name: "opened", refuse: 1, answer: "accept", want: "consented", calls: 2,
			asked: []Elicitation{{Server: "srv", Mode: "url", Message: "Approve access for browseragent", URL: "https://example.test/consent?x=1", ID: "e-1", Retry: true}}},
		{name: "declined", refuse: 1, answer: "decline", wantErr: "the person must open https://example.test/consent?x=1", calls: 1,
			asked: []Elicitation{{Server: "srv", Mode: "url", Message: "Approve access for browseragent", URL: "https://example.test/consent?x=1", ID: "e-1", Retry: true}}},
		{name: "refused again", refuse: 99, answer: "accept", wantErr: "the person must open https://example.test/consent?x=1", calls: 2,
			asked: []Elicitation{{Server: "srv", Mode: "url", Message: "Approve access for browseragent", URL: "https://example.test/consent?x=1", ID: "e-1", Retry: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, nil)
			srv.AddTool(&mcp.Tool{Name: "consent", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if calls.Add(1) <= tc.refuse {
						err := mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", ElicitationID: "e-1",
							URL: "https://example.test/consent?x=1", Message: "Approve access\x1b for browseragent"}}).(*jsonrpc.Error)
						err.Message = "sign in to Example first"
						return nil, err
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "consented"}}}, nil
				})
			var asked []Elicitation
			opts := &Options{Dial: func(string, *ServerConfig) (mcp.Transport, error) {
				ct, st := mcp.NewInMemoryTransports()
				if _, err := srv.Connect(context.Background(), st, nil); err != nil {
					return nil, err
				}
				return ct, nil
			}}
			if tc.answer != "" {
				opts.Elicit = func(_ context.Context, e *Elicitation) (*mcp.ElicitResult, error) {
					asked = append(asked, *e)
					return &mcp.ElicitResult{Action: tc.answer}, nil
				}
			}
			m := startManager(t, &Config{Servers: map[string]*ServerConfig{"srv": {Name: "srv", Command: "unused"}}}, opts)
			waitReady(t, m, "srv")
			r, err := m.CallTool(t.Context(), toolName("srv", "consent"), json.RawMessage(`{}`))
			switch {
			case tc.wantErr != "":
				var ue *URLElicitationError
				if !errors.As(err, &ue) || !errors.Is(err, errURLElicitationRequired) {
					t.Fatalf("err = %v, want a URLElicitationError", err)
				}
				if got := err.Error(); !strings.Contains(got, tc.wantErr) {
					t.Errorf("error %q does not contain %q", got, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case r.Text != tc.want:
				t.Errorf("result = %q, want %q", r.Text, tc.want)
			}
			if got := calls.Load(); got != tc.calls {
				t.Errorf("the server got %d calls, want %d", got, tc.calls)
			}
			if diff := cmp.Diff(tc.asked, asked); diff != "" {
				t.Errorf("asked the person (-want +got)\n%s", diff)
			}
		})
	}
}

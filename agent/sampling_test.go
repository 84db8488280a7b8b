package agent

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/mcpclient"
)

func TestSample(t *testing.T) {
	srv := llmtest.New(t, llmtest.Rule{When: llmtest.LastUser("capital of France"), Reply: llmtest.Text("Paris")})
	s := Settings{BaseURL: srv.URL, Model: "test-model"}
	res, err := Sample(context.Background(), s, &mcp.CreateMessageParams{
		SystemPrompt: "Be brief.",
		MaxTokens:    20,
		Messages: []*mcp.SamplingMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "hello"}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "hi"}},
			{Role: "user", Content: &mcp.TextContent{Text: "capital of France?"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := mcpclient.ContentText(res.Content); got != "Paris" || res.Role != "assistant" || res.Model == "" {
		t.Errorf("result = %q role %q model %q", got, res.Role, res.Model)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var got [][2]string
	for _, m := range reqs[0].Messages {
		got = append(got, [2]string{m.Role, m.Content})
	}
	want := [][2]string{{"system", "Be brief."}, {"user", "hello"}, {"assistant", "hi"}, {"user", "capital of France?"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("messages sent (-want +got):\n%s", d)
	}
	if reqs[0].Stream || len(reqs[0].Tools) != 0 {
		t.Errorf("stream %v, tools %v: want one plain completion", reqs[0].Stream, reqs[0].Tools)
	}
}

func TestSampleRefused(t *testing.T) {
	one := []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "x"}}}
	srv := llmtest.New(t)
	for _, tc := range []struct {
		name   string
		s      Settings
		msgs   []*mcp.SamplingMessage
		wantIs error
	}{
		{"no LLM", Settings{}, one, mcpclient.ErrNoLLM},
		{"no messages", Settings{BaseURL: srv.URL, Model: "m"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Sample(context.Background(), tc.s, &mcp.CreateMessageParams{Messages: tc.msgs})
			if err == nil || (tc.wantIs != nil && !errors.Is(err, tc.wantIs)) {
				t.Fatalf("err = %v, want %v", err, tc.wantIs)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the LLM", n)
	}
}

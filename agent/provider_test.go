package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/tools"
)

// The providers' streams differ in how they send tool calls, reasoning,
// usage, errors and finish reasons. Each case below is one difference, as
// the provider sends it (see docs/agent.md, "Every provider's stream"),
// played by the scripted server; the loop must do the task on every one.

var twoCalls = []llmtest.ToolCall{
	{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/a"}`},
	{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/b"}`},
}

var bothFetched = []string{`web_fetch {"url":"http://127.0.0.1/a"}`, `web_fetch {"url":"http://127.0.0.1/b"}`}

// titleTurn asks "what is the title?" of an agent whose LLM is srv and whose
// one tool, web_fetch, answers "# Example Domain". The turn must answer "The
// title is Example Domain." after the tool calls wantCalls, in two requests,
// the second consistent (checkConsistent); it returns the requests.
func titleTurn(t *testing.T, srv *llmtest.Server, rec *recorder, wantCalls []string) []llmtest.Request {
	t.Helper()
	c := &testCaller{toolList: []tools.ToolDef{webFetchDef()}, do: func(context.Context, string, json.RawMessage) (*tools.ToolResult, error) {
		return &tools.ToolResult{Text: "# Example Domain"}, nil
	}}
	a, _ := newTestAgent(t, srv, c, nil)
	got, err := a.Turn(context.Background(), "what is the title?", rec)
	if err != nil {
		t.Fatal(err)
	}
	if got != "The title is Example Domain." {
		t.Errorf("answer = %q", got)
	}
	if diff := cmp.Diff(wantCalls, c.Calls()); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	checkConsistent(t, reqs[1])
	return reqs
}

func TestProviderStreams(t *testing.T) {
	tests := []struct {
		name      string
		reply     llmtest.Reply
		wantCalls []string
		// wantBack, when set, must appear in the second request's body
		// (what the provider wants back on the assistant message).
		wantBack string
	}{
		{"OpenAI: index on every fragment, id on the first only", llmtest.Reply{Calls: twoCalls, ChunkSize: 3}, bothFetched, ""},
		{"Ollama, Gemini: each call whole in one chunk", llmtest.Reply{Calls: twoCalls, WholeCalls: true}, bothFetched, ""},
		{"Gemini, old Ollama: no index, id on each call", llmtest.Reply{Calls: twoCalls, WholeCalls: true, OmitIndex: true}, bothFetched, ""},
		{"no index and id on the first fragment only", llmtest.Reply{Calls: twoCalls, OmitIndex: true}, bothFetched, ""},
		{"Groq, vLLM: id repeated on every fragment", llmtest.Reply{Calls: twoCalls, IDEveryChunk: true}, bothFetched, ""},
		{"Gemini through proxies: every call index 0, own ids", llmtest.Reply{Calls: twoCalls, SameIndex: true, WholeCalls: true}, bothFetched, ""},
		{"arguments as a JSON object, not a string", llmtest.Reply{Calls: twoCalls, ArgsObject: true}, bothFetched, ""},
		{"Gemini: tool calls finishing with stop", llmtest.Reply{Calls: twoCalls, WholeCalls: true, OmitIndex: true, Finish: "stop"}, bothFetched, ""},
		{"Gemini 3: thought_signature goes back on the call", llmtest.Reply{WholeCalls: true, OmitIndex: true, Calls: []llmtest.ToolCall{
			{Name: "web_fetch", Args: `{"url":"http://127.0.0.1/a"}`, Extra: `{"google":{"thought_signature":"c2lnbmF0dXJl"}}`}}},
			bothFetched[:1], `"extra_content":{"google":{"thought_signature":"c2lnbmF0dXJl"}}`},
		{"DeepSeek: reasoning_content, sent back in the tool loop", llmtest.Reply{Reasoning: "The page must be fetched.", Calls: twoCalls[:1]},
			bothFetched[:1], `"reasoning_content":"The page must be fetched."`},
		{"OpenRouter, Groq, Ollama, vLLM: reasoning field", llmtest.Reply{Reasoning: "The page must be fetched.", ReasoningField: "reasoning", Calls: twoCalls[:1]},
			bothFetched[:1], ""},
		{"usage inside the finish chunk", llmtest.Reply{Calls: twoCalls[:1], UsageInFinish: true}, bothFetched[:1], ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Rule{When: llmtest.LastUser("title"), Reply: tt.reply},
				llmtest.Rule{When: llmtest.LastTool("Example Domain"), Reply: llmtest.Reply{Text: "The title is Example Domain.", Reasoning: tt.reply.Reasoning, ReasoningField: tt.reply.ReasoningField}},
			)
			reqs := titleTurn(t, srv, &recorder{}, tt.wantCalls)
			if tt.wantBack != "" && !strings.Contains(string(reqs[1].Body), tt.wantBack) {
				t.Errorf("second request lacks %s:\n%s", tt.wantBack, reqs[1].Body)
			}
			if tt.reply.ReasoningField == "reasoning" && strings.Contains(string(reqs[1].Body), "reasoning") {
				t.Errorf("a \"reasoning\" field went back to a provider that never asked for it:\n%s", reqs[1].Body)
			}
		})
	}
}

// TestProviderStreamFailures: an error inside a 200 stream, in each
// provider's way, or a stream that ends without finishing, fails the turn
// with what the provider said (when it said anything), instead of passing
// the partial text off as the answer.
func TestProviderStreamFailures(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		want  string
	}{
		{"OpenAI, llama.cpp: data: {\"error\"}", llmtest.Reply{Text: "Partly", FailAfterText: "upstream overloaded", ErrorStyle: "data"}, "the LLM failed in the middle of its answer: upstream overloaded"},
		{"OpenRouter: error chunk finishing with error", llmtest.Reply{Text: "Partly", FailAfterText: "provider returned error", ErrorStyle: "openrouter"}, "the LLM failed in the middle of its answer: provider returned error"},
		{"llama.cpp before 2025-09: error: line", llmtest.Reply{Text: "Partly", FailAfterText: "the request exceeds the available context size", ErrorStyle: "llamacpp"}, "the LLM failed in the middle of its answer: the request exceeds the available context size"},
		{"no finish reason at all", llmtest.Reply{Text: "Partly", NoFinish: true}, "the LLM stream ended in the middle of the answer, without finishing it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Reply: tt.reply})
			a, _ := newTestAgent(t, srv, &testCaller{toolList: []tools.ToolDef{webFetchDef()}}, nil)
			answer, err := a.Turn(context.Background(), "hello", &recorder{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Turn = %q, %v; want an error saying %q", answer, err, tt.want)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests: a failure the provider reported is not retried blindly", n)
			}
			if errors.Is(err, context.Canceled) {
				t.Errorf("reported as cancelled: %v", err)
			}
		})
	}
}

package shell

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/mcpclient"
)

// hostServer is an in-process MCP server whose tools ask the client for a
// form (ask), an LLM answer (sample) and report progress (work), and
// which has one prompt (greet).
func hostServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "h", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	srv.AddResource(&mcp.Resource{URI: "test://clock", Name: "clock"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://clock", Text: "noon"}}}, nil
	})
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	schema := map[string]any{"type": "object", "required": []any{"city"}, "properties": map[string]any{
		"city":  map[string]any{"type": "string", "description": "where you live"},
		"count": map[string]any{"type": "integer", "default": 3, "minimum": 1},
		"ok":    map[string]any{"type": "boolean"},
		"size":  map[string]any{"type": "string", "enum": []any{"s", "m"}, "enumNames": []any{"Small", "Medium"}, "default": "s"},
	}}
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}, Annotations: ro}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := r.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Where do you live?", RequestedSchema: schema})
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(res.Content)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answer: " + res.Action + " " + string(b)}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "sample", InputSchema: map[string]any{"type": "object"}, Annotations: ro}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := r.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 20, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "What is 2+2?"}}}})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "sampling: " + err.Error()}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "llm said: " + mcpclient.ContentText(res.Content)}}}, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}}, func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + r.Params.Arguments["name"]}}}}, nil
	})
	return srv
}

// hostShell runs script in a shell over a real session.Session whose one MCP
// server "h" is hostServer, with the shell's host hooks and llm (nil: no
// LLM configured).
func hostShell(t *testing.T, llm *llmtest.Server, script string) (string, string) {
	t.Helper()
	settings := agent.Settings{}
	if llm != nil {
		settings = agent.Settings{BaseURL: llm.URL, Model: "test-model"}
	}
	hooks := &Hooks{}
	sess := memSession(t, "h", hostServer(), hooks, func(mo *mcpclient.Options) {
		hooks.HostOptions(mo, func() agent.Settings { return settings })
	})
	opts := &Options{Tools: sess.Registry, MCP: sess.MCP, Hooks: hooks}
	if llm != nil {
		ag, err := agent.New(settings, sess.Registry, nil)
		if err != nil {
			t.Fatal(err)
		}
		opts.Agent = ag
	}
	out, errb := scriptIO(opts, script)
	failures(t, New(opts).Run(context.Background())) // the tests read what was printed
	return out.String(), errb.String()
}

func TestScriptElicitationForm(t *testing.T) {
	for _, tc := range []struct {
		name, answers, want, wantErr string
	}{
		{"filled in with defaults", "y\n\nParis\nabc\n\nyes\n2\n", `answer: accept {"city":"Paris","count":3,"ok":true,"size":"m"}`, "city is required"},
		{"labels and optional left out", "y\nOslo\n7\n\nsmall\n", `answer: accept {"city":"Oslo","count":7,"size":"s"}`, ""},
		{"declined", "n\n", "answer: decline null", ""},
		{"cancelled", "c\n", "answer: cancel null", ""},
		{"nonsense then end of input", "maybe\n", "answer: cancel null", "answer y, n or c"},
		{"end of input mid-form", "y\nRome\n", "answer: cancel null", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs := hostShell(t, nil, "/call mcp__h__ask {}\n"+tc.answers)
			if !strings.Contains(out, tc.want) {
				t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", tc.want, out, errs)
			}
			for _, line := range []string{"╭─ MCP server h asks", "│ Where do you live?", "│ city     string, required: where you live", "│ size     one of 1) s (Small), 2) m (Medium), default s", "fill in the form? [y/n/c]"} {
				if !strings.Contains(out, line) {
					t.Errorf("form lacks %q:\n%s", line, out)
				}
			}
			if strings.HasPrefix(tc.want, "answer: accept") && !strings.Contains(out, "  size (1) s (Small), 2) m (Medium)) [s]: ") {
				t.Errorf("choice question lacks its choices:\n%s", out)
			}
			if tc.wantErr != "" && !strings.Contains(errs, tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, errs)
			}
		})
	}
}

func TestScriptSampling(t *testing.T) {
	llm := llmtest.New(t, llmtest.Rule{When: llmtest.LastUser("2+2"), Reply: llmtest.Text("4")})
	out, errs := hostShell(t, llm, "/call mcp__h__sample {}\ny\n/call mcp__h__sample {}\nn\n")
	for _, want := range []string{"╭─ MCP server h wants the LLM to answer", "│ user: What is 2+2?", "│ (at most 20 tokens)", "llm said: 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out+errs, "sampling request rejected: declined by the person") {
		t.Errorf("refusal not reported:\n%s\n%s", out, errs)
	}
	if n := len(llm.Requests()); n != 1 {
		t.Errorf("%d LLM requests, want 1 (the refused one must not reach it)", n)
	}

	out, errs = hostShell(t, nil, "/call mcp__h__sample {}\n")
	if !strings.Contains(out+errs, "no LLM is configured") || strings.Contains(out, "wants the LLM") {
		t.Errorf("without an LLM: stdout %q stderr %q", out, errs)
	}
}

// TestScriptPromptCommand: /mcp__h__greet name=Ada sends the prompt's text
// to the agent as the next user message.
func TestScriptPromptCommand(t *testing.T) {
	llm := llmtest.New(t, llmtest.Rule{When: llmtest.LastUser("Say hello to Ada"), Reply: llmtest.Text("Hello, Ada!")})
	out, errs := hostShell(t, llm, "/mcp__h__greet name=Ada\n")
	if !strings.Contains(out, "Hello, Ada!") {
		t.Errorf("agent answer missing:\n%s\n%s", out, errs)
	}
	reqs := llm.Requests()
	if len(reqs) != 1 || reqs[0].Last().Role != "user" || !strings.Contains(reqs[0].Last().Content, "Say hello to Ada") {
		t.Errorf("LLM requests: %+v", reqs)
	}
}

func TestScriptWatchAndLogLevel(t *testing.T) {
	out, errs := hostShell(t, nil, strings.Join([]string{
		"/mcp watch h test://clock",
		"/mcp watch h",
		"/mcp unwatch h test://clock",
		"/mcp watch h",
		"/mcp log-level h loud",
		"/mcp log-level h debug",
		"",
	}, "\n"))
	for _, want := range []string{"watching test://clock on h", "test://clock\n", "no longer watching test://clock on h", "nothing watched on h", "h now logs at debug and above"} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("output lacks %q:\nstdout:\n%s\nstderr:\n%s", want, out, errs)
		}
	}
	if !strings.Contains(errs, `unknown log level "loud": use one of debug, info`) {
		t.Errorf("stderr = %q", errs)
	}
}

package agent

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestDiscoverPicksModel: with an endpoint but no model, the server's list
// decides: one model is used as it is, among several the first that can
// call tools (as the server says: a capabilities list, or Ollama's
// /api/show), and the note says which and how to choose.
func TestDiscoverPicksModel(t *testing.T) {
	tests := []struct {
		name      string
		models    []llmtest.Model
		wantModel string
		wantNote  string
	}{
		{"one model", []llmtest.Model{{ID: "qwen3:8b"}}, "qwen3:8b", ""},
		{"several, none says tools", []llmtest.Model{{ID: "a"}, {ID: "b"}}, "a",
			"no model chosen: model a (the first listed of 2; choose with --model or BROWSERAGENT_MODEL, /model lists them)"},
		{"several, capabilities in the list", []llmtest.Model{{ID: "embed"}, {ID: "coder", Capabilities: []string{"completion", "tool_use"}}}, "coder",
			"no model chosen: model coder (the first that can call tools of 2; choose with --model or BROWSERAGENT_MODEL, /model lists them)"},
		{"several, Ollama's /api/show", []llmtest.Model{{ID: "gemma", ShowCapabilities: []string{"completion"}}, {ID: "llama3.2", ShowCapabilities: []string{"completion", "tools"}}}, "llama3.2",
			"no model chosen: model llama3.2 (the first that can call tools of 2; choose with --model or BROWSERAGENT_MODEL, /model lists them)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.SetModels(tt.models...)
			s := ResolveSettings(Overrides{}, envOf("OPENAI_BASE_URL", srv.URL), nil)
			if s.Enabled() {
				t.Fatal("enabled before Discover without a model")
			}
			s = discover(context.Background(), s)
			if !s.Enabled() {
				t.Fatalf("not enabled: %s", s.Why())
			}
			if diff := cmp.Diff([]string{tt.wantModel, tt.wantNote}, []string{s.Model, s.Note}); diff != "" {
				t.Errorf("model, note (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiscoverNoModelList: an endpoint with no model list leaves the agent
// off, in a sentence without Go's error text.
func TestDiscoverNoModelList(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing answers there now
	s := discover(context.Background(), ResolveSettings(Overrides{}, envOf("OPENAI_BASE_URL", "http://"+addr+"/v1"), nil))
	const want = "agent off: no model chosen and its model list is unavailable: nothing answers there; set BROWSERAGENT_MODEL or pass --model"
	if diff := cmp.Diff(want, s.Why()); diff != "" {
		t.Errorf("Why (-want +got):\n%s", diff)
	}
	for _, leak := range []string{"dial tcp", "Get \"", "connect:"} {
		if strings.Contains(s.Why(), leak) {
			t.Errorf("Why leaks Go error text %q: %s", leak, s.Why())
		}
	}
}

// TestDiscoverOllamaPort: with nothing configured, a server on Ollama's
// port that answers /v1/models is found, its tool-capable model chosen,
// and said on one line. When something else holds the port (a real
// Ollama) it skips, but fails in CI (BROWSERAGENT_REQUIRE_BROWSER=1).
func TestDiscoverOllamaPort(t *testing.T) {
	srv := ollamaPort(t)
	srv.SetModels(llmtest.Model{ID: "nomic-embed-text", ShowCapabilities: []string{"embedding"}}, llmtest.Model{ID: "qwen3:4b", ShowCapabilities: []string{"completion", "tools"}})
	s := discover(context.Background(), ResolveSettings(Overrides{}, envOf(), nil))
	got := []string{s.BaseURL, s.Model, s.Note}
	want := []string{"http://127.0.0.1:11434/v1", "qwen3:4b",
		"no LLM configured: using Ollama at http://127.0.0.1:11434/v1, model qwen3:4b (the first that can call tools of 2; choose with --model or BROWSERAGENT_MODEL, /model lists them)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !s.Enabled() {
		t.Errorf("not enabled: %s", s.Why())
	}
}

// ollamaPort starts the scripted server on Ollama's port, 127.0.0.1:11434,
// waiting a while for another test package to let it go.
func ollamaPort(t *testing.T, rules ...llmtest.Rule) *llmtest.Server {
	var srv *llmtest.Server
	testutil.Require(t, "a free 127.0.0.1:11434 (Ollama's port; is an Ollama running?)", func() (string, error) {
		var err error
		srv, err = llmtest.NewAtWait(t, "127.0.0.1:11434", 30*time.Second, rules...)
		return "", err
	})
	return srv
}

package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

const testConfig = `
provider: deepseek
max_steps: 12
providers:
  deepseek:
    model: deepseek-reasoner
  mylocal:
    base_url: http://10.0.0.5:8080/v1/
    local: true
    model: qwen3
    context_window: 32768
mcpServers: {}   # other parts of the file are not ours
`

func TestResolveSettings(t *testing.T) {
	fc, err := parseConfig([]byte(testConfig))
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Enabled                  bool
		Provider, BaseURL, Model string
		Key                      string
		Window, Steps            int
		Why                      string // substring
	}
	tests := []struct {
		name string
		o    Overrides
		env  func(string) string
		fc   *FileConfig
		want view
	}{
		{"nothing configured", Overrides{}, envOf(), nil,
			view{Why: "set OPENAI_API_KEY", BaseURL: "https://api.openai.com/v1", Model: defaultOpenAIModel, Window: defaultContextWindow, Steps: DefaultMaxSteps}},
		{"OpenAI key only", Overrides{}, envOf("OPENAI_API_KEY", "sk-1"), nil,
			view{Enabled: true, BaseURL: "https://api.openai.com/v1", Model: defaultOpenAIModel, Key: "sk-1", Window: defaultContextWindow, Steps: DefaultMaxSteps}},
		{"local base URL needs no key but a model", Overrides{}, envOf("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1"), nil,
			view{BaseURL: "http://127.0.0.1:11434/v1", Why: "no model chosen", Window: defaultContextWindow, Steps: DefaultMaxSteps}},
		{"local base URL and model", Overrides{}, envOf("OPENAI_BASE_URL", "http://localhost:8080/v1", "BROWSERAGENT_MODEL", "qwen"), nil,
			view{Enabled: true, BaseURL: "http://localhost:8080/v1", Model: "qwen", Window: defaultContextWindow, Steps: DefaultMaxSteps}},
		{"remote base URL without key", Overrides{}, envOf("OPENAI_BASE_URL", "https://llm.example.com/v1", "BROWSERAGENT_MODEL", "m"), nil,
			view{BaseURL: "https://llm.example.com/v1", Model: "m", Why: "no API key", Window: defaultContextWindow, Steps: DefaultMaxSteps}},
		{"config provider with its own key", Overrides{}, envOf("DEEPSEEK_API_KEY", "ds", "OPENAI_API_KEY", "sk-not-for-deepseek"), fc,
			view{Enabled: true, Provider: "deepseek", BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-reasoner", Key: "ds", Window: defaultContextWindow, Steps: 12}},
		{"OpenAI key is never sent to another provider", Overrides{}, envOf("OPENAI_API_KEY", "sk-1"), fc,
			view{Provider: "deepseek", BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-reasoner", Why: "set DEEPSEEK_API_KEY", Window: defaultContextWindow, Steps: 12}},
		{"flags win over env and file", Overrides{Provider: "mylocal", Model: "flag-model", MaxSteps: 5}, envOf("BROWSERAGENT_MODEL", "env-model"), fc,
			view{Enabled: true, Provider: "mylocal", BaseURL: "http://10.0.0.5:8080/v1", Model: "flag-model", Window: 32768, Steps: 5}},
		{"env model wins over file", Overrides{Provider: "ollama"}, envOf("BROWSERAGENT_MODEL", "llama3.2"), fc,
			view{Enabled: true, Provider: "ollama", BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.2", Window: defaultContextWindow, Steps: 12}},
		{"unknown provider", Overrides{Provider: "nope"}, envOf(), nil,
			view{Provider: "nope", Why: `unknown provider "nope"`, Window: defaultContextWindow, Steps: DefaultMaxSteps}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ResolveSettings(tt.o, tt.env, tt.fc)
			got := view{Enabled: s.Enabled(), Provider: s.Provider, BaseURL: s.BaseURL, Model: s.Model, Key: s.APIKey,
				Window: s.ContextWindow, Steps: s.MaxSteps, Why: tt.want.Why}
			if tt.want.Why != "" && !strings.Contains(s.Why(), tt.want.Why) {
				t.Errorf("Why() = %q, want it to contain %q", s.Why(), tt.want.Why)
			}
			if s.Enabled() && s.Why() != "" {
				t.Errorf("enabled but Why() = %q", s.Why())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"not yaml", "provider: [", "parse config"},
		{"custom provider without base_url", "providers:\n  x:\n    model: m\n", "providers.x: base_url is required"},
		{"negative limits", "max_steps: -1\n", "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	fc, err := LoadConfig(filepath.Join(dir, "missing.yaml"))
	if err != nil || fc.Provider != "" {
		t.Errorf("missing file: %+v, %v", fc, err)
	}
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("providers:\n  x: {model: m}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file error %v does not name the file", err)
	}
	if got, want := ConfigPath(envOf("XDG_CONFIG_HOME", dir)), filepath.Join(dir, "browseragent", "config.yaml"); got != want {
		t.Errorf("ConfigPath = %q, want %q", got, want)
	}
}

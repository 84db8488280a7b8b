package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/browseragent/browseragent/internal/xdg"
)

// Defaults for the LLM settings; each can be changed in config.yaml and the
// step limit also with --max-steps.
const (
	defaultContextWindow  = 128_000
	DefaultMaxSteps       = 30
	defaultMaxResultChars = 20_000
	defaultOpenAIModel    = "gpt-4.1-mini"
)

// Provider is a named OpenAI-compatible endpoint.
type Provider struct {
	BaseURL       string `yaml:"base_url"`
	APIKeyEnv     string `yaml:"api_key_env"` // name of the env variable holding the key
	Model         string `yaml:"model"`
	ContextWindow int    `yaml:"context_window"`
	// Local marks an endpoint that needs no key (Ollama, llama.cpp server).
	// Loopback base URLs are local without saying so.
	Local bool `yaml:"local"`
}

// builtinProviders are the endpoints the config may name without defining.
var builtinProviders = map[string]Provider{
	"openai":   {BaseURL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY", Model: defaultOpenAIModel},
	"deepseek": {BaseURL: "https://api.deepseek.com/v1", APIKeyEnv: "DEEPSEEK_API_KEY", Model: "deepseek-chat"},
	"glm":      {BaseURL: "https://open.bigmodel.cn/api/paas/v4", APIKeyEnv: "ZHIPUAI_API_KEY", Model: "glm-4.6"},
	"kimi":     {BaseURL: "https://api.moonshot.ai/v1", APIKeyEnv: "MOONSHOT_API_KEY", Model: "kimi-k2-0905-preview"},
	"ollama":   {BaseURL: "http://127.0.0.1:11434/v1", Local: true},
	"llamacpp": {BaseURL: "http://127.0.0.1:8080/v1", Local: true, Model: "default"},
	"lmstudio": {BaseURL: "http://127.0.0.1:1234/v1", Local: true},
	"vllm":     {BaseURL: "http://127.0.0.1:8000/v1", Local: true},
	"jan":      {BaseURL: "http://127.0.0.1:1337/v1", Local: true},
}

// ProviderNames lists the providers known without configuration.
func ProviderNames() []string {
	names := make([]string, 0, len(builtinProviders))
	for n := range builtinProviders {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// FileConfig is the agent part of $XDG_CONFIG_HOME/browseragent/config.yaml.
type FileConfig struct {
	Provider       string              `yaml:"provider"`
	BaseURL        string              `yaml:"base_url"`
	Model          string              `yaml:"model"`
	ContextWindow  int                 `yaml:"context_window"`
	MaxSteps       int                 `yaml:"max_steps"`
	MaxResultChars int                 `yaml:"max_result_chars"`
	Images         *bool               `yaml:"images"`    // false: never send images to the model
	DevTools       bool                `yaml:"devtools"`  // offer chrome-devtools-mcp's developer tools too
	Providers      map[string]Provider `yaml:"providers"` // added to, or overriding, the built-in ones
}

// parseConfig parses config.yaml. Unknown keys are allowed: the file is
// shared with other parts of browseragent.
func parseConfig(data []byte) (*FileConfig, error) {
	var fc FileConfig
	if err := yaml.Unmarshal(data, &fc); err != nil {
		return nil, fmt.Errorf("parse config: %w", err)
	}
	for name, p := range fc.Providers {
		if p.BaseURL == "" {
			if _, ok := builtinProviders[name]; !ok {
				return nil, fmt.Errorf("parse config: providers.%s: base_url is required", name)
			}
		}
	}
	if fc.ContextWindow < 0 || fc.MaxSteps < 0 || fc.MaxResultChars < 0 {
		return nil, errors.New("parse config: context_window, max_steps and max_result_chars must not be negative")
	}
	return &fc, nil
}

// LoadConfig reads and parses the config file at path; a missing file is an
// empty config.
func LoadConfig(path string) (*FileConfig, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &FileConfig{}, nil
	}
	if err != nil {
		return nil, err
	}
	fc, err := parseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fc, nil
}

// ConfigPath is where the config file lives: $XDG_CONFIG_HOME/browseragent/config.yaml,
// or ~/.config/browseragent/config.yaml.
func ConfigPath(getenv func(string) string) string {
	return xdg.ConfigPath(getenv, "config.yaml")
}

// Overrides are the command-line flags; zero values mean "not given".
type Overrides struct {
	Provider string
	BaseURL  string
	Model    string
	MaxSteps int
}

// Settings is the resolved LLM configuration. The zero value is a disabled
// agent; use LoadSettings or ResolveSettings.
type Settings struct {
	Provider       string // "" when only a base URL was given
	BaseURL        string
	APIKey         string
	Model          string
	ContextWindow  int
	MaxSteps       int
	MaxResultChars int
	Images         bool // send tool images to the model
	DevTools       bool // offer developer-only MCP tools (performance, heap, lighthouse…)
	// Note says, on one line, what discover chose by itself (a local
	// server, a model); "" when everything was configured.
	Note string

	why          string // why the agent is off; "" when enabled
	unconfigured bool   // no provider, base URL or key anywhere: Discover probes loopback
	noModel      bool   // an endpoint but no model: Discover asks it
}

// Enabled reports whether an LLM endpoint is configured.
func (s Settings) Enabled() bool { return s.why == "" && s.BaseURL != "" }

// Why says why the agent is off and how to turn it on; "" when enabled.
func (s Settings) Why() string {
	if s.why == "" && s.BaseURL == "" {
		return "no LLM configured: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server"
	}
	return s.why
}

// LoadSettings resolves settings from flags, the environment and the
// config file, then lets discover fill in a local server or a model.
func LoadSettings(o Overrides) (Settings, error) {
	fc, err := LoadConfig(ConfigPath(os.Getenv))
	if err != nil {
		return Settings{why: "config file unreadable"}, err
	}
	return discover(context.Background(), ResolveSettings(o, os.Getenv, fc)), nil
}

// ResolveSettings applies, in order of precedence, flags, then environment
// (OPENAI_API_KEY, OPENAI_BASE_URL, BROWSERAGENT_MODEL, BROWSERAGENT_PROVIDER),
// then the config file. fc may be nil.
func ResolveSettings(o Overrides, getenv func(string) string, fc *FileConfig) Settings {
	if fc == nil {
		fc = &FileConfig{}
	}
	s := Settings{
		ContextWindow:  firstInt(fc.ContextWindow, defaultContextWindow),
		MaxSteps:       firstInt(o.MaxSteps, fc.MaxSteps, DefaultMaxSteps),
		MaxResultChars: firstInt(fc.MaxResultChars, defaultMaxResultChars),
		Images:         fc.Images == nil || *fc.Images,
		DevTools:       fc.DevTools,
	}
	s.Provider = first(o.Provider, getenv("BROWSERAGENT_PROVIDER"), fc.Provider)
	var p Provider
	if s.Provider != "" {
		var ok bool
		p, ok = lookupProvider(s.Provider, fc)
		if !ok {
			s.why = fmt.Sprintf("unknown provider %q: use one of %s or define it under providers: in %s",
				s.Provider, strings.Join(ProviderNames(), ", "), ConfigPath(getenv))
			return s
		}
	}
	envBase := getenv("OPENAI_BASE_URL")
	s.BaseURL = strings.TrimRight(first(o.BaseURL, envBase, p.BaseURL, fc.BaseURL, builtinProviders["openai"].BaseURL), "/")
	s.APIKey = resolveKey(s.Provider, p, envBase != "" || o.BaseURL != "", getenv)
	s.Model = first(o.Model, getenv("BROWSERAGENT_MODEL"), p.Model, fc.Model)
	if s.Model == "" && s.BaseURL == builtinProviders["openai"].BaseURL {
		s.Model = defaultOpenAIModel
	}
	if p.ContextWindow > 0 && fc.ContextWindow == 0 {
		s.ContextWindow = p.ContextWindow
	}
	local := p.Local || isLoopback(s.BaseURL)
	switch {
	case s.APIKey == "" && !local:
		s.unconfigured = s.Provider == "" && o.BaseURL == "" && envBase == "" && fc.BaseURL == ""
		env := "OPENAI_API_KEY"
		if p.APIKeyEnv != "" {
			env = p.APIKeyEnv
		}
		s.why = fmt.Sprintf("agent off: no API key for %s; set %s (or OPENAI_BASE_URL to a local OpenAI-compatible server such as Ollama or llama.cpp)", s.BaseURL, env)
	case s.Model == "":
		s.noModel = true
		s.why = "agent off: no model chosen; set BROWSERAGENT_MODEL, pass --model, or set model: in " + ConfigPath(getenv)
	}
	return s
}

// resolveKey finds the API key. A provider's own key variable wins; the
// generic OPENAI_API_KEY is used for OpenAI itself and for an explicit
// OPENAI_BASE_URL, never sent to another named provider.
func resolveKey(provider string, p Provider, explicitBase bool, getenv func(string) string) string {
	if p.APIKeyEnv != "" {
		if k := getenv(p.APIKeyEnv); k != "" {
			return k
		}
	}
	if provider == "" || provider == "openai" || explicitBase {
		return getenv("OPENAI_API_KEY")
	}
	return ""
}

func lookupProvider(name string, fc *FileConfig) (Provider, bool) {
	b, okB := builtinProviders[name]
	f, okF := fc.Providers[name]
	if !okF {
		return b, okB
	}
	// A file entry overrides the built-in one field by field.
	b.BaseURL = first(f.BaseURL, b.BaseURL)
	b.APIKeyEnv = first(f.APIKeyEnv, b.APIKeyEnv)
	b.Model = first(f.Model, b.Model)
	b.ContextWindow = firstInt(f.ContextWindow, b.ContextWindow)
	b.Local = b.Local || f.Local
	return b, true
}

func isLoopback(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func firstInt(vals ...int) int {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}

package agent

import (
	"context"
	"sort"
	"sync"
)

// ProviderInfo is one provider the shell's /provider lists: built in, or
// defined under providers: in config.yaml.
type ProviderInfo struct {
	Name    string
	BaseURL string
	KeyEnv  string // the variable holding its key; "" for a local server
	Local   bool   // needs no key (a server on this machine)
	// Models is what a local server listed when asked (ProbeLocal); Err
	// says why it did not answer.
	Models []ModelInfo
	Err    error
}

// Providers lists the built-in providers and those of fc (which may be
// nil), by name, each as the file amends it.
func Providers(fc *FileConfig) []ProviderInfo {
	if fc == nil {
		fc = &FileConfig{}
	}
	names := ProviderNames()
	for n := range fc.Providers {
		if _, ok := builtinProviders[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]ProviderInfo, 0, len(names))
	for _, n := range names {
		p, _ := lookupProvider(n, fc)
		local := p.Local || isLoopback(p.BaseURL)
		info := ProviderInfo{Name: n, BaseURL: p.BaseURL, Local: local}
		if !local {
			info.KeyEnv = first(p.APIKeyEnv, "OPENAI_API_KEY")
		}
		out = append(out, info)
	}
	return out
}

// ProbeLocal asks each local provider of list for its models, all at
// once (a closed port answers at once, a server in milliseconds), and
// fills in Models or Err.
func ProbeLocal(ctx context.Context, list []ProviderInfo) {
	var wg sync.WaitGroup
	for i := range list {
		if !list[i].Local {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			list[i].Models, list[i].Err = listModels(ctx, list[i].BaseURL, "")
		}()
	}
	wg.Wait()
}

// ProviderSettings resolves the settings of provider name as chosen in a
// running shell (/provider NAME): the provider's base URL, key variable
// and model, then the config file (its top-level model: only when the file
// names this provider); OPENAI_BASE_URL, BROWSERAGENT_MODEL and
// the start's flags do not apply, as the person chose this endpoint now.
// With no model set, the endpoint is asked (discover).
func ProviderSettings(ctx context.Context, name string, getenv func(string) string, fc *FileConfig) Settings {
	chosen := func(k string) string {
		switch k {
		case "OPENAI_BASE_URL", "BROWSERAGENT_MODEL", "BROWSERAGENT_PROVIDER":
			return ""
		}
		return getenv(k)
	}
	if fc != nil && fc.Provider != name {
		own := *fc
		own.Model, own.BaseURL = "", "" // the top-level ones go with the file's own provider
		fc = &own
	}
	return discover(ctx, ResolveSettings(Overrides{Provider: name}, chosen, fc))
}

package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// LocalServer is an OpenAI-compatible server people run on their own
// machine, found on its usual loopback port.
type LocalServer struct {
	Name    string // what people call it: "Ollama", "llama.cpp", …
	BaseURL string // ends in /v1
}

// LocalServers are probed in this order when no LLM is configured; the
// first that answers /v1/models wins. llama.cpp's server and LocalAI share
// 8080; Jan's local API server listens on 1337.
var LocalServers = []LocalServer{
	{"Ollama", "http://127.0.0.1:11434/v1"},
	{"llama.cpp or LocalAI", "http://127.0.0.1:8080/v1"},
	{"LM Studio", "http://127.0.0.1:1234/v1"},
	{"vLLM", "http://127.0.0.1:8000/v1"},
	{"Jan", "http://127.0.0.1:1337/v1"},
}

// ModelInfo is one model an endpoint lists.
type ModelInfo struct {
	ID string
	// Tools is whether the server says the model can call tools; false
	// also when it does not say.
	Tools bool
}

// probeTimeout bounds one probe: a local server answers in milliseconds,
// a closed port at once.
const probeTimeout = 1500 * time.Millisecond

// listModels asks base (an OpenAI-compatible URL ending in /v1) for its
// models. Servers that say which models call tools are read for it:
// a "capabilities" list in the entry (LM Studio, llama.cpp), or Ollama's
// /api/show.
func listModels(ctx context.Context, base, apiKey string) ([]ModelInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var list struct {
		Data []struct {
			ID           string   `json:"id"`
			Capabilities []string `json:"capabilities"`
		} `json:"data"`
	}
	if err := getJSON(ctx, strings.TrimRight(base, "/")+"/models", apiKey, &list); err != nil {
		return nil, err
	}
	var out []ModelInfo
	for _, m := range list.Data {
		if m.ID == "" {
			continue
		}
		out = append(out, ModelInfo{ID: m.ID, Tools: canCallTools(m.Capabilities)})
	}
	if isLoopback(base) && !slices.ContainsFunc(out, func(m ModelInfo) bool { return m.Tools }) {
		ollamaTools(ctx, base, out)
	}
	return out, nil
}

func canCallTools(caps []string) bool {
	return slices.ContainsFunc(caps, func(c string) bool { return c == "tools" || c == "tool_use" || c == "function_calling" })
}

// ollamaTools asks Ollama's /api/show which models list "tools" among
// their capabilities; another server's 404 changes nothing.
func ollamaTools(ctx context.Context, base string, models []ModelInfo) {
	root := strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
	var wg sync.WaitGroup
	for i := range models[:min(len(models), 16)] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := strings.NewReader(fmt.Sprintf(`{"model":%q}`, models[i].ID))
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, root+"/api/show", body)
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			var show struct {
				Capabilities []string `json:"capabilities"`
			}
			if doJSON(req, &show) == nil {
				models[i].Tools = canCallTools(show.Capabilities)
			}
		}()
	}
	wg.Wait()
}

func getJSON(ctx context.Context, url, apiKey string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	return doJSON(req, v)
}

func doJSON(req *http.Request, v any) error {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("it answered %s", resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(v)
}

// pickModel chooses the first model that can call tools, else the first.
func pickModel(models []ModelInfo) ModelInfo {
	for _, m := range models {
		if m.Tools {
			return m
		}
	}
	return models[0]
}

// findLocal probes LocalServers in parallel and returns the first in
// their order that lists at least one model, with its models.
func findLocal(ctx context.Context, servers []LocalServer) (LocalServer, []ModelInfo, bool) {
	type found struct {
		models []ModelInfo
		err    error
	}
	res := make([]chan found, len(servers))
	for i, srv := range servers {
		res[i] = make(chan found, 1)
		go func() {
			m, err := listModels(ctx, srv.BaseURL, "")
			res[i] <- found{m, err}
		}()
	}
	for i, srv := range servers {
		if f := <-res[i]; f.err == nil && len(f.models) > 0 {
			return srv, f.models, true
		}
	}
	return LocalServer{}, nil, false
}

// discover fills in what ResolveSettings could not: with nothing
// configured, a local server found on loopback (LocalServers); with an
// endpoint but no model, one of the endpoint's models. Note says what was
// chosen, on one line, for the person; it is "" when nothing was.
//
// BROWSERAGENT_DISCOVER=0 turns the loopback probe off (a script that
// wants "no LLM" to mean exit code 4 whatever runs on the machine).
func discover(ctx context.Context, s Settings) Settings {
	switch {
	case s.unconfigured && os.Getenv("BROWSERAGENT_DISCOVER") != "0":
		srv, models, ok := findLocal(ctx, LocalServers)
		if !ok {
			return s
		}
		m := pickModel(models)
		s.BaseURL, s.Model, s.APIKey, s.why, s.unconfigured = srv.BaseURL, m.ID, "", "", false
		s.Note = fmt.Sprintf("no LLM configured: using %s at %s, %s", srv.Name, srv.BaseURL, modelChoice(m, models))
	case s.noModel:
		models, err := listModels(ctx, s.BaseURL, s.APIKey)
		if err != nil || len(models) == 0 {
			why := "the server lists no model"
			if err != nil {
				why = "its model list is unavailable: " + plainNetError(err)
			}
			s.why = fmt.Sprintf("agent off: no model chosen and %s; set BROWSERAGENT_MODEL or pass --model", why)
			return s
		}
		m := pickModel(models)
		s.Model, s.why, s.noModel = m.ID, "", false
		if len(models) > 1 {
			s.Note = "no model chosen: " + modelChoice(m, models)
		}
	}
	return s
}

// modelChoice says which model was picked and, among several, how to
// choose another.
func modelChoice(m ModelInfo, models []ModelInfo) string {
	if len(models) == 1 {
		return "model " + m.ID
	}
	why := "the first listed"
	if m.Tools {
		why = "the first that can call tools"
	}
	return fmt.Sprintf("model %s (%s of %d; choose with --model or BROWSERAGENT_MODEL, /model lists them)", m.ID, why, len(models))
}

// plainNetError turns a Go HTTP error into a short sentence.
func plainNetError(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"):
		return "nothing answers there"
	case strings.Contains(msg, "deadline exceeded"), strings.Contains(msg, "Timeout"):
		return "no answer in time"
	}
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

package mcpclient

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPTransports connects to a go-sdk server over real HTTP on
// 127.0.0.1 with Streamable HTTP and legacy SSE, and checks that configured
// headers reach the server on every request.
func TestHTTPTransports(t *testing.T) {
	f := newFixture()
	getServer := func(*http.Request) *mcp.Server { return f.srv }
	var mu sync.Mutex
	var auth []string
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			auth = append(auth, r.Header.Get("Authorization"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", record(mcp.NewStreamableHTTPHandler(getServer, nil)))
	mux.Handle("/sse", record(mcp.NewSSEHandler(getServer, nil)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close) // after the manager's cleanup has closed its sessions

	headers := map[string]string{"Authorization": "Bearer ${TOKEN}"}
	cfg := &Config{Servers: map[string]*ServerConfig{
		"streamable": {Name: "streamable", URL: srv.URL + "/mcp", Headers: headers},
		"legacy":     {Name: "legacy", Type: TypeSSE, URL: srv.URL + "/sse", Headers: headers},
	}}
	for _, sc := range cfg.Servers {
		if err := expandServer(sc, env(map[string]string{"TOKEN": "t0k"})); err != nil {
			t.Fatal(err)
		}
	}
	m := startManager(t, cfg, nil)
	for _, name := range []string{"streamable", "legacy"} {
		waitReady(t, m, name)
		if r := call(t, m, toolName(name, "echo"), `{"message":"over `+name+`"}`); r.Text != "over "+name {
			t.Errorf("%s echo = %q", name, r.Text)
		}
	}
	if st := must(m.ServerStatus("legacy")); st.Transport != TypeSSE {
		t.Errorf("legacy transport = %s", st.Transport)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) < 4 {
		t.Fatalf("only %d requests seen", len(auth))
	}
	for _, a := range auth {
		if a != "Bearer t0k" {
			t.Errorf("Authorization = %q, want the expanded header on every request", a)
		}
	}
}

// TestHTTPServerDown: an unreachable URL is an error state with the
// reason, and the header value (a secret) is not in it.
func TestHTTPServerDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/mcp"
	srv.Close()
	cfg := &Config{Servers: map[string]*ServerConfig{
		"down": {Name: "down", URL: url, Headers: map[string]string{"Authorization": "Bearer secret-value"}},
	}}
	m := startManager(t, cfg, nil)
	if err := m.WaitReady(t.Context(), "down"); err == nil || strings.Contains(err.Error(), "secret-value") {
		t.Errorf("WaitReady = %v, want an error without the header value", err)
	}
}

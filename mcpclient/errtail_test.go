package mcpclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPErrorHasNoStderr: a network server has no process, so its
// failure never carries a "stderr:" tail made of its protocol log
// messages and browseragent's notes; the HTTP failure is said as it is.
// A stdio server's failure keeps its real stderr (see
// TestMisbehavingServers/crash) and not its log messages.
func TestHTTPErrorHasNoStderr(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "logger", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "chatty", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_ = r.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "db", Data: "connected to the database"})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	var down atomic.Bool
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	m := startManager(t, &Config{Servers: map[string]*ServerConfig{"api": {Name: "api", URL: hs.URL}}}, nil)
	waitReady(t, m, "api")
	if err := m.SetLogLevel(t.Context(), "api", "debug"); err != nil {
		t.Fatal(err)
	}
	call(t, m, toolName("api", "chatty"), `{}`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		logs := strings.Join(must(m.Logs("api")), "\n")
		if strings.Contains(logs, "[log info db] connected to the database") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log message never reached the server's log:\n%s", logs)
		}
	}

	down.Store(true)
	if err := m.Restart(t.Context(), "api"); err != nil {
		t.Fatal(err)
	}
	if err := m.WaitReady(t.Context(), "api"); err == nil {
		t.Fatal("a server answering 503 became ready")
	}
	err := must(m.ServerStatus("api")).Err
	if err == nil {
		t.Fatal("no reason for the failed start")
	}
	t.Logf("reason: %v", err)
	for _, bad := range []string{"stderr:", "[log", "connected to the database"} {
		if strings.Contains(err.Error(), bad) {
			t.Errorf("reason %q contains %q: protocol logs are not stderr", err, bad)
		}
	}
	for _, want := range []string{"503", "down for maintenance"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("reason %q does not say what the HTTP server answered (%q)", err, want)
		}
	}
}

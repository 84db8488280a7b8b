package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestMCPCallInterruptCancels: Ctrl-C (SIGINT) of `mcp call` over
// Streamable HTTP and legacy SSE tells the server — it receives
// notifications/cancelled for the call in flight — before the command
// exits. The server is a real go-sdk server on 127.0.0.1; the handler in
// front of it records what it receives.
func TestMCPCallInterruptCancels(t *testing.T) {
	for _, tc := range []struct{ name, path string }{{"streamable-http", "/mcp"}, {"sse", "/sse"}} {
		t.Run(tc.name, func(t *testing.T) {
			mcpEnv(t)
			started := make(chan string, 1)
			cancelled := make(chan string, 4)
			var stop chan struct{}
			srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
			srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					started <- r.Session.ID()
					select { // not ctx: the test looks at the notification itself
					case <-time.After(60 * time.Second):
					case <-stop:
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "waited"}}}, nil
				})
			get := func(*http.Request) *mcp.Server { return srv }
			mux := http.NewServeMux()
			mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(get, nil))
			mux.Handle("/sse", mcp.NewSSEHandler(get, nil))
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost { // what reaches the server, before the SDK queues it
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					var msg struct {
						Method string
						Params struct{ Reason string }
					}
					if json.Unmarshal(body, &msg) == nil && msg.Method == "notifications/cancelled" {
						cancelled <- msg.Params.Reason
					}
				}
				mux.ServeHTTP(w, r)
			}))
			t.Cleanup(hs.Close)
			stop = make(chan struct{})
			t.Cleanup(func() { close(stop) }) // runs first: the tool returns, so hs.Close does not wait

			args := []string{"mcp", "call", "--url", hs.URL + tc.path, "wait", "{}"}
			if tc.path == "/sse" {
				args = append(args, "--sse")
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestRunHelperProcess$")
			cmd.Env = append(os.Environ(), "BROWSERAGENT_TEST_MAIN=1", "BROWSERAGENT_TEST_ARGS="+strings.Join(args, "\x1f"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-started:
			case err := <-done:
				t.Fatalf("mcp call ended before the tool ran: %v\n%s", err, stderr.String())
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("the tool never started; stderr:\n%s", stderr.String())
			}
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("mcp call did not end after Ctrl-C; stderr:\n%s", stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code == 0 || stdout.Len() != 0 {
				t.Errorf("exit %d, stdout %q: want a failure and no result", code, stdout.String())
			}
			// The command has exited: the notification, if sent, was sent
			// before that; a short wait only covers the server's handling.
			select {
			case reason := <-cancelled:
				t.Logf("the server was told: %q", reason)
			case <-time.After(5 * time.Second):
				t.Fatalf("the server never got notifications/cancelled; stderr:\n%s", stderr.String())
			}
		})
	}
}

// TestMCPCallURLElicitation: server-everything's trigger-url-elicitation
// with errorPath answers -32042 (URL elicitation required). mcp call
// prints the URL and the server's message on their own lines and exits 3
// (the TypeScript SDK's "MCP error -32042: " is not repeated);
// --yes approves the call but opens nothing ($BROWSER would leave a mark).
// It runs the binary, so it runs in parallel; no process of it may be
// left (newBinEnv).
func TestMCPCallURLElicitation(t *testing.T) {
	t.Parallel()
	testutil.RequireProgram(t, "npx")
	dir := t.TempDir()
	mark := filepath.Join(dir, "browser-was-run")
	browserCmd := filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(browserCmd, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	e := newBinEnv(t, "BROWSER="+browserCmd, npxInit)
	ev := "npx -y @modelcontextprotocol/server-everything@2026.8.31"
	code, out, errs := e.run(t, "", "mcp", "call", "--cmd", ev, "--yes", "trigger-url-elicitation",
		`{"url":"https://example.com/consent","errorPath":true}`)
	if code != exitMCPCallNeedsURL || out != "" {
		t.Errorf("exit %d (want %d), stdout %q", code, exitMCPCallNeedsURL, out)
	}
	for _, want := range []string{
		"the server needs you to open a URL before this call can run (This request requires browser-based authorization.):\n",
		"\n  open in your browser: https://modelcontextprotocol.io\n",
		"\n    Open this link to satisfy the prerequisite, then retry the request.\n",
		"then run the same command again (browseragent opened nothing)\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("a browser was started")
	}
}

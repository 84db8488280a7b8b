package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
)

// requireTool skips a test when an outside program is missing, or fails it
// when BROWSERAGENT_REQUIRE_BROWSER=1 (CI).
func requireTool(t *testing.T, name string, find func() (string, error)) {
	t.Helper()
	if _, err := find(); err != nil {
		if os.Getenv("BROWSERAGENT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("BROWSERAGENT_REQUIRE_BROWSER=1 but %s is missing: %v", name, err)
		}
		t.Skipf("skipping: %s not found: %v", name, err)
	}
}

// descendants lists the processes below this test process.
func descendants() []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[0] != "Z" {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	me := os.Getpid()
	var out []int
	for pid := range parent {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == me {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

func assertNoChildren(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(descendants()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if pids := descendants(); len(pids) > 0 {
		t.Errorf("child processes left behind: %v", pids)
	}
}

func newTestSession(t *testing.T, withMCP bool, rules string) *Session {
	t.Helper()
	requireTool(t, "chromium", browser.FindChrome)
	if withMCP {
		requireTool(t, "npx", func() (string, error) { return exec.LookPath("npx") })
	}
	r, err := guard.ParseRules([]byte(rules), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts := &SessionOptions{Rules: r, AuditPath: filepath.Join(t.TempDir(), "audit.jsonl")}
	if withMCP {
		opts.MCP = mcpclient.DefaultConfig()
	}
	s, err := NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		assertNoChildren(t)
	})
	s.Start(context.Background())
	return s
}

func call(t *testing.T, s *Session, tool string, args any) *ToolResult {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := s.Registry.Call(ctx, tool, raw, OriginCommand)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func serveSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><h1>Heading of %s</h1><button onclick="document.title='clicked'">Press me</button></body></html>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSessionNativeAndMCPShareOneBrowser drives a page opened by the native
// tools through chrome-devtools-mcp, proving both see the same browser, and
// that the guard judges MCP calls by the live URL behind their pageId.
func TestSessionNativeAndMCPShareOneBrowser(t *testing.T) {
	site := serveSite(t)
	host := strings.TrimPrefix(site.URL, "http://")
	s := newTestSession(t, true, `version: 1
rules:
  - name: local-vault
    category: password-manager
    hosts: ["`+strings.Split(host, ":")[0]+`"]
    paths: ["/vault*"]
    action: ask
`)
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/article"}); res.IsError {
		t.Fatalf("browser_open: %s", res.Text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
		st, _ := s.MCP.ServerStatus(mcpclient.DefaultServerName)
		logs, _ := s.MCP.Logs(mcpclient.DefaultServerName)
		t.Fatalf("chrome-devtools-mcp not ready: %v (%v)\n%s", err, st.Err, strings.Join(logs, "\n"))
	}
	list := call(t, s, "mcp__chrome-devtools__list_pages", map[string]any{})
	var id int = -1
	for _, p := range browser.ParseListPages(list.Text) {
		if strings.HasSuffix(p.URL, "/article") {
			id = p.ID
		}
	}
	if id < 0 {
		t.Fatalf("chrome-devtools-mcp does not see the page the native tools opened:\n%s", list.Text)
	}
	snap := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": id})
	if snap.IsError || !strings.Contains(snap.Text, "Heading of /article") {
		t.Fatalf("take_snapshot through MCP:\n%s", snap.Text)
	}
	// The guard judges an MCP write by the page behind pageId, asked live:
	// nobody is there to approve a write on a sensitive page.
	if nav := call(t, s, "browser_navigate", map[string]any{"url": site.URL + "/vault"}); nav.IsError {
		t.Fatalf("navigating to a sensitive page is allowed, got: %s", nav.Text)
	}
	click := call(t, s, "mcp__chrome-devtools__press_key", map[string]any{"pageId": id, "key": "Enter"})
	if !click.IsError || !strings.Contains(click.Text, "local-vault") {
		t.Fatalf("write on a sensitive page through MCP, with nobody to approve, was not refused: %q", click.Text)
	}
}

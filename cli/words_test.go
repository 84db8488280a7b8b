package cli

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	runewidth "github.com/mattn/go-runewidth"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// modelWords are wordings meant for the model (tool names in hints, what
// to tell the person) or Go's own; none may reach a person. (A tool the
// person named in /call may be named back.)
var modelWords = []string{
	"browser_tabs", "take a new browser_snapshot", "take a browser_snapshot", "browser_navigate", "browser_close", "browser_select_tab",
	"Do not retry", "Tell the person", "ask the person", "context canceled", "context deadline",
	"dial tcp", "strconv.", "json: cannot", `Get "http`, "the person",
}

// wordsSite serves a page, a page under a deny rule and one under an ask
// rule, and writes the rules file.
func wordsSite(t *testing.T) (base, sites string) {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>%s</title><h1>%s</h1><button onclick="this.textContent='done'">Pay</button>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(ts.Close)
	sites = filepath.Join(t.TempDir(), "sites.yaml")
	rules := "version: 1\nrules:\n" +
		"  - name: local-vault\n    category: password-manager\n    hosts: [\"127.0.0.1\"]\n    paths: [\"/vault*\"]\n    action: deny\n" +
		"  - name: local-bank\n    category: bank\n    hosts: [\"127.0.0.1\"]\n    paths: [\"/bank*\"]\n    action: ask\n"
	if err := os.WriteFile(sites, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	return ts.URL, sites
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// errorLines are the "error: " lines of stderr, in order.
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "error: ") {
			out = append(out, l)
		}
	}
	return out
}

// TestShellWordsForPeople: what the shell prints when a browser command
// fails is worded for the person — shell commands in hints, the person's
// own side of a refusal, no Go error text — with a real Chromium behind
// the one registry path. The shell is the binary, beside the other
// parallel tests; no process of it may be left (newBinEnv).
func TestShellWordsForPeople(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	e := runBinEnv(t, nil)
	base, sites := wordsSite(t)
	dead := closedPort(t)
	script := strings.Join([]string{
		"/open " + base + "/page",
		"/tab x",
		"/tab 9",
		"/click e999",
		`/call browser_snapshot {"from_line": "x"}`,
		"/open http://127.0.0.1:1/",
		"/connect --browser-url http://" + dead,
		"/open " + base + "/vault",
		"/open " + base + "/bank",
		"/snapshot",
		"/click e1",
		"n",
		"",
	}, "\n")
	code, stdout, stderr := e.run(t, script, "--no-mcp", "--sites", sites)
	if code != 1 {
		t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	want := []string{
		`error: /tab x: TAB must be a tab number from /tabs`,
		`error: no tab "t9": /tabs lists them`,
		`error: ref e999 is not on the page any more (the page changed or navigated): take a new /snapshot`,
		`error: bad arguments for browser_snapshot: from_line must be a number, not text`,
		`error: could not load http://127.0.0.1:1/: net::ERR_UNSAFE_PORT`,
		`error: browser URL http://` + dead + `: could not connect to ` + dead + `: connection refused (nothing is listening there): no Chrome with remote debugging found: in Chrome open chrome://inspect/#remote-debugging and allow remote debugging, then run /connect again; or start Chrome with --remote-debugging-port=9222 --user-data-dir=<a non-default profile> and connect with --browser-url http://127.0.0.1:9222`,
		`error: Refused: browser_open would load ` + base + `/vault, which matches the deny rule "local-vault" (password-manager): browseragent never acts there, and nobody can approve it; do this step yourself, in your own browser.`,
		`error: Not done: you declined browser_click on ` + base + `/bank.`,
	}
	if diff := cmp.Diff(want, errorLines(stderr)); diff != "" {
		t.Errorf("error lines (-want +got)\n%s\nstderr:\n%s", diff, stderr)
	}
	if !strings.Contains(stderr, "Tab t2 stays open: /navigate URL loads a page in it, /close 2 closes it.") {
		t.Errorf("the failed /open does not say how to go on in shell commands:\n%s", stderr)
	}
	for _, bad := range modelWords {
		if strings.Contains(stdout+stderr, bad) {
			t.Errorf("the person was shown %q:\nstdout:\n%s\nstderr:\n%s", bad, stdout, stderr)
		}
	}
}

// TestRunWordsForPeople: run's progress lines show a failed call in the
// person's words, with run's ways on (tools and flags, not the shell's
// slash commands), while the model, in the same run, gets its own. The run
// is the binary, beside the other parallel tests.
func TestRunWordsForPeople(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("tab"), Reply: llmtest.Reply{Calls: []llmtest.ToolCall{{Name: "browser_select_tab", Args: `{"tab":"t9"}`}}}},
		llmtest.Rule{When: llmtest.AfterCall("browser_select_tab"), Reply: llmtest.Text("There is no tab t9.")},
	)
	e := runBinEnv(t, srv)
	code, _, stderr := e.run(t, "", "run", "--no-mcp", "switch to tab t9")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	// In run's words: the tool that lists tabs, not the shell's /tabs.
	if !strings.Contains(stderr, `✗ browser_select_tab: no tab "t9": browser_tabs lists them`) {
		t.Errorf("the progress line is not in the person's words for run:\n%s", stderr)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Content; !strings.Contains(got, `no tab "t9": list tabs with browser_tabs`) {
		t.Errorf("the model did not get its own wording: %q", got)
	}
}

// TestCLIWordsForPeople: the subcommands' errors carry no Go wording: a
// number flag that does not parse, a refusal of fetch.
func TestCLIWordsForPeople(t *testing.T) {
	runEnv(t, nil)
	base, sites := wordsSite(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"number flag", []string{"audit", "-n", "x"},
			`browseragent: invalid argument "x" for "-n, --lines" flag: "x" is not a number (see 'browseragent audit --help')` + "\n"},
		{"fetch refused", []string{"fetch", "--sites", sites, base + "/vault"},
			`browseragent: Refused: web_fetch would load ` + base + `/vault, which matches the deny rule "local-vault" (password-manager): browseragent never acts there, and nobody can approve it; do this step yourself, in your own browser.` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, stderr := runMain(tt.args...)
			if diff := cmp.Diff(tt.want, stderr); diff != "" {
				t.Errorf("stderr (-want +got)\n%s", diff)
			}
		})
	}
}

// TestShellTabCommands: /navigate, /back and /close [TAB] drive the tabs
// through the registry; in the person's Chrome /close closes the agent's
// tab and refuses the person's own, in the person's words, and the
// person's tabs are as they were. Each mode switch is one line. The shell
// is the binary, beside the other parallel tests.
func TestShellTabCommands(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	e := runBinEnv(t, nil)
	base, _ := wordsSite(t)
	home := []string{base + "/home"}
	person := testutil.StartPersonsBrowser(t, chrome, home, func(pages []string) bool { return cmp.Equal(pages, home) })
	defer person.Close(t)
	script := strings.Join([]string{
		"/connect --user-data-dir " + person.Dir,
		"/close 1",
		"/open " + base + "/first",
		"/navigate " + base + "/second",
		"/back",
		"/snapshot",
		"/click e1",
		"t",
		"/close x",
		"/close 2",
		"/disconnect",
		"/open " + base + "/isolated",
		"/close",
		"",
	}, "\n")
	code, stdout, stderr := e.run(t, script, "--no-mcp")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	wantErr := []string{
		"error: Refused: the tab " + base + "/home is yours (you opened it, not the agent); in shared mode browseragent closes only tabs it opened itself. Close it in Chrome.",
		"error: /close x: TAB must be a tab number from /tabs",
	}
	if diff := cmp.Diff(wantErr, errorLines(stderr)); diff != "" {
		t.Errorf("error lines (-want +got)\n%s\nstderr:\n%s", diff, stderr)
	}
	var got []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "connected") || strings.HasPrefix(l, "disconnected") || strings.HasPrefix(l, "Loaded") ||
			strings.HasPrefix(l, "Closed") || strings.HasPrefix(l, "Clicked") || strings.Contains(l, "tab (") || strings.Contains(l, "tabs (") {
			got = append(got, l)
		}
	}
	want := []string{
		"connected to your Chrome (shared mode): every write (click, type, key, JavaScript) asks first, on your tabs and the agent's own; /disconnect goes back.",
		`Loaded tab t2: "/first" ` + base + "/first",
		`Loaded tab t2: "/second" ` + base + "/second",
		`Loaded tab t2: "/first" ` + base + "/first",
		`Clicked e1 in tab t2: "/first" ` + base + "/first",
		"Closed tab t2.",
		`disconnected from your Chrome: back to the isolated browser. Dropped 1 "always allow" grant.`,
		`Loaded tab t1: "/isolated" ` + base + "/isolated",
		"Closed tab t1.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stdout lines (-want +got)\n%s\nstdout:\n%s", diff, stdout)
	}
	if !strings.Contains(stdout, "in your own browser: it needs your") || strings.Contains(stdout, "the person") {
		t.Errorf("the approval box does not speak to the person:\n%s", stdout)
	}
	if diff := cmp.Diff(home, person.PageURLs()); diff != "" {
		t.Errorf("the person's tabs (-want +got)\n%s", diff)
	}
}

// toolLines are the lines of /tools output in text: a tool name first.
func toolLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "browser_") || strings.HasPrefix(l, "web_fetch") {
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	return out
}

// checkFits fails t unless every one of the 16 native tools has a line no
// wider than cols, and a long description was cut with "…".
func checkFits(t *testing.T, lines []string, cols int, screen string) {
	t.Helper()
	if len(lines) < 16 {
		t.Fatalf("%d tool lines, want 16:\n%s", len(lines), screen)
	}
	cut := 0
	for _, l := range lines {
		if w := runewidth.StringWidth(l); w > cols {
			t.Errorf("a %d-column line in %d columns: %q", w, cols, l)
		}
		if strings.HasSuffix(l, "…") {
			cut++
		}
	}
	if cut == 0 {
		t.Errorf("no description was cut to %d columns:\n%s", cols, strings.Join(lines, "\n"))
	}
}

// TestShellToolsFitTerminal: /tools fits each tool on one line of the
// terminal it runs in (a private tmux server at 60 and 150 columns; the
// pane's lines are joined back, so a wrapped line would show as wider);
// TestShellToolsFitPiped is the same off a terminal.
func TestShellToolsFitTerminal(t *testing.T) {
	t.Parallel() // the binary in a tmux server of its own, with its own home
	testutil.RequireProgram(t, "tmux")
	testutil.Require(t, "chromium", browser.FindChrome) // the 23 browser tools (24 with web_fetch) are offered with one
	bin := program(t, browseragentPkg)
	for _, cols := range []int{60, 150} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tm := &ttySession{t: t, socket: filepath.Join(dir, "tmux.sock")}
			tm.run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", strconv.Itoa(cols), "-y", "50", "-c", dir, "env", "-i",
				"PATH="+os.Getenv("PATH"), "HOME="+dir, "TERM=xterm-256color", "NO_COLOR=1",
				"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
				"sh", "-c", bin+" --no-mcp; sleep 60")
			t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
			tm.waitFor("/help", 30*time.Second)
			tm.keys("/tools", "Enter")
			tm.waitFor("24 tools", 30*time.Second)
			out, err := exec.Command("tmux", "-S", tm.socket, "capture-pane", "-p", "-J", "-t", "t", "-S", "-").CombinedOutput()
			if err != nil {
				t.Fatal(err)
			}
			checkFits(t, toolLines(string(out)), cols, string(out))
			tm.keys("/exit", "Enter")
		})
	}
}

// TestShellToolsFitPiped: off a terminal /tools fits each tool on a line
// of 100 columns.
func TestShellToolsFitPiped(t *testing.T) {
	testutil.Require(t, "chromium", browser.FindChrome) // the 23 browser tools (24 with web_fetch) are offered with one
	runEnv(t, nil)
	t.Setenv("COLUMNS", "")
	_, stdout, _ := runMainIn("/tools\n", "--no-mcp")
	checkFits(t, toolLines(stdout), 100, stdout)
}

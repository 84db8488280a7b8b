package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/agent/transcript"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// runEnv points browseragent at srv and keeps it away from the person's
// config, state and keys.
func runEnv(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"HOME": dir, "XDG_CONFIG_HOME": dir + "/config", "XDG_STATE_HOME": dir + "/state",
		"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "BROWSERAGENT_MODEL": "test-model", "BROWSERAGENT_PROVIDER": "",
		"BROWSERAGENT_DISCOVER": "0", // "no LLM" must not find a server someone runs here
	} {
		t.Setenv(k, v)
	}
	if srv != nil {
		t.Setenv("OPENAI_BASE_URL", srv.URL)
	}
}

// articleServer serves one static article on 127.0.0.1.
func articleServer(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Quiet Harbour Gazette</title></head><body>
<article><h1>Quiet Harbour Gazette</h1><p>The harbour was quiet this morning, as the fishing fleet stayed in port
because of the storm warning issued late last night by the coast guard office.</p>
<p>Local shops opened late, and the ferry to the island ran on its winter timetable.</p></article></body></html>`)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/"
}

func runMain(args ...string) (code int, stdout, stderr string) {
	return runMainIn("", args...)
}

func runMainIn(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errw bytes.Buffer
	code = Main(args, strings.NewReader(stdin), &out, &errw)
	return code, out.String(), errw.String()
}

func TestRunAnswersWithWebFetch(t *testing.T) {
	page := articleServer(t)
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("title"), Reply: llmtest.Reply{Text: "Fetching it.", Calls: []llmtest.ToolCall{{Name: "web_fetch", Args: `{"url":"` + page + `"}`}}}},
		llmtest.Rule{When: llmtest.LastTool("fishing fleet"), Reply: llmtest.Text("The title is Quiet Harbour Gazette.")},
	)
	runEnv(t, srv)
	code, stdout, stderr := runMain("run", "--no-mcp", "what is the title of "+page)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if stdout != "The title is Quiet Harbour Gazette.\n" {
		t.Errorf("stdout = %q", stdout)
	}
	for _, want := range []string{"Fetching it.", "→ web_fetch", "✓ web_fetch"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestRunFindsLocalServer: with nothing configured (no key, no base URL,
// no model), a server on Ollama's port is found and used, and stderr says
// so on one line.
func TestRunFindsLocalServer(t *testing.T) {
	page := articleServer(t)
	// Ollama's port, waiting a while for another test package to let it
	// go; taken for good (a real Ollama), it skips, but fails in CI.
	var srv *llmtest.Server
	testutil.Require(t, "a free 127.0.0.1:11434 (Ollama's port; is an Ollama running?)", func() (string, error) {
		var err error
		srv, err = llmtest.NewAtWait(t, "127.0.0.1:11434", 30*time.Second,
			llmtest.Rule{When: llmtest.LastUser("title"), Reply: llmtest.Call("web_fetch", `{"url":"`+page+`"}`)},
			llmtest.Rule{When: llmtest.LastTool("fishing fleet"), Reply: llmtest.Text("Quiet Harbour Gazette")},
		)
		return "", err
	})
	srv.SetModels(llmtest.Model{ID: "llama3.2", ShowCapabilities: []string{"completion", "tools"}})
	runEnv(t, nil)
	t.Setenv("BROWSERAGENT_MODEL", "")
	t.Setenv("BROWSERAGENT_DISCOVER", "")
	code, stdout, stderr := runMain("run", "--no-mcp", "what is the title of "+page)
	if code != 0 || stdout != "Quiet Harbour Gazette\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	const note = "browseragent: no LLM configured: using Ollama at http://127.0.0.1:11434/v1, model llama3.2\n"
	if !strings.HasPrefix(stderr, note) {
		t.Errorf("stderr does not start with the one-line note %q:\n%s", note, stderr)
	}
	if reqs := srv.Requests(); len(reqs) == 0 || reqs[0].Model != "llama3.2" {
		t.Errorf("requests did not use the listed model: %+v", reqs)
	}
}

func TestRunJSONTranscript(t *testing.T) {
	page := articleServer(t)
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("title"), Reply: llmtest.Call("web_fetch", `{"url":"`+page+`"}`)},
		llmtest.Rule{When: llmtest.LastTool("fishing fleet"), Reply: llmtest.Text("Quiet Harbour Gazette")},
	)
	runEnv(t, srv)
	code, stdout, stderr := runMain("run", "--no-mcp", "--json", "title of "+page+"?")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var tr transcript.Transcript
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	var types []string
	for _, e := range tr.Events {
		types = append(types, e.Type+":"+e.Tool)
	}
	got := []any{tr.Status, tr.Answer, tr.Steps, types}
	want := []any{"answered", "Quiet Harbour Gazette", 2, []string{"tool_call:web_fetch", "tool_result:web_fetch"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if tr.ToolDefBytes == 0 || !strings.Contains(tr.Events[1].Text, "fishing fleet") {
		t.Errorf("transcript lacks tool bytes or the result text: %+v", tr)
	}
	// The result's text is the model's, line for line: a script splitting
	// it at newlines gets the page's paragraphs.
	if res := tr.Events[1].Text; !strings.Contains(res, "# Quiet Harbour Gazette\n\nThe harbour was quiet") {
		t.Errorf("tool_result text lost its newlines: %q", res)
	}
}

// TestRunRefusedAndWords: a task whose only call the guard refused ends
// with its own status and exit code, not "answered"; the progress line
// carries the whole reason, wrapped at $COLUMNS between words, not cut.
func TestRunRefusedAndWords(t *testing.T) {
	base, sites := wordsSite(t)
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("vault"), Reply: llmtest.Call("web_fetch", `{"url":"`+base+`/vault"}`)},
		llmtest.Rule{When: llmtest.AfterCall("web_fetch"), Reply: llmtest.Text("I could not read the vault: it is refused.")},
	)
	runEnv(t, srv)
	t.Setenv("COLUMNS", "72")
	code, stdout, stderr := runMain("run", "--no-mcp", "--sites", sites, "--json", "read the vault at "+base+"/vault")
	if code != exitRunRefused {
		t.Fatalf("exit %d, want %d; stdout %s\nstderr:\n%s", code, exitRunRefused, stdout, stderr)
	}
	var tr transcript.Transcript
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if tr.Status != "refused" || tr.Answer != "I could not read the vault: it is refused." {
		t.Errorf("status %q, answer %q; want refused with the model's answer", tr.Status, tr.Answer)
	}
	reason := `Refused: web_fetch would load ` + base + `/vault, which matches the deny rule "local-vault" (password-manager): browseragent never acts there, and nobody can approve it; do this step yourself, in your own browser.`
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "  ✗ web_fetch:") || (len(lines) > 0 && strings.HasPrefix(l, "    ")) {
			lines = append(lines, l)
		} else if len(lines) > 0 {
			break
		}
	}
	if len(lines) < 2 {
		t.Fatalf("the reason is not wrapped over lines:\n%s", stderr)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 72 {
			t.Errorf("a %d-character progress line at COLUMNS=72: %q", n, l)
		}
	}
	if got := strings.Join(strings.Fields(strings.TrimPrefix(strings.Join(lines, " "), "  ✗ web_fetch:")), " "); got != reason {
		t.Errorf("the progress line does not carry the whole reason:\n got %q\nwant %q", got, reason)
	}
}

// TestRunTimeoutNamesItsLimit: a fetch cut short by --timeout says that
// limit, not web_fetch's own 30 s.
func TestRunTimeoutNamesItsLimit(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	srv := llmtest.New(t, llmtest.Rule{When: llmtest.LastUser("slow"), Reply: llmtest.Call("web_fetch", `{"url":"`+hang.URL+`/"}`)})
	runEnv(t, srv)
	code, stdout, stderr := runMain("run", "--no-mcp", "--timeout", "3s", "--json", "read the slow page")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	var tr transcript.Transcript
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	var text string
	for _, e := range tr.Events {
		if e.Type == "tool_result" {
			text = e.Text
		}
	}
	m := regexp.MustCompile(`\(limit ([0-9.]+m?s)\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the web_fetch result names no limit: %q (status %s)", text, tr.Status)
	}
	if d, err := time.ParseDuration(m[1]); err != nil || d > 3*time.Second {
		t.Errorf("the fetch says its limit was %s; the limit that applied was --timeout 3s: %q", m[1], text)
	}
}

func TestRunTaskFromStdin(t *testing.T) {
	srv := llmtest.New(t, llmtest.Rule{When: llmtest.LastUser("from stdin"), Reply: llmtest.Text("read it")})
	runEnv(t, srv)
	code, stdout, stderr := runMainIn("  a task from stdin\n", "run", "--no-mcp", "-")
	if code != 0 || stdout != "read it\n" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

// shellCommand finds a slash command of the shell in what `run` prints.
var shellCommand = regexp.MustCompile(`(^|[\s(])/(snapshot|tabs|tab|connect|disconnect|open|close|navigate|call|mcp)\b`)

func TestRunFailures(t *testing.T) {
	tests := []struct {
		name     string
		rules    []llmtest.Rule
		noLLM    bool
		stdin    string
		args     []string
		wantCode int
		wantErr  string
	}{
		{
			name:     "timeout",
			rules:    []llmtest.Rule{{When: llmtest.Any(), Reply: llmtest.Reply{Text: "thinking", Hang: true}}},
			args:     []string{"run", "--no-mcp", "--timeout", "200ms", "hello"},
			wantCode: 1, wantErr: "gave up after --timeout 200ms",
		},
		{
			name:     "empty task on stdin",
			args:     []string{"run", "--no-mcp", "-"},
			wantCode: exitRunUsage, wantErr: "task on stdin is empty",
		},
		{
			name:     "step limit",
			rules:    []llmtest.Rule{{When: llmtest.Any(), Reply: llmtest.Call("web_fetch", `{"url":"http://127.0.0.1:1/"}`)}},
			args:     []string{"run", "--no-mcp", "--max-steps", "2", "loop"},
			wantCode: exitRunStepLimit, wantErr: "stopped after 2 steps without a final answer: raise --max-steps (it was 2), or split the task\n",
		},
		{
			name:     "step limit of one",
			rules:    []llmtest.Rule{{When: llmtest.Any(), Reply: llmtest.Call("web_fetch", `{"url":"http://127.0.0.1:1/"}`)}},
			args:     []string{"run", "--no-mcp", "--max-steps", "1", "loop"},
			wantCode: exitRunStepLimit, wantErr: "browseragent: step limit reached: stopped after 1 step without a final answer: raise --max-steps (it was 1), or split the task\n",
		},
		{
			name:     "connect fails",
			args:     []string{"run", "--no-mcp", "--browser-url", "http://127.0.0.1:1", "hello"},
			wantCode: 1, wantErr: "allow remote debugging, then run again with --connect; or start Chrome",
		},
		{
			name:  "no LLM configured",
			noLLM: true, args: []string{"run", "--no-mcp", "hello"},
			wantCode: exitRunNoLLM, wantErr: "OPENAI_API_KEY",
		},
		{
			name:     "no task",
			args:     []string{"run"},
			wantCode: exitRunUsage, wantErr: "needs one task",
		},
		{
			name:     "empty answer",
			rules:    []llmtest.Rule{{When: llmtest.Any(), Reply: llmtest.Reply{Text: " "}}},
			args:     []string{"run", "--no-mcp", "hello"},
			wantCode: 1, wantErr: "empty answer",
		},
		{
			name:     "provider error",
			rules:    []llmtest.Rule{{When: llmtest.Any(), Reply: llmtest.Error(404, "", "model not found")}},
			args:     []string{"run", "--no-mcp", "hello"},
			wantCode: 1, wantErr: "check the model name",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srv *llmtest.Server
			if !tt.noLLM {
				srv = llmtest.New(t, tt.rules...)
			}
			runEnv(t, srv)
			if tt.noLLM {
				t.Setenv("BROWSERAGENT_MODEL", "")
			}
			code, stdout, stderr := runMainIn(tt.stdin, tt.args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("exit %d (want %d), stderr (want %q):\n%s", code, tt.wantCode, tt.wantErr, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing on failure", stdout)
			}
			if strings.Contains(stderr, `say "continue"`) || strings.Contains(stderr, "config.yaml)") || shellCommand.MatchString(stderr) {
				t.Errorf("run gives the shell's advice:\n%s", stderr)
			}
		})
	}
}

// TestRunScreenshotReachesModel drives a real Chromium: the model opens a
// local page and takes a screenshot, which must reach it as an image part
// of a user message; no browser process may outlive the run. It runs the
// binary, beside the other parallel tests.
func TestRunScreenshotReachesModel(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Red box</title><body style="margin:0"><div style="width:300px;height:200px;background:#d00"></div>`)
	}))
	t.Cleanup(ts.Close)
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("look"), Reply: llmtest.Call("browser_open", `{"url":"`+ts.URL+`/"}`)},
		llmtest.Rule{When: llmtest.AfterCall("browser_open"), Reply: llmtest.Call("browser_screenshot", `{}`)},
		llmtest.Rule{When: llmtest.AfterCall("browser_screenshot"), Reply: llmtest.Text("A red box.")},
	)
	e := runBinEnv(t, srv)
	tmp := e.tmp // the browser's profile lands here: our marker
	code, stdout, stderr := e.run(t, "", "run", "--no-mcp", "look at "+ts.URL+"/")
	if code != 0 || stdout != "A red box.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	msg := last.Last()
	imgs := msg.Images()
	if msg.Role != "user" || len(imgs) != 1 || !strings.HasPrefix(imgs[0].ImageURL, "data:image/") {
		t.Fatalf("last message is %s with %d images, want the screenshot as a user image part", msg.Role, len(imgs))
	}
	if left := testutil.ProcessesWith(tmp); len(left) > 0 {
		t.Errorf("processes left running after run: %v", left)
	}
}

// spaForm is a JavaScript app: plain HTTP sees an empty shell; in the
// browser it draws a form whose submission shows a success message.
const spaForm = `<!doctype html><html><head><title>Newsletter</title></head><body><div id="root"></div>
<script src="/app.js"></script><script src="/vendor.js"></script><script src="/runtime.js"></script></body></html>`

const spaJS = `document.getElementById('root').innerHTML =
 '<h1>Join the newsletter</h1><form id="f"><label>Email <input id="email" name="email" type="email"></label><button>Subscribe</button></form>';
document.getElementById('f').addEventListener('submit', function (e) {
  e.preventDefault();
  document.getElementById('root').innerHTML = '<h1>Thanks for subscribing, ' + document.getElementById('email').value + '!</h1>';
});`

// TestRunSPAFormRoutesToBrowser is the routing path end to end with a real
// Chromium: web_fetch reports a JavaScript shell, the model opens the page
// in the browser, snapshots it, types into the form by ref, submits, and
// reads the success page. It runs the binary, beside the other parallel
// tests.
func TestRunSPAFormRoutesToBrowser(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, spaForm)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, spaJS)
		default:
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, "/* nothing */")
		}
	}))
	t.Cleanup(ts.Close)
	emailRef := regexp.MustCompile(`textbox "Email"[^\n]*ref=(e\d+)`)
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("subscribe"), Reply: llmtest.Call("web_fetch", `{"url":"`+ts.URL+`/"}`)},
		llmtest.Rule{When: func(r llmtest.Request) bool {
			return llmtest.AfterCall("web_fetch")(r) && llmtest.LastTool("JavaScript app shell")(r)
		}, Reply: llmtest.Call("browser_open", `{"url":"`+ts.URL+`/"}`)},
		llmtest.Rule{When: llmtest.AfterCall("browser_open"), Reply: llmtest.Call("browser_snapshot", `{}`)},
		llmtest.Rule{When: llmtest.LastTool("Thanks for subscribing"), Reply: llmtest.Text("Subscribed: the page says thanks.")},
		llmtest.Rule{When: llmtest.AfterCall("browser_snapshot"), Do: func(r llmtest.Request) llmtest.Reply {
			m := emailRef.FindStringSubmatch(r.Last().Content)
			if m == nil {
				return llmtest.Text("no email field in: " + r.Last().Content)
			}
			return llmtest.Call("browser_type", `{"ref":"`+m[1]+`","text":"ada@example.com","submit":true}`)
		}},
		llmtest.Rule{When: llmtest.AfterCall("browser_type"), Reply: llmtest.Call("browser_snapshot", `{}`)},
	)
	e := runBinEnv(t, srv)
	tmp := e.tmp
	code, stdout, stderr := e.run(t, "", "run", "--no-mcp", "--json", "subscribe ada@example.com at "+ts.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d, stdout %s, stderr:\n%s", code, stdout, stderr)
	}
	var tr transcript.Transcript
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, e := range tr.Events {
		if e.Type == "tool_call" {
			calls = append(calls, e.Tool)
		}
	}
	// browser_type's result lists what changed on the page ("Thanks for
	// subscribing" among it), so no second snapshot is needed to read it.
	want := []string{"web_fetch", "browser_open", "browser_snapshot", "browser_type"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if tr.Answer != "Subscribed: the page says thanks." {
		t.Errorf("answer = %q; transcript: %+v", tr.Answer, tr.Events)
	}
	if left := testutil.ProcessesWith(tmp); len(left) > 0 {
		t.Errorf("processes left running after run: %v", left)
	}
}

// TestRunSensitivePageRefusesWrite: on a page a rules file marks sensitive,
// a write is refused without a person's approval, even with --yes, and the
// model is told why; reading it is allowed. It runs the binary, beside the
// other parallel tests.
func TestRunSensitivePageRefusesWrite(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	posted := make(chan string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posted <- r.URL.Path
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Test Bank</title><h1>Transfer money</h1>
<form method="post" action="/bank/send"><label>Amount <input name="amount"></label><button>Send</button></form>`)
	}))
	t.Cleanup(ts.Close)
	rules := filepath.Join(t.TempDir(), "sites.yaml")
	if err := os.WriteFile(rules, []byte("version: 1\nrules:\n  - name: test-bank\n    category: bank\n    hosts: [\"127.0.0.1\"]\n    paths: [/bank]\n    action: ask\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	amountRef := regexp.MustCompile(`textbox "Amount"[^\n]*ref=(e\d+)`)
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("send"), Reply: llmtest.Call("browser_open", `{"url":"`+ts.URL+`/bank"}`)},
		llmtest.Rule{When: llmtest.AfterCall("browser_open"), Reply: llmtest.Call("browser_snapshot", `{}`)},
		llmtest.Rule{When: llmtest.AfterCall("browser_snapshot"), Do: func(r llmtest.Request) llmtest.Reply {
			m := amountRef.FindStringSubmatch(r.Last().Content)
			if m == nil {
				return llmtest.Text("no amount field in: " + r.Last().Content)
			}
			return llmtest.Call("browser_type", `{"ref":"`+m[1]+`","text":"1000","submit":true}`)
		}},
		llmtest.Rule{When: llmtest.AfterCall("browser_type"), Do: func(r llmtest.Request) llmtest.Reply {
			return llmtest.Text("Refused: " + r.Last().Content)
		}},
	)
	e := runBinEnv(t, srv)
	code, stdout, stderr := e.run(t, "", "run", "--no-mcp", "--yes", "--sites", rules, "--json", "send 1000 at "+ts.URL+"/bank")
	// Nothing was done: a script must not read that as the task answered.
	if code != exitRunRefused {
		t.Fatalf("exit %d, want %d (refused), stdout %s, stderr:\n%s", code, exitRunRefused, stdout, stderr)
	}
	var tr transcript.Transcript
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Status != "refused" || !strings.HasPrefix(tr.Error, "nothing was changed: the guard refused 1 call") {
		t.Errorf("status %q, error %q; want refused, saying what was refused", tr.Status, tr.Error)
	}
	if want := "browseragent: nothing was changed: the guard refused 1 call (--yes never covers sensitive pages"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	var typed *transcript.Event
	for i, e := range tr.Events {
		if e.Type == "tool_result" && e.Tool == "browser_type" {
			typed = &tr.Events[i]
		}
	}
	if typed == nil || !typed.IsError || !strings.Contains(tr.Answer, "test-bank") {
		t.Errorf("the write was not refused with the rule named; result %+v, answer %q", typed, tr.Answer)
	}
	select {
	case p := <-posted:
		t.Errorf("the form was submitted to %s", p)
	default:
	}
}

// TestRunHelperProcess is not a test: TestMCPCallInterruptCancels runs the
// test binary as browseragent through it, so a real signal can be sent.
func TestRunHelperProcess(t *testing.T) {
	if os.Getenv("BROWSERAGENT_TEST_MAIN") != "1" {
		t.Skip("helper process for TestRunInterrupt")
	}
	os.Exit(Main(strings.Split(os.Getenv("BROWSERAGENT_TEST_ARGS"), "\x1f"), os.Stdin, os.Stdout, os.Stderr))
}

// TestRunInterrupt: Ctrl-C while the model is thinking, with a browser
// open, ends the run with exit code 130 and leaves no browser behind. The
// run is the binary, sent a real signal, beside the other parallel tests.
func TestRunInterrupt(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Slow</title><p>page</p>`)
	}))
	t.Cleanup(ts.Close)
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("open"), Reply: llmtest.Call("browser_open", `{"url":"`+ts.URL+`/"}`)},
		llmtest.Rule{When: llmtest.AfterCall("browser_open"), Reply: llmtest.Reply{Text: "Let me think", Hang: true}},
	)
	e := runBinEnv(t, srv)
	tmp := e.tmp
	cmd := exec.Command(program(t, browseragentPkg), "run", "--no-mcp", "open "+ts.URL+"/")
	cmd.Env = append(os.Environ(), e.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait until the model is "thinking" after the browser opened the page.
	for len(srv.Requests()) < 2 {
		select {
		case err := <-done:
			t.Fatalf("run ended early: %v\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if len(testutil.ProcessesWith(tmp)) == 0 {
		t.Fatal("no browser process found while the run was going: the marker does not work")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("run did not end after Ctrl-C; stderr:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitRunInterrupted || stdout.Len() != 0 {
		t.Errorf("exit %d (want %d), stdout %q, stderr:\n%s", code, exitRunInterrupted, stdout.String(), stderr.String())
	}
	testutil.WaitNoProcessWith(t, tmp)
}

// TestRunProviderBusyThenAnswers: a provider that answers 429 then succeeds;
// the wait is shown on stderr and the run answers.
func TestRunProviderBusyThenAnswers(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Error(429, "0", "rate limited"), Times: 1},
		llmtest.Rule{When: llmtest.Any(), Reply: llmtest.Text("fine now")},
	)
	runEnv(t, srv)
	code, stdout, stderr := runMain("run", "--no-mcp", "hello")
	if code != 0 || stdout != "fine now\n" || !strings.Contains(stderr, "LLM answered 429; retrying") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

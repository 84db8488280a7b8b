package shell

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/media"
	"github.com/browseragent/browseragent/tools"
)

// TestScriptCommandsUseToolPath: every tool-running command reaches the one
// tool-call path by tool name with OriginCommand, and prints the result.
func TestScriptCommandsUseToolPath(t *testing.T) {
	dir := t.TempDir()
	toolList := newFakeTools()
	toolList.handlers["browser_screenshot"] = func(context.Context, json.RawMessage) (*tools.ToolResult, error) {
		return &tools.ToolResult{Text: "screenshot", Images: []media.Image{{MIME: "image/png", Data: []byte("\x89PNG fake")}}}, nil
	}
	toolList.handlers["browser_click"] = func(context.Context, json.RawMessage) (*tools.ToolResult, error) {
		return &tools.ToolResult{Text: "no element e99: take a new /snapshot", Outcome: tools.Failed, Failure: tools.ToolError}, nil
	}
	shot := filepath.Join(dir, "page.png")
	script := strings.Join([]string{
		"/open example.com",
		"/snapshot",
		"/click e99",
		`/type e3 hello "world"`,
		"/tabs",
		"/tab 2",
		"/fetch http://127.0.0.1:1/a --select h1",
		`/call mcp__git__status {"url": "x"}`,
		"/screenshot " + shot,
		"",
	}, "\n")
	stdout, stderr := runScript(t, &Options{Tools: toolList}, script)

	o := tools.OriginCommand
	want := []toolCall{
		{"browser_open", `{"url":"https://example.com"}`, o},
		{"browser_snapshot", `{}`, o},
		{"browser_click", `{"ref":"e99"}`, o},
		{"browser_type", `{"ref":"e3","text":"hello \"world\""}`, o},
		{"browser_tabs", `{}`, o},
		{"browser_select_tab", `{"tab":"t2"}`, o},
		{"web_fetch", `{"select":"h1","url":"http://127.0.0.1:1/a"}`, o},
		{"mcp__git__status", `{"url": "x"}`, o},
		{"browser_screenshot", `{"format":"png"}`, o},
	}
	if diff := cmp.Diff(want, toolList.got()); diff != "" {
		t.Errorf("tool calls (-want +got)\n%s", diff)
	}
	wantOut := strings.Join([]string{
		"browser_open ok", "browser_snapshot ok", "browser_type ok", "browser_tabs ok",
		"browser_select_tab ok", "web_fetch ok", "mcp__git__status ok", "saved " + shot, "",
	}, "\n")
	if diff := cmp.Diff(wantOut, stdout); diff != "" {
		t.Errorf("stdout (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff("error: no element e99: take a new /snapshot\n", stderr); diff != "" {
		t.Errorf("stderr (-want +got)\n%s", diff)
	}
	if b, err := os.ReadFile(shot); err != nil || string(b) != "\x89PNG fake" {
		t.Errorf("screenshot file: %q, %v", b, err)
	}
}

// TestHelpModelNamesDiscovery: /help model says that a local server is
// found without configuration, which ones and where, and how to turn it
// off; and that /provider and /model choose in the shell, --save keeping it.
func TestHelpModelNamesDiscovery(t *testing.T) {
	stdout, _ := runScript(t, &Options{Tools: newFakeTools()}, "/help model\n")
	for _, want := range []string{"looks for a local server", "Ollama (http://127.0.0.1:11434/v1)", "LM Studio (http://127.0.0.1:1234/v1)",
		"vLLM (http://127.0.0.1:8000/v1)", "llama.cpp", "BROWSERAGENT_DISCOVER=0", "--provider NAME", "/provider NAME", "--save", "config.yaml for the next start"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("/help model lacks %q:\n%s", want, stdout)
		}
	}
}

// TestScriptBareAddress: an address typed without a scheme is tried as
// http:// when it names this machine or a port (as a browser's address bar
// does), as https:// otherwise.
func TestScriptBareAddress(t *testing.T) {
	for _, tc := range []struct{ typed, want string }{
		{"localhost:39671/x", "http://localhost:39671/x"},
		{"127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"localhost", "http://localhost"},
		{"app.localhost/login", "http://app.localhost/login"},
		{"[::1]:3000/", "http://[::1]:3000/"},
		{"127.0.0.1/status", "http://127.0.0.1/status"},
		{"intranet.example:8000", "http://intranet.example:8000"},
		{"example.com", "https://example.com"},
		{"example.com:443/a", "https://example.com:443/a"},
		{"example.com/a?q=localhost:1", "https://example.com/a?q=localhost:1"},
		{"http://example.com", "http://example.com"},
	} {
		t.Run(tc.typed, func(t *testing.T) {
			toolList := newFakeTools()
			runScript(t, &Options{Tools: toolList}, "/open "+tc.typed+"\n")
			want := []toolCall{{"browser_open", `{"url":"` + tc.want + `"}`, tools.OriginCommand}}
			if diff := cmp.Diff(want, toolList.got()); diff != "" {
				t.Errorf("/open %s (-want +got)\n%s", tc.typed, diff)
			}
		})
	}
}

// TestScriptRouting: unknown commands never reach the agent or a tool;
// text without an LLM explains how to configure one; /exit stops reading.
func TestScriptRouting(t *testing.T) {
	tests := []struct {
		name       string
		script     string
		wantOut    string
		wantErr    string
		wantCalled int
	}{
		{"unknown command suggests", "/hepl\n", "",
			"error: unknown command /hepl; did you mean /help?\n/help lists the commands; text without a leading / goes to the agent\n", 0},
		{"unknown command with args is still a command", "/snapshto e1 now\n", "",
			"error: unknown command /snapshto; did you mean /snapshot?\n/help lists the commands; text without a leading / goes to the agent\n", 0},
		{"text without LLM", "what is on example.com?\n", "",
			"error: no LLM configured, so text goes nowhere (slash commands work without one)\n" + llmHint + "\n", 0},
		{"blank lines ignored", "\n   \n", "", "", 0},
		{"exit stops reading", "/exit\n/tabs\n", "", "", 0},
		{"quit alias", "/quit\n/tabs\n", "", "", 0},
		{"end of input ends", "/tabs", "browser_tabs ok\n", "", 1},
		{"missing argument", "/open\n", "", "error: /open: missing URL\nusage: /open URL\n", 0},
		{"bad json", "/call web_fetch {url}\n", "",
			"error: /call web_fetch: the arguments are not valid JSON\nusage: /call TOOL {\"name\": \"value\"}; /tools web_fetch shows its parameters\n", 0},
		{"unknown tool", "/call web_fetc {}\n", "",
			"error: no tool \"web_fetc\"; did you mean web_fetch?\n/tools lists them (MCP tools appear once their server is ready: /mcp)\n", 0},
		{"no mcp", "/mcp\n", "", "error: MCP is off in this session\n" + errNoMCP().hint + "\n", 0},
		{"help for one command", "/help fetch\n",
			"/fetch URL [--select CSS]\n  fetch a page over HTTP as markdown (web_fetch)\n\nflags:\n  --select CSS  only the parts matching a CSS selector\n", "", 0},
		{"help with slash and sub-commands", "/help /trust\n",
			"/trust [reset]\n  list \"always allow\" grants; reset drops them all\n\nsub-commands:\n  /trust reset  drop every grant\n", "", 0},
		{"help model", "/help model\n", modelHelp() + "\n", "", 0},
		{"help unknown", "/help nope\n", "", "error: unknown command /nope; did you mean /mode or /open?\n/help lists the commands; text without a leading / goes to the agent\n", 0},
		{"cancel with nothing running", "/cancel\n", "nothing is running\npress Ctrl-C while a turn or command runs to cancel it\n", "", 0},
		{"clear without LLM", "/clear\n", "nothing to clear: there is no agent in this session, so no conversation\n/help model says how to configure an LLM\n", "", 0},
		{"tools filter", "/tools fetch\n", "web_fetch  the web_fetch tool\n1 tool\n", "", 0},
		{"tools exact shows params", "/tools web_fetch\n",
			"web_fetch  the web_fetch tool\n    url string (required)  where\n1 tool\n", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toolList := newFakeTools()
			out, errs, failed := runScriptResult(t, &Options{Tools: toolList}, tt.script)
			if diff := cmp.Diff(tt.wantOut, out); diff != "" {
				t.Errorf("stdout (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErr, errs); diff != "" {
				t.Errorf("stderr (-want +got)\n%s", diff)
			}
			// Every script here is one command: it failed exactly when it
			// printed an error.
			if want := strings.Count(tt.wantErr, "error: "); failed != want {
				t.Errorf("%d commands failed, want %d", failed, want)
			}
			if got := len(toolList.got()); got != tt.wantCalled {
				t.Errorf("%d tool calls, want %d", got, tt.wantCalled)
			}
		})
	}
}

// TestScriptAgentTurn drives a real agent.Agent against the scripted LLM
// server: plain text goes to the model, its tool call comes back through
// the same tool path (OriginAgent), and the streamed answer is printed.
func TestScriptAgentTurn(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("title"), Reply: llmtest.Call("web_fetch", `{"url":"http://127.0.0.1:1/"}`)},
		llmtest.Rule{When: llmtest.LastTool("Example Domain"), Reply: llmtest.Text("The title is Example Domain.")},
	)
	toolList := newFakeTools()
	toolList.handlers["web_fetch"] = func(context.Context, json.RawMessage) (*tools.ToolResult, error) {
		return &tools.ToolResult{Text: "# Example Domain"}, nil
	}
	srv.SetModels(llmtest.Model{ID: "test-model"}, llmtest.Model{ID: "other-model", Capabilities: []string{"tools"}})
	set := agent.ResolveSettings(agent.Overrides{BaseURL: srv.URL, Model: "test-model"}, func(string) string { return "" }, nil)
	a, err := agent.New(set, toolList, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Tools: toolList, Agent: a}
	stdout, stderr := scriptIO(opts, "/hepl\nwhat is the title of the page?\n/model\n/model other-model\n/clear\n")
	sh := New(opts)
	if diff := cmp.Diff([]suggestion{{"other-model", "model, calls tools"}}, sh.suggest("/model ot"), cmp.AllowUnexported(suggestion{})); diff != "" {
		t.Errorf("completion of /model ot (-want +got):\n%s", diff)
	}
	failures(t, sh.Run(context.Background()))
	out, errs := stdout.String(), stderr.String()
	want := "→ web_fetch {\"url\":\"http://127.0.0.1:1/\"}\n" +
		"← web_fetch: 16 chars\n" +
		"The title is Example Domain.\n" +
		"test-model (" + srv.URL + ")\n" +
		"* test-model\n" +
		"  other-model  (tools)\n" +
		"/model NAME switches; /model NAME --save also keeps it in config.yaml\n" +
		"model: other-model\n" +
		"conversation cleared\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("stdout (-want +got)\n%s", diff)
	}
	if !strings.HasPrefix(errs, "error: unknown command /hepl") {
		t.Errorf("stderr = %q", errs)
	}
	if got := a.Settings().Model; got != "other-model" {
		t.Errorf("model = %q after /model other-model", got)
	}
	if got := len(srv.Requests()); got != 2 {
		t.Errorf("%d LLM requests, want 2 (the unknown command must not reach the LLM)", got)
	}
	if calls := toolList.got(); len(calls) != 1 || calls[0].Origin != tools.OriginAgent {
		t.Errorf("tool calls = %+v, want one web_fetch from the agent", calls)
	}
}

// TestScriptApproval: the approval box reads the script's next line; a
// line that is not one of the answers offered declines (a sensitive page
// offers no standing grants, so t there is no answer).
func TestScriptApproval(t *testing.T) {
	tests := []struct {
		name      string
		sensitive bool
		yes       bool
		answers   string
		want      tools.Answer
		wantAsked int
	}{
		{"yes flag approves ordinary pages", false, true, "", tools.AnswerOnce, 0},
		{"yes flag still asks on sensitive pages", true, true, "n\n", tools.AnswerDeny, 1},
		{"yes once", false, false, "y\n", tools.AnswerOnce, 1},
		{"tool always", false, false, "t\n", tools.AnswerTool, 1},
		{"server always", false, false, "s\n", tools.AnswerServer, 1},
		{"no", false, false, "n\n", tools.AnswerDeny, 1},
		{"nonsense is no answer", false, false, "maybe\nt\n", tools.AnswerNone, 1},
		{"sensitive: t is no answer", true, false, "t\nyes\n", tools.AnswerNone, 1},
		{"sensitive yes", true, false, "yes\n", tools.AnswerOnce, 1},
		{"end of input is no answer", false, false, "", tools.AnswerNone, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toolList := newFakeTools()
			hooks := &Hooks{}
			var got tools.Answer
			toolList.handlers["browser_click"] = func(ctx context.Context, _ json.RawMessage) (*tools.ToolResult, error) {
				a, err := hooks.Approve(ctx, tools.ApprovalRequest{Tool: "browser_click", PageURL: "https://bank.test/pay",
					Rule: "banking", Sensitive: tt.sensitive, Args: `ref=e4`, Reason: "a write on a page you did not open"})
				got = a
				if err != nil {
					return &tools.ToolResult{Text: "not approved", Outcome: tools.Failed, Failure: tools.ToolError}, nil
				}
				return &tools.ToolResult{Text: "clicked: " + a.String()}, nil
			}
			opts := &Options{Tools: toolList, Yes: tt.yes, Hooks: hooks}
			out, errb := scriptIO(opts, "/click e4\n"+tt.answers)
			failures(t, New(opts).Run(context.Background()))
			if got != tt.want {
				t.Errorf("answer = %v, want %v", got, tt.want)
			}
			if n := strings.Count(out.String(), "approve? "); n != tt.wantAsked {
				t.Errorf("asked %d times, want %d\n%s", n, tt.wantAsked, out.String())
			}
			if tt.wantAsked == 0 {
				return
			}
			for _, line := range []string{"│ page    https://bank.test/pay", "│ args    ref=e4"} {
				if !strings.Contains(out.String(), line) {
					t.Errorf("box lacks %q:\n%s", line, out.String())
				}
			}
			unanswered := strings.Contains(errb.String(), "no answer on the next line: not approved\n")
			if want := tt.want == tools.AnswerNone && tt.answers != ""; unanswered != want {
				t.Errorf("said no answer: %v, want %v; stderr:\n%s", unanswered, want, errb.String())
			}
		})
	}
}

// TestScriptInterrupt: SIGINT cancels the running command and the script
// goes on; with nothing running it ends the script.
func TestScriptInterrupt(t *testing.T) {
	toolList := newFakeTools()
	started := make(chan struct{})
	toolList.handlers["browser_snapshot"] = func(ctx context.Context, _ json.RawMessage) (*tools.ToolResult, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	pr, pw := io.Pipe()
	var out, errb syncBuffer
	sh := New(&Options{Tools: toolList, Stdin: pr, Stdout: &out, Stderr: &errb, HistoryFile: "-"})
	res := make(chan error, 1)
	go func() { res <- sh.Run(context.Background()) }()
	io.WriteString(pw, "/snapshot\n")
	<-started
	sh.interrupt() // what the SIGINT handler calls
	io.WriteString(pw, "/tabs\n")
	for !strings.Contains(out.String()+errb.String(), "browser_tabs ok") {
		time.Sleep(10 * time.Millisecond)
	}
	sh.interrupt()
	if diff := cmp.Diff(&scriptError{Failed: 1, Ran: 2}, <-res); diff != "" {
		t.Errorf("Run: the cancelled command failed (-want +got)\n%s", diff)
	}
	pw.Close()
	if diff := cmp.Diff("cancelled\nbrowser_tabs ok\n", out.String()); diff != "" {
		t.Errorf("stdout (-want +got)\n%s", diff)
	}
}

// TestScriptApprovalKeepsCommands: in a script the line after a question
// is its answer only when it is one; otherwise the call is declined and
// that line, and every one after it, still runs as a command (QA: an
// unanswered /click swallowed the 18 lines after it).
func TestScriptApprovalKeepsCommands(t *testing.T) {
	var rest []string
	var wantRest []toolCall
	for i := range 18 {
		name := []string{"tabs", "snapshot"}[i%2]
		rest = append(rest, "/"+name)
		wantRest = append(wantRest, toolCall{"browser_" + name, "{}", tools.OriginCommand})
	}
	click := toolCall{"browser_click", `{"ref":"e1"}`, tools.OriginCommand}
	tests := []struct {
		name       string
		asks       int // questions the click asks (an agent turn may ask several)
		script     string
		wantAnswer []tools.Answer
		wantOut    string // where the question's line ends
		wantFailed int
	}{
		{"answered y", 1, "/click e1\ny\n" + strings.Join(rest, "\n"), []tools.Answer{tools.AnswerOnce},
			"approve? [y/t/s/n] y\nclicked\nbrowser_tabs ok\n", 0},
		{"no answer", 1, "/click e1\n" + strings.Join(rest, "\n"), []tools.Answer{tools.AnswerNone},
			"approve? [y/t/s/n] \nbrowser_tabs ok\n", 1},
		{"no answer to two questions", 2, "/click e1\n" + strings.Join(rest, "\n"), []tools.Answer{tools.AnswerNone, tools.AnswerNone},
			"approve? [y/t/s/n] \nbrowser_tabs ok\n", 1},
		{"blank line is no answer", 1, "/click e1\n\n" + strings.Join(rest, "\n"), []tools.Answer{tools.AnswerNone},
			"approve? [y/t/s/n] \nbrowser_tabs ok\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toolList := newFakeTools()
			hooks := &Hooks{}
			var answers []tools.Answer
			toolList.handlers["browser_click"] = func(ctx context.Context, _ json.RawMessage) (*tools.ToolResult, error) {
				for range tt.asks {
					a, err := hooks.Approve(ctx, tools.ApprovalRequest{Tool: "browser_click", PageURL: "https://shop.test/", Args: "ref=e1"})
					if err != nil {
						return nil, err
					}
					answers = append(answers, a)
				}
				if slices.Contains(answers, tools.AnswerNone) { // as the registry says it
					return &tools.ToolResult{Text: "Nobody answered the approval question.", Outcome: tools.Failed, Failure: tools.ToolError}, nil
				}
				return &tools.ToolResult{Text: "clicked"}, nil
			}
			out, errs, failed := runScriptResult(t, &Options{Tools: toolList, Hooks: hooks}, tt.script)
			if diff := cmp.Diff(append([]toolCall{click}, wantRest...), toolList.got()); diff != "" {
				t.Errorf("tool calls (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAnswer, answers); diff != "" {
				t.Errorf("answers (-want +got)\n%s", diff)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantOut, out)
			}
			if got := strings.Count(out, " ok\n"); got != 18 {
				t.Errorf("%d command results in stdout, want 18:\n%s", got, out)
			}
			wantErr := ""
			if tt.wantFailed > 0 {
				wantErr = strings.Repeat("no answer on the next line: not approved\n", tt.asks) + "error: Nobody answered the approval question.\n"
			}
			if diff := cmp.Diff(wantErr, errs); diff != "" {
				t.Errorf("stderr (-want +got)\n%s", diff)
			}
			if failed != tt.wantFailed {
				t.Errorf("%d commands failed, want %d", failed, tt.wantFailed)
			}
		})
	}
}

// TestScriptResult: off a terminal Run runs the whole script and returns a
// *scriptError counting the commands that failed (unknown, error result,
// refused, text without an LLM); blank lines are not commands.
func TestScriptResult(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   error
	}{
		{"all ran", "/tabs\n\n/help fetch\n/clear\n", nil},
		{"unknown command", "/tabs\n/nope\n/tabs\n", &scriptError{Failed: 1, Ran: 3}},
		{"error result and text without LLM", "/click e99\nhello\n/tabs\n", &scriptError{Failed: 2, Ran: 3}},
		{"refused call", "/open https://bank.test/\n", &scriptError{Failed: 1, Ran: 1}},
		{"exit stops counting", "/nope\n/exit\n/nope\n", &scriptError{Failed: 1, Ran: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toolList := newFakeTools()
			toolList.handlers["browser_click"] = func(context.Context, json.RawMessage) (*tools.ToolResult, error) {
				return &tools.ToolResult{Text: "no element e99: take a new /snapshot", Outcome: tools.Failed, Failure: tools.ToolError}, nil
			}
			toolList.handlers["browser_open"] = func(context.Context, json.RawMessage) (*tools.ToolResult, error) {
				return &tools.ToolResult{Text: "bank.test is a sensitive site: denied", Outcome: tools.Failed, Failure: tools.ToolError}, nil
			}
			opts := &Options{Tools: toolList, HistoryFile: "-", Stdin: strings.NewReader(tt.script), Stdout: io.Discard, Stderr: io.Discard}
			err := New(opts).Run(context.Background())
			if diff := cmp.Diff(tt.want, err); diff != "" {
				t.Errorf("Run (-want +got)\n%s", diff)
			}
		})
	}
	if got := (&scriptError{Failed: 2, Ran: 14}).Error(); got != "2 of 14 commands failed" {
		t.Errorf("message = %q", got)
	}
}

// TestNoMCPNamesConfigPath: /mcp in a --no-mcp session names the config
// file where it really is (XDG_CONFIG_HOME is honoured).
func TestNoMCPNamesConfigPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	_, errs := runScript(t, &Options{Tools: newFakeTools()}, "/mcp\n")
	want := "error: MCP is off in this session\nstart browseragent without --no-mcp; servers come from " +
		filepath.Join(dir, "browseragent", "mcp.json") + " and .mcp.json\n"
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("stderr (-want +got)\n%s", diff)
	}
}

// TestHelpColumns: /help aligns the descriptions of sub-commands and of
// flags in one column each.
func TestHelpColumns(t *testing.T) {
	for _, tt := range []struct{ cmd, section string }{{"mcp", "sub-commands:\n"}, {"connect", "flags:\n"}} {
		out, _ := runScript(t, &Options{Tools: newFakeTools()}, "/help "+tt.cmd+"\n")
		_, body, ok := strings.Cut(out, tt.section)
		if !ok {
			t.Fatalf("/help %s has no %q:\n%s", tt.cmd, tt.section, out)
		}
		body, _, _ = strings.Cut(body, "\n\n")
		cols := map[int]bool{}
		for _, line := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
			name := strings.Index(line, "  /") + strings.Index(line, "  --") + 1 // one of them is -1
			gap := strings.Index(line[name+3:], "  ")
			if name < 0 || gap < 0 {
				t.Fatalf("/help %s: %q is not a row", tt.cmd, line)
			}
			desc := name + 3 + gap + len(line[name+3+gap:]) - len(strings.TrimLeft(line[name+3+gap:], " "))
			cols[desc] = true
		}
		if len(cols) != 1 {
			t.Errorf("/help %s: descriptions start at columns %v, want one:\n%s", tt.cmd, cols, body)
		}
	}
}

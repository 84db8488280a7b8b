package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/agent/transcript"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/session"
)

type runFlags struct {
	model, provider, baseURL string
	maxSteps                 int
	json, yes, noMCP, headed bool
	keepTabs                 bool
	connect                  connectFlags
	trustProject             bool
	sites, mcpConfig         string
	mcpWait, timeout         time.Duration
	host                     hostFlags // --elicit, --allow-sampling, --root (mcp_extra.go)
}

func newRunCmd(s *streams) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   `run "TASK"`,
		Short: "Do one task with the agent, non-interactively: the answer on stdout",
		Long: `Run one task with the LLM agent and exit. The final answer goes to stdout;
progress, tool calls and notices go to stderr. With --json, stdout gets one
JSON document: the answer, the status and every tool call. A task of "-" is
read from stdin.

Tool calls that need approval are refused unless --yes is given; --yes never
covers sensitive pages (banks, mail, payments…), which always need a person.

The LLM comes from --provider/--base-url/--model, then OPENAI_API_KEY,
OPENAI_BASE_URL and BROWSERAGENT_MODEL, then
$XDG_CONFIG_HOME/browseragent/config.yaml.

With --connect (or --user-data-dir, --browser-url, --ws-endpoint) the agent
works in your running Chrome, with its logins (shared mode: every write asks,
so a script needs --yes for writes on ordinary pages). The tabs it opened
there are closed at the end; --keep-tabs leaves them.

Exit codes: 0 answered; 1 failed; 2 bad usage; 3 step limit reached without
an answer; 4 no LLM configured; 5 refused: the guard refused a call and the
task changed nothing (status "refused" in --json); 130 interrupted.`,
		Example: `  OPENAI_API_KEY=sk-... browseragent run "what is the title of https://example.com/"
  OPENAI_BASE_URL=http://127.0.0.1:11434/v1 BROWSERAGENT_MODEL=qwen3 browseragent run --no-mcp "summarise https://go.dev/blog"
  browseragent run --json --max-steps 10 "find the price on http://127.0.0.1:8080/shop" > result.json
  echo "list the links on https://example.com/" | browseragent run -
  browseragent run --connect "what is on my GitHub notifications page?"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return exitCode(exitRunUsage, `run needs one task in quotes, e.g. browseragent run "what is the title of https://example.com/"`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTask(cmd.Context(), s, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.model, "model", "m", "", "model name (default: BROWSERAGENT_MODEL, then config.yaml)")
	fl.StringVar(&f.provider, "provider", "", "provider from config.yaml or built in: "+strings.Join(agent.ProviderNames(), ", "))
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (default: OPENAI_BASE_URL)")
	fl.IntVar(&f.maxSteps, "max-steps", 0, fmt.Sprintf("stop after this many model requests (default %d)", agent.DefaultMaxSteps))
	fl.BoolVar(&f.json, "json", false, "print a JSON transcript on stdout instead of the answer")
	fl.BoolVarP(&f.yes, "yes", "y", false, "approve tool calls that need approval, except on sensitive pages")
	fl.BoolVar(&f.noMCP, "no-mcp", false, "start no MCP server (web_fetch and the native browser tools only)")
	fl.BoolVar(&f.trustProject, "trust-project", false, "start the servers of the working directory's .mcp.json even if you have not trusted it (this run only; see 'mcp trust')")
	fl.BoolVar(&f.headed, "headed", false, "show the isolated browser window")
	fl.StringVar(&f.sites, "sites", "", "extra sensitive-sites rules file, layered over the defaults")
	fl.StringVar(&f.mcpConfig, "mcp-config", "", "extra MCP config file, merged over the user and project files")
	fl.DurationVar(&f.mcpWait, "mcp-wait", 0, "wait up to this long for every MCP server to start before the first step (default: start at once; servers join as they become ready, and a server the task names is waited for)")
	fl.DurationVar(&f.timeout, "timeout", 0, "give up on the task after this long (default: no limit)")
	f.connect.addFlags(fl)
	fl.BoolVar(&f.keepTabs, "keep-tabs", false, "with --connect: leave the tabs the agent opened in your Chrome open at the end")
	f.host.add(fl, s, false)
	f.host.llm = func() (agent.Settings, error) {
		return agent.LoadSettings(agent.Overrides{Provider: f.provider, BaseURL: f.baseURL, Model: f.model})
	}
	return cmd
}

func runTask(ctx context.Context, s *streams, f *runFlags, task string) error {
	if f.maxSteps < 0 || f.timeout < 0 {
		return exitCode(exitRunUsage, "--max-steps and --timeout must not be negative")
	}
	if task == "-" {
		b, err := io.ReadAll(io.LimitReader(s.in, 1<<20))
		if err != nil {
			return fmt.Errorf("read the task from stdin: %w", err)
		}
		if task = strings.TrimSpace(string(b)); task == "" {
			return exitCode(exitRunUsage, "the task on stdin is empty")
		}
	}
	settings, err := agent.LoadSettings(agent.Overrides{Provider: f.provider, BaseURL: f.baseURL, Model: f.model, MaxSteps: f.maxSteps})
	if err != nil {
		return err
	}
	if !settings.Enabled() {
		return exitCode(exitRunNoLLM, settings.Why())
	}
	if settings.Note != "" {
		fmt.Fprintf(s.err, "browseragent: %s\n", textutil.VisibleLine(settings.Note))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}

	sess, err := openRunSession(ctx, s, f, task)
	if err != nil {
		return exitCode(exitFailed, words.ForScript(textutil.FirstLine(words.Error(err), 0)))
	}
	defer func() {
		if err := sess.Close(); err != nil {
			fmt.Fprintf(s.err, "browseragent: closing: %v\n", err)
		}
	}()
	ag, err := agent.New(settings, sess.Registry, &agent.Options{SystemExtra: sess.Facts()})
	if err != nil {
		return exitCode(exitRunNoLLM, err.Error())
	}
	p := transcript.New(s.err, termWidth(), &transcript.Transcript{Task: task, Model: settings.Model, BaseURL: settings.BaseURL}, sess.Registry.Tools)
	answer, err := ag.Turn(ctx, task, p)
	if err == nil && strings.TrimSpace(answer) == "" {
		err = errors.New("the model gave an empty answer")
	}
	return finishRun(s, f, p, ag, answer, err)
}

// openRunSession opens the session the agent calls tools through. The
// first step does not wait for the MCP servers: their tools join the
// list, which is rebuilt per step, as each becomes ready. Only a server
// the task names (@name, or its name as a word) is waited for, and with
// --mcp-wait every server, up to that long.
func openRunSession(ctx context.Context, s *streams, f *runFlags, task string) (*session.Session, error) {
	notice := func(msg string) { fmt.Fprintf(s.err, "browseragent: %s\n", msg) }
	failed := &mcpFailures{notice: notice}
	// The servers nobody waits for start at a lower CPU priority, so
	// their start does not slow the task.
	background := func(name string) bool { return f.mcpWait == 0 && !mcpclient.Mentions(task, name) }
	sess, err := openSession(ctx, sessionConfig{sitesFile: f.sites, mcpConfig: f.mcpConfig, noMCP: f.noMCP, yes: f.yes, headed: f.headed, mcpHost: f.host.apply, warn: s.err, notice: notice, keepTabs: f.keepTabs, gate: projectGate(s.err, f.trustProject, nil), onMCP: failed.event, background: background})
	if err != nil {
		return nil, err
	}
	if f.connect.on() {
		if _, err := sess.Connect(ctx, f.connect.target()); err != nil {
			sess.Close()
			return nil, fmt.Errorf("--connect: %w", err)
		}
	}
	if sess.MCP == nil {
		return sess, nil
	}
	if f.mcpWait > 0 {
		wctx, cancel := context.WithTimeout(ctx, f.mcpWait)
		_ = sess.MCP.WaitAll(wctx) // a slow or failed server is reported, not fatal
		cancel()
	}
	for _, name := range sess.MCP.Mentioned(task) {
		// Bounded by the server's own start timeout (it fails then) and
		// by --mcp-wait when given.
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if f.mcpWait > 0 {
			wctx, cancel = context.WithTimeout(ctx, f.mcpWait)
		}
		_ = sess.MCP.WaitReady(wctx, name)
		cancel()
	}
	for _, st := range sess.MCP.Status() {
		failed.report(st.Name, st.State, st.Err)
	}
	return sess, nil
}

// mcpFailures tells the person, once per server, that an MCP server
// failed and the task goes on without it: at the first step for those it
// waited for, as it happens for those still starting.
type mcpFailures struct {
	notice func(string)
	mu     sync.Mutex
	told   map[string]bool
}

func (m *mcpFailures) event(ev mcpclient.Event) {
	if ev.Kind == mcpclient.EventState {
		m.report(ev.Server, ev.State, ev.Err)
	}
}

func (m *mcpFailures) report(name string, st mcpclient.ServerState, err error) {
	if st != mcpclient.StateError || err == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.told[name] {
		return
	}
	if m.told == nil {
		m.told = map[string]bool{}
	}
	m.told[name] = true
	m.notice(fmt.Sprintf("mcp %s: %s: %s (continuing without it)", textutil.VisibleLine(name), st, textutil.VisibleLine(words.Error(err))))
}

func finishRun(s *streams, f *runFlags, p *transcript.Printer, ag *agent.Agent, answer string, err error) error {
	tr := p.Transcript()
	tr.Answer = answer
	tr.ToolDefBytes = ag.Stats().ToolDefBytes
	tr.Requests = ag.Stats().Requests
	code := 0
	switch {
	case err == nil && (p.Refused() == 0 || p.Changed() > 0):
		tr.Status = "answered"
	case err == nil:
		// The model answered, but only to say what it could not do: a
		// script must not take that for the task done.
		tr.Status, code = "refused", exitRunRefused
		err = fmt.Errorf("nothing was changed: the guard refused %s (%s)", plural(p.Refused(), "call"), refusedHint(f))
	case errors.Is(err, context.DeadlineExceeded):
		tr.Status, code = "timeout", 1
		err = fmt.Errorf("gave up after --timeout %s", f.timeout)
	case errors.Is(err, context.Canceled):
		tr.Status, code = "interrupted", exitRunInterrupted
	case errors.Is(err, agent.ErrStepLimit):
		tr.Status, code = "step_limit", exitRunStepLimit
		err = fmt.Errorf("%w: raise --max-steps (it was %d), or split the task", err, ag.Settings().MaxSteps)
	default:
		tr.Status, code = "error", 1
	}
	if err != nil {
		tr.Error = err.Error()
	}
	if f.json {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if werr := enc.Encode(tr); werr != nil {
			return werr
		}
	} else if strings.TrimSpace(answer) != "" && (err == nil || tr.Status == "refused") {
		fmt.Fprintln(s.out, textutil.ForTerminal(s.out, strings.TrimSpace(answer))) // a refusal's answer says what was not done
	}
	if code == 0 {
		return nil
	}
	msg := words.ForScript(tr.Error)
	if code == exitRunInterrupted {
		msg = "interrupted"
	}
	return exitCode(code, msg)
}

// refusedHint says what lets a refused call run next time.
func refusedHint(f *runFlags) string {
	if f.yes {
		return "--yes never covers sensitive pages or deny rules: do that step yourself, or in the shell with a person to approve it"
	}
	return "nobody was there to approve it: --yes approves writes on ordinary pages; sensitive pages need the shell, with a person"
}

// plural is "1 call" or "3 calls".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// termWidth is the width progress lines wrap at: $COLUMNS, else 100.
func termWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 {
		return n
	}
	return 100
}

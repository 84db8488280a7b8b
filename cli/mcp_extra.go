package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/shell"
)

// hostFlags decide, for runs without a person, what MCP servers may ask of
// browseragent: --elicit, --allow-sampling and --root.
type hostFlags struct {
	elicit        elicitFlag
	allowSampling bool
	roots         rootsFlag
	// llm loads the LLM settings for sampling; nil loads the defaults.
	llm func() (agent.Settings, error)
	err io.Writer
	// progress is the progress line on stderr (mcp call, on a terminal).
	progress *progressLine
}

// elicitFlag is --elicit accept|decline, checked when parsed.
type elicitFlag string

func (e *elicitFlag) String() string { return string(*e) }
func (e *elicitFlag) Type() string   { return "accept|decline" }
func (e *elicitFlag) Set(v string) error {
	if v != "accept" && v != "decline" {
		return fmt.Errorf("want accept or decline, not %q", v)
	}
	*e = elicitFlag(v)
	return nil
}

// rootsFlag is --root DIR (repeatable); each must be a directory.
type rootsFlag []string

func (r *rootsFlag) String() string { return strings.Join(*r, ",") }
func (r *rootsFlag) Type() string   { return "DIR" }
func (r *rootsFlag) Set(v string) error {
	if _, err := mcpclient.RootsFor([]string{v}); err != nil {
		return err
	}
	*r = append(*r, v)
	return nil
}

// add registers --elicit, --allow-sampling and --root; progress shows
// tool-call progress on stderr when it is a terminal.
func (h *hostFlags) add(fl *pflag.FlagSet, s *streams, progress bool) {
	h.err = s.err
	h.elicit = "decline"
	if progress {
		h.progress = newProgressLine(s.err)
	}
	fl.Var(&h.elicit, "elicit", "answer MCP elicitation requests without a person: accept (fill in the form's defaults) or decline")
	fl.BoolVar(&h.allowSampling, "allow-sampling", false, "let MCP servers ask the configured LLM (sampling) without a person")
	h.addRoots(fl)
}

func (h *hostFlags) addRoots(fl *pflag.FlagSet) {
	fl.Var(&h.roots, "root", "directory offered to MCP servers as a file:// root, besides the working directory (repeatable)")
}

// rootDirs are the working directory and --root (checked when parsed).
func (h *hostFlags) rootDirs() []string {
	var dirs []string
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	return append(dirs, h.roots...)
}

// apply sets the non-interactive hooks: elicitation by --elicit, sampling
// only with --allow-sampling, browseragent's notes about servers on stderr.
func (h *hostFlags) apply(o *mcpclient.Options) {
	o.Roots = h.rootDirs()
	o.Elicit = mcpclient.AutoElicit(h.elicit == "accept")
	o.Sample = h.sample
	o.OnLog = func(l mcpclient.LogMessage) {
		if l.Logger == mcpclient.HostLogger && h.err != nil {
			h.progress.clear()
			fmt.Fprintf(h.err, "browseragent: mcp %s: %s\n", l.Server, l.Text)
		}
	}
	if h.progress != nil {
		o.OnProgress = h.progress.show
	}
}

// shellHost sets the shell's interactive hooks (forms, sampling approval,
// progress in the spinner) and the roots; the LLM for sampling is loaded
// when a server asks.
func shellHost(hooks *shell.Hooks, h *hostFlags, model string) func(*mcpclient.Options) {
	return func(o *mcpclient.Options) {
		o.Roots = h.rootDirs()
		// A remote server that needs a login gets one from the shell: the
		// browser opens, and the URL is printed for a headless machine.
		o.OAuth = &mcpclient.OAuthOptions{Interactive: true, OnPrompt: func(p mcpclient.AuthPrompt) {
			msg := fmt.Sprintf("mcp %s: log in at %s", textutil.VisibleLine(p.Server), textutil.VisibleLine(p.URL))
			if p.OpenErr != nil {
				msg += fmt.Sprintf(" (could not open a browser: %v)", p.OpenErr)
			}
			hooks.Notice(msg)
		}}
		hooks.HostOptions(o, func() agent.Settings {
			st, err := agent.LoadSettings(agent.Overrides{Model: model})
			if err != nil {
				return agent.Settings{}
			}
			return st
		})
	}
}

func (h *hostFlags) sample(ctx context.Context, r *mcpclient.SampleRequest) (*mcp.CreateMessageResult, error) {
	if !h.allowSampling {
		return nil, fmt.Errorf("%w: non-interactive run (use --allow-sampling to let the LLM answer)", mcpclient.ErrDeclined)
	}
	load := h.llm
	if load == nil {
		load = func() (agent.Settings, error) { return agent.LoadSettings(agent.Overrides{}) }
	}
	st, err := load()
	if err != nil {
		return nil, err
	}
	return agent.Sample(ctx, st, r.Params)
}

// progressLine shows the last progress of a call on one line of a
// terminal; elsewhere it prints nothing.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
}

// newProgressLine returns a progress line on w when w is a terminal.
func newProgressLine(w io.Writer) *progressLine {
	if !isTerminal(w) {
		return nil
	}
	return &progressLine{w: w}
}

func (p *progressLine) show(pr mcpclient.Progress) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\x1b[2Kmcp %s: %s", pr.Server, pr.String())
	p.shown = true
}

// clear erases the line, before other output and when the call ends.
func (p *progressLine) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		io.WriteString(p.w, "\r\x1b[2K")
		p.shown = false
	}
}

// newMCPLogLevelCmd is `mcp log-level NAME LEVEL`: start the server, set
// its level, wait --wait for messages, print its log (stderr lines and
// log messages).
func newMCPLogLevelCmd(s *streams, f *mcpFlags) *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "log-level NAME LEVEL",
		Short: "Set a server's log level (logging/setLevel), wait --wait, and print its log",
		Long: `Ask an MCP server to send log messages at LEVEL and above (one of
` + strings.Join(mcpclient.LogLevels, ", ") + `), then print its log: stderr
lines and "[log LEVEL] ..." messages together, as 'mcp logs' does. A fresh
server is started for the command, so use --wait to collect messages; in
the shell, /mcp log-level NAME LEVEL keeps the level for the session.`,
		Example: `  browseragent mcp log-level everything debug --wait 6s`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServer(cmd, s, f, args, 1, func(ctx context.Context, m *mcpclient.Manager, name string, rest []string) error {
				if err := m.SetLogLevel(ctx, name, rest[0]); err != nil {
					return err
				}
				select {
				case <-time.After(wait):
				case <-ctx.Done():
				}
				lines, err := m.Logs(name)
				for _, l := range lines {
					fmt.Fprintln(s.out, textutil.VisibleLine(l)) // the server wrote it
				}
				return err
			})
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", 0, "how long to collect log messages before printing")
	return cmd
}

// promptInputs asks at the terminal for a VS Code "inputs" value the first
// time a config file uses ${input:ID}; a password is read without echo.
// Off a terminal nothing is asked and such a server says what it needs.
func promptInputs(s *streams) {
	if !interactive(s) {
		return
	}
	mcpclient.PromptInput = func(file, id, description string, password bool) (string, error) {
		fmt.Fprintf(s.out, "%s asks for %q (%s): ", file, id, description)
		if in, ok := s.in.(*os.File); ok && password {
			b, err := term.ReadPassword(int(in.Fd()))
			fmt.Fprintln(s.out)
			return string(b), err
		}
		line, err := readRawLine(s.in)
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		return strings.TrimSpace(line), nil
	}
}

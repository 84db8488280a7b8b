package shell

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	prompt "github.com/c-bata/go-prompt"
	"golang.org/x/term"
)

// runTTY is the terminal path: go-prompt reads each line, the shell runs it.
// go-prompt's Run is not used: it exits the process on Ctrl-C and SIGTERM and
// owns the signal handlers. Input reads one line and returns, so the shell
// keeps the loop, the signals and the terminal state.
func (s *Shell) runTTY(ctx context.Context, fd int) (err error) {
	orig, err := term.GetState(fd)
	if err != nil {
		return fmt.Errorf("shell: read terminal state: %w", err)
	}
	s.tty = newTTYParser(fd, orig, s.opts.Stdout, s.pastes)
	s.p = newPrinter(s.opts.Stdout, s.opts.Stderr, true)
	s.p.inject = func() bool { return s.tty.inject(redrawKey) }
	// Deferred calls run while a panic unwinds too: the terminal is put
	// back before Main's recover prints the message.
	defer s.tty.restore()

	stopSig := s.watchSignals(ctx)
	defer stopSig()
	stopTerm := s.watchTermination(ctx)
	defer stopTerm()
	go s.pumpEvents(ctx)

	hist := s.openHistory()
	pr, err := s.newPrompt(hist.lines)
	if err != nil {
		return err
	}
	s.p.Status(s.statusLine())
	s.greet()
	s.hooks.open(ctx)
	s.startup(ctx)
	for !s.isExiting() {
		s.p.setPromptActive(true)
		line := pr.Input()
		s.p.setPromptActive(false)
		s.tty.restore()
		if s.isExiting() {
			break
		}
		if line == "" && s.tty.sawEOF() {
			break
		}
		line = s.pastes.expand(line)
		if s.tty.takeInterrupt() {
			hist.add(line, typesText(line))
			s.p.Hint("cancelled")
			continue
		}
		if isClearLine(line) {
			// `clear` is what a person types at any prompt to wipe the
			// screen; it is no task for the agent.
			hist.add(line, false)
			s.p.clearScreen(true)
			continue
		}
		// Recorded after it ran: only then is it known whether the line
		// typed into a password field.
		lctx, mark := withLineMark(ctx)
		s.execute(lctx, line)
		hist.add(line, mark.typedSecret(line))
	}
	return nil
}

// isClearLine reports whether line is the `clear` (or `cls`) a person
// types to wipe the screen.
func isClearLine(line string) bool {
	w := strings.ToLower(strings.TrimSpace(line))
	return w == "clear" || w == "cls"
}

// watchTermination ends the shell on SIGTERM, SIGHUP or ctx: the running
// command is cancelled and the prompt left; runTTY's deferred restore then
// puts the terminal back. (Restoring here, under go-prompt's reader, would
// make its next read block.)
func (s *Shell) watchTermination(ctx context.Context) func() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, termSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-sig:
		case <-ctx.Done():
		}
		s.setExiting()
		s.interrupt()
		s.tty.inject(quitKey)
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// newPrompt builds the go-prompt line reader. prompt.New opens /dev/tty and
// panics when it cannot (go-prompt#185); that becomes an error here.
func (s *Shell) newPrompt(history []string) (pr *prompt.Prompt, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("shell: cannot use the terminal (%v): pipe commands into browseragent instead", r)
		}
	}()
	opts := []prompt.Option{
		prompt.OptionParser(s.tty),
		prompt.OptionLivePrefix(func() (string, bool) { return s.prefix(), true }),
		prompt.OptionHistory(history),
		// go-prompt wipes the screen when the popup does not fit: keep it
		// to half the terminal.
		prompt.OptionMaxSuggestion(uint16(max(1, min(8, int(s.tty.GetWinSize().Row)/2-1)))),
		prompt.OptionAddASCIICodeBind(prompt.ASCIICodeBind{
			ASCIICode: redrawKey,
			Fn:        func(b *prompt.Buffer) { s.p.drawAbove(b, s.prefix(), s.tty.cols()) },
		}),
		// go-prompt's own Ctrl-L (emacs bindings) clears the screen; the
		// printer hears of it, since its status line went with it.
		prompt.OptionAddKeyBind(prompt.KeyBind{Key: prompt.ControlL, Fn: func(*prompt.Buffer) { s.p.screenCleared() }}),
		prompt.OptionSetExitCheckerOnInput(func(string, bool) bool { return s.isExiting() }),
	}
	if !s.p.color {
		opts = append(opts, plainColors()...)
	}
	return prompt.New(func(string) {}, s.complete, opts...), nil
}

// plainColors turns go-prompt's colours off for NO_COLOR; the selected
// suggestion stays bold.
func plainColors() []prompt.Option {
	d := prompt.DefaultColor
	return []prompt.Option{
		prompt.OptionPrefixTextColor(d),
		prompt.OptionPreviewSuggestionTextColor(d),
		prompt.OptionSuggestionTextColor(d), prompt.OptionSuggestionBGColor(d),
		prompt.OptionSelectedSuggestionTextColor(d), prompt.OptionSelectedSuggestionBGColor(d),
		prompt.OptionDescriptionTextColor(d), prompt.OptionDescriptionBGColor(d),
		prompt.OptionSelectedDescriptionTextColor(d), prompt.OptionSelectedDescriptionBGColor(d),
		prompt.OptionScrollbarThumbColor(d), prompt.OptionScrollbarBGColor(d),
	}
}

// prefix is the prompt: browseragent[mode|model]>
func (s *Shell) prefix() string {
	return fmt.Sprintf("browseragent[%s|%s]> ", s.modeName(), s.modelName())
}

func (s *Shell) modeName() string {
	if s.opts.Browser == nil {
		return "no browser"
	}
	return s.opts.Browser.Mode().String()
}

func (s *Shell) modelName() string {
	if s.opts.Agent == nil {
		return "no model"
	}
	return s.opts.Agent.Settings().Model
}

// greet is the first line a person sees.
func (s *Shell) greet() {
	s.p.Hint("browseragent shell: type a task, or /help for commands; Tab completes, Ctrl-C cancels, Ctrl-D exits")
	if s.opts.Agent == nil {
		s.p.Hint("no LLM configured: slash commands work; see /help model to set one up")
	}
}

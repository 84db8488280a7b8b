package shell

import (
	"context"
	"errors"
	"fmt"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/session"
)

var errNoBrowser = &hintError{
	msg:  "no browser in this session",
	hint: "install chromium (or set BROWSERAGENT_CHROME) and start browseragent again",
}

func cmdConnect(ctx context.Context, s *Shell, c *call) error {
	if s.opts.Browser == nil {
		return errNoBrowser
	}
	t := browser.Target{
		UserDataDir: c.flags["user-data-dir"],
		BrowserURL:  c.flags["browser-url"],
		WSEndpoint:  c.flags["ws-endpoint"],
	}
	s.p.SpinStart("connecting to your Chrome")
	msg, err := s.opts.Browser.Connect(ctx, t)
	s.p.SpinStop()
	if err != nil {
		if errors.Is(err, browser.ErrNotDebuggable) {
			return err // its message already says what to do
		}
		return &hintError{msg: fmt.Sprintf("connect: %v", err), hint: "/help connect"}
	}
	// One line: what happened, then what the session reset (msg, "" when nothing was).
	s.p.Line("%s", textutil.OneLine("connected to your Chrome (shared mode): "+sharedWrites(s.opts.Yes)+"; /disconnect goes back. "+msg, 0))
	return nil
}

func cmdDisconnect(ctx context.Context, s *Shell, _ *call) error {
	if s.opts.Browser == nil {
		return errNoBrowser
	}
	if s.opts.Browser.Mode() != guard.Shared {
		// The session knows why: never connected, or the person's Chrome
		// was lost (it then says so), so ask it rather than guess.
		if _, err := s.opts.Browser.Disconnect(ctx); errors.Is(err, session.ErrAlreadyLost) {
			s.p.Line("%s", err)
			return nil
		}
		s.p.Line("not connected: already using the isolated browser")
		return nil
	}
	msg, err := s.opts.Browser.Disconnect(ctx)
	if err != nil {
		return fmt.Errorf("disconnect: %w", err)
	}
	s.p.Line("%s", textutil.OneLine("disconnected from your Chrome: back to the isolated browser. "+msg, 0))
	return nil
}

// sharedWrites says what asks in shared mode: every write, on the
// person's tabs and the agent's own alike (guard.Shared), unless --yes
// approves them on ordinary pages.
func sharedWrites(yes bool) string {
	if yes {
		return "--yes approves every write on ordinary pages; sensitive pages still ask"
	}
	return "every write (click, type, key, JavaScript) asks first, on your tabs and the agent's own"
}

func cmdMode(_ context.Context, s *Shell, _ *call) error {
	if s.opts.Browser == nil {
		return errNoBrowser
	}
	switch s.opts.Browser.Mode() {
	case guard.Shared:
		s.p.Line("shared: the tools drive your own Chrome")
		s.p.Hint("%s; /disconnect returns to the isolated browser", sharedWrites(s.opts.Yes))
	default:
		s.p.Line("isolated: the tools drive browseragent's own Chromium with a temporary profile")
		s.p.Hint("/connect attaches to your running Chrome instead (shared mode)")
	}
	return nil
}

// completeTabs suggests tab numbers with their titles.
func completeTabs(s *Shell, n int, _ []string) []suggestion {
	if s.opts.Tabs == nil || n > 0 {
		return nil
	}
	var out []suggestion
	for _, t := range s.opts.Tabs.Tabs() {
		num := t.ID
		if len(num) > 1 && num[0] == 't' {
			num = num[1:]
		}
		desc := textutil.OneLine(t.Title+" "+t.URL, 60)
		if t.Current {
			desc = "* " + desc
		}
		out = append(out, suggestion{num, desc})
	}
	return out
}

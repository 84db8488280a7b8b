package wire

import "fmt"

// Exit codes of `browseragent browser` commands, besides 0 (done). A
// script tells what happened from the code alone; the one-line message
// says the rest.
const (
	ExitOK      = 0
	ExitFailed  = 1 // the page or the tool said no: nothing to click, a wait that timed out, a page that did not load
	ExitUsage   = 2 // bad usage: an unknown flag, a missing argument, a bad session name
	ExitDenied  = 3 // refused: a deny rule, or the person said no
	ExitPending = 4 // waiting for approval: `browser confirm ID` runs it, `browser deny ID` drops it
	ExitBusy    = 5 // another command is running on this session right now: try again when it ends
	ExitStale   = 6 // the ref is unknown or from a page that has changed: take a new snapshot
	ExitNoTab   = 7 // the tab is closed, or there is no tab: open a page, or list them with `browser tabs`
	ExitLost    = 8 // the session's daemon or browser died: reported once, and a fresh one is started
)

// exitNames are the codes' names in --json output ("code").
var exitNames = map[int]string{
	ExitOK: "ok", ExitFailed: "failed", ExitUsage: "usage", ExitDenied: "denied", ExitPending: "pending",
	ExitBusy: "busy", ExitStale: "stale_ref", ExitNoTab: "no_tab", ExitLost: "session_lost",
}

// Error is a failure with its exit code, for the command line to print
// as one sentence.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// usageErrorf is an Error of bad usage (ExitUsage).
func usageErrorf(format string, a ...any) error {
	return &Error{Code: ExitUsage, Msg: fmt.Sprintf(format, a...)}
}

package wire

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/browseragent/browseragent/browsercli/early"
)

// Quick runs `browseragent browser COMMAND …` (args: the program's
// arguments after its name) by itself, as the full command line would:
// the same request to the session's daemon (started when none runs), the
// same output and exit code. It is called from an early package init
// (browsercli/fast), so a script's command costs the process little more
// than the Go runtime's start: the program's other packages and the
// command tree are never set up. ok is false, with nothing done, for
// whatever it does not take on: another subcommand, --help, a flag it
// does not know, a start-up flag (--headed, --sites, --idle-timeout),
// --connect, a terminal on stdin (approvals are asked there), a command
// the command line runs itself, a screenshot (a file to save), or bad
// usage, which the full command line reports.
func Quick(args []string, stdin, stdout, stderr *os.File) (code int, ok bool) {
	req, session, asJSON, ok := quickRequest(args)
	if !ok || isTerminal(stdin) {
		return 0, false
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "browseragent: internal error: %v\n(set BROWSERAGENT_DEBUG=1 for details)\n", r)
			code = 70
		}
	}()
	// Ctrl-C and SIGTERM keep their default: the command ends as any
	// program does, killed by the signal, and the daemon sees its
	// connection close, as it would on a cancel. Catching them
	// (signal.NotifyContext) cost three more threads and ~0.4 ms of CPU
	// a command.
	ctx := context.Background()
	argv, err := DaemonArgv(session, DefaultIdle, false, "")
	var resp *Response
	switch {
	case err == nil && early.WentAway():
		// browsercli/early sent it and the daemon went away unanswered:
		// said as for a command of Quick's own, not sent again.
		var p Paths
		if p, err = PathsOf(session); err == nil {
			resp, err = gone(ctx, p, &ClientOptions{Session: session, Daemon: argv})
		}
	case err == nil:
		resp, err = Do(ctx, req, &ClientOptions{Session: session, Daemon: argv})
	}
	if errors.Is(err, ErrNeedVersion) {
		return 0, false // nothing ran: the full command line says its Version
	}
	command := req.Command
	if err != nil {
		exit := ExitFailed
		if e, isE := err.(*Error); isE {
			exit = e.Code
		}
		resp, command = &Response{Exit: exit, Error: err.Error()}, ""
	}
	return Print(stdout, stderr, asJSON, command, resp), true
}

// quickRequest reads the command line as browsercli/early does (Parse)
// into the request it sends. ok is false for anything else.
func quickRequest(args []string) (req *Request, session string, asJSON, ok bool) {
	p, ok := early.Parse(args)
	if !ok {
		return nil, "", false, false
	}
	// Not buildinfo.Version: it needs runtime/debug, which initialises
	// only after every package that sorts before it, the heavy ones among
	// them; the program's file tells the daemon as much (Request.Binary).
	req = &Request{Command: p.Command, Args: p.Args, Flags: p.Flags, Yes: p.Yes, Binary: Binary()}
	return req, p.Session, p.JSON, true
}

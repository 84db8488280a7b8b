package wire

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
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
	if err == nil {
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

// quickNot are the commands Quick leaves to the full command line: the
// ones it answers itself, and screenshot, whose file it saves where the
// guard allows.
var quickNot = map[string]bool{"tabs": true, "screenshot": true, "sessions": true, "skill": true}

// quickRequest reads the command line as cobra would for the forms Quick
// takes on: `browser`, then --session NAME, --json and --yes (-y)
// anywhere, the command, its own flags as its table names them, and its
// arguments. ok is false for anything else.
func quickRequest(args []string) (req *Request, session string, asJSON, ok bool) {
	if len(args) < 2 || args[0] != "browser" {
		return nil, "", false, false
	}
	req = &Request{Flags: map[string]string{}}
	var c Command
	for i := 1; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case a == "--session" && i+1 < len(args):
			i++
			session = args[i]
		case strings.HasPrefix(a, "--session="):
			session = value
		case a == "--json":
			asJSON = true
		case a == "--yes" || a == "-y":
			req.Yes = true
		case len(a) < 2 || a[0] != '-':
			if req.Command == "" {
				var found bool
				if c, found = Lookup(a); !found || c.Local || quickNot[a] {
					return nil, "", false, false
				}
				req.Command = a
				continue
			}
			req.Args = append(req.Args, a)
		case req.Command == "" || a == "--":
			return nil, "", false, false
		default:
			f, found := c.flag(name, strings.HasPrefix(a, "--"))
			switch {
			case !found || f.Bool && hasValue:
				return nil, "", false, false
			case f.Bool:
				req.Flags[f.Name] = "true"
			case hasValue:
				req.Flags[f.Name] = value
			case i+1 < len(args):
				i++
				req.Flags[f.Name] = args[i]
			default:
				return nil, "", false, false
			}
		}
	}
	if req.Command == "" || len(req.Args) < c.MinArgs || c.MaxArgs >= 0 && len(req.Args) > c.MaxArgs || req.Command == "close" && req.On("all") {
		return nil, "", false, false
	}
	if session == "" {
		session = os.Getenv(SessionEnv)
	}
	if session == "" {
		session = DefaultSession
	}
	if CheckName(session) != nil {
		return nil, "", false, false
	}
	// Not buildinfo.Version: it needs runtime/debug, which initialises
	// only after every package that sorts before it, the heavy ones among
	// them; the program's file tells the daemon as much (Request.Binary).
	req.Binary = Binary()
	return req, session, asJSON, true
}

// flag finds the command's flag by its name (long) or its one letter.
func (c Command) flag(name string, long bool) (Flag, bool) {
	for _, f := range c.Flags {
		if long && f.Name == name || !long && f.Short != "" && f.Short == name {
			return f, true
		}
	}
	return Flag{}, false
}

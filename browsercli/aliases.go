package browsercli

import (
	"context"

	"github.com/browseragent/browseragent/browsercli/wire"
)

// What the daemon and the command line share lives in package wire, which
// the command line's client runs from before the rest of the program
// initialises; these are its names as this package has always given them.
type (
	Request       = wire.Request
	Response      = wire.Response
	Target        = wire.Target
	File          = wire.File
	Pending       = wire.Pending
	Ask           = wire.Ask
	State         = wire.State
	Error         = wire.Error
	Command       = wire.Command
	Flag          = wire.Flag
	ClientOptions = wire.ClientOptions
)

const (
	DefaultSession = wire.DefaultSession
	SessionEnv     = wire.SessionEnv
	DefaultIdle    = wire.DefaultIdle

	ExitOK      = wire.ExitOK
	ExitFailed  = wire.ExitFailed
	ExitUsage   = wire.ExitUsage
	ExitDenied  = wire.ExitDenied
	ExitPending = wire.ExitPending
	ExitBusy    = wire.ExitBusy
	ExitStale   = wire.ExitStale
	ExitNoTab   = wire.ExitNoTab
	ExitLost    = wire.ExitLost
)

// ExitNames are the exit codes' names in --json output.
var ExitNames = wire.ExitNames

// ErrRunning is Serve's answer when the session's daemon runs already.
var ErrRunning = wire.ErrRunning

// Do runs req in its session's daemon (wire.Do).
func Do(ctx context.Context, req *Request, o *ClientOptions) (*Response, error) {
	return wire.Do(ctx, req, o)
}

// CloseAll ends every running session (wire.CloseAll).
func CloseAll(ctx context.Context) (*Response, error) { return wire.CloseAll(ctx) }

// Sessions lists the sessions that have a state file (wire.Sessions).
func Sessions() ([]State, error) { return wire.Sessions() }

// CheckName refuses a session name that is not a plain word (wire.CheckName).
func CheckName(name string) error { return wire.CheckName(name) }

// Commands lists every subcommand (wire.Commands).
func Commands() []Command { return wire.Commands() }

// Lookup finds a command by name (wire.Lookup).
func Lookup(name string) (Command, bool) { return wire.Lookup(name) }

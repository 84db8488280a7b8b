package wire

import "github.com/browseragent/browseragent/browsercli/early"

// Command is one `browseragent browser` subcommand: its usage and flags
// (what the daemon does for it is the daemon's). The table is
// browsercli/early's, which reads a command line before wire initialises.
type Command = early.Command

// Flag is one of a command's own flags; every value travels as a string
// ("true" for a boolean that was given).
type Flag = early.Flag

// Commands lists every subcommand in the order `browser --help` shows them.
func Commands() []Command { return early.Commands() }

// Lookup finds a command by name.
func Lookup(name string) (Command, bool) { return early.Lookup(name) }

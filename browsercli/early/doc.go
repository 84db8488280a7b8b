// Package early answers a script's `browseragent browser COMMAND` from the
// first of the program's package inits that can: it imports only what
// package os imports, so Go initialises it right after os, before the ~50
// packages that sort before browsercli/wire and that wire waits for
// (encoding/json and reflect among them), which every command paid for
// and never used.
//
// It takes on a command only in the plain case: the command line reads as
// Quick reads it (Parse), no --json, no file named, no terminal on stdin,
// stdout or stderr, and the session's daemon answers on its socket. Then it
// sends the same request, follows the daemon's answer (the text, a notice,
// an error, a call parked for approval, a question it declines as Quick
// does) and prints it as wire.Print does. Anything else, and a daemon of
// another program file (it asks for the version, having run nothing), goes
// on to browsercli/fast and wire.Quick as before; a daemon that goes away
// during the command is left to wire.Quick too (WentAway), which reports it
// as for its own commands.
//
// It also holds what wire shares with it: the commands' table, the
// command line's reading (Parse) and the program file's name (Binary).
package early

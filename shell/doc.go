// Package shell is browseragent's interactive REPL: slash commands,
// completion, @server:uri mentions, approvals and status, on go-prompt.
//
// go-prompt v0.2.6 is unmaintained and has traps this package wraps rather
// than ships: it never restores the terminal, panics without one, swallows
// Ctrl-C while a command runs, lets other goroutines clobber the prompt and
// inserts pasted newlines instead of submitting them. See tty.go, keys.go
// and printer.go for how each is handled.
//
// The shell is built last, from complete Options. The rest of the program
// reaches it through Hooks made before everything else: cmd opens the
// session with the hooks as the registry's approver, the MCP manager's
// event sink and host callbacks and the session's notice sink, then makes
// the shell with the session's registry, browser and MCP manager and the
// same hooks (Options.Hooks). What the hooks get before Run starts is kept
// (events, notices) or waits (approvals, forms), and is never answered for
// the person.
package shell

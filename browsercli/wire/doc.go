// Package wire is what the `browseragent browser` command line and its
// session's daemon share: the socket's messages, a session's files, the
// commands' table, the client and its output.
//
// It uses the standard library alone (its socket dialled with system calls,
// the daemon started with os.StartProcess, paths with package path), so that
// Quick can answer a script's command from browsercli/fast's init, before the
// heavy packages initialise; the daemon itself is package browsercli's.
package wire

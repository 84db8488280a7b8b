// Package browsercli is `browseragent browser …`: a persistent, guarded
// browser that scripts and coding agents drive one command at a time.
//
// The first command of a session starts a daemon (Serve) that owns one
// session.Session and listens on a Unix socket of the person's own; later
// commands (Do) reuse it. Every command is one or more tool calls through
// the session's registry, the one path the shell and the agent use, so
// the guard judges each like any other call. A call that needs approval
// is asked at the command's terminal, or parked as a pending approval that
// `browser confirm ID` / `browser deny ID` resolves. The package prints
// nothing: package cli writes what Do returns.
package browsercli

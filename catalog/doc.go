// Package catalog is the one description of every tool browseragent offers or
// hosts: what a call of it touches, and how it is served. For each tool it
// says what a call does (its effect), which of its parameters name local
// files, carry script, type into fields or say where it goes, whether its
// result can carry content of pages other than the one judged, its timeout
// and the MCP annotations it is served with.
//
// Every package that needs a fact about a tool reads it here (the guard, the
// registry, the context budget, the shell's history, `mcp serve`); nothing
// keeps a second table keyed by tool name. A tool that has no entry is
// described by Derive from its MCP annotations and input schema, and a tool
// nothing is known about is the most dangerous kind: a write that may touch
// files.
//
// catalog imports nothing of browseragent's, so every package may import it.
package catalog

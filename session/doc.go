// Package session wires one running browseragent: the guard policy, the tool
// registry and the sources behind it (web_fetch, the browser, the MCP
// servers). It also holds the mode switches between isolated and shared and
// what they reset, and the browser-side facts the registry asks for (which
// tab and frame a call acts on, where a result's content came from).
//
// The shell, `run`, `fetch`, `mcp serve` and the other subcommands each
// build one Session and call tools only through its Registry. It imports no
// LLM code.
package session

// Package tools is the one path for every tool call: the registry that
// resolves a call once (its catalogue entry, decoded arguments, the tab by
// CDP target id, the URL as it will load, the files it touches), asks the
// guard, asks the person when needed, runs the tool under its timeout,
// screens and wraps the result and records the audit line. The web_fetch
// builtin lives here too.
//
// It knows nothing of LLMs: the shell, the subcommands, `mcp serve` and the
// agent loop all call Registry.Call; a refusal comes back as an error
// wrapping guard.ErrDenied, and a caller that needs a tool's typed outcome
// reads ToolResult.Data. Where it sits:
//
//	cmd/browseragent -> cli -> shell -> agent (LLM loop, go-openai) -> session
//	serve -> session -> tools -> {guard, catalog, browser, mcpclient, fetch}
//	media (the one Image type) and catalog import nothing of ours
package tools

// Package tools is the one path for every tool call: the registry resolves a
// call once, asks the guard (and the person when needed), runs the tool and
// records the audit line. Resolving gives the call's catalogue entry, decoded
// arguments, the tab by CDP target id, the URL as it will load and the files
// it touches; the tool runs under the call's timeout, and its result is
// screened and wrapped. The web_fetch builtin lives here too.
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

// Package serve is `browseragent mcp serve`: it offers web_fetch and the
// native browser tools to any MCP host, over stdio or Streamable HTTP. Hosts
// such as Claude Code, Cursor, Gemini CLI, Codex and VS Code reach them on
// the official go-sdk's server side.
//
// It adds no path of its own: every tools/call goes through the registry
// (guard, approval, audit), with the calling client named in the audit log.
// Approvals travel to the host as elicitation forms; a client that cannot
// show one is refused with the reason. Several HTTP sessions share one
// browser, each working its own tabs and closing only those it opened.
package serve

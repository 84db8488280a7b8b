// Package mcpclient is browseragent's MCP host: it runs the MCP servers the
// person configures, on the official go-sdk, and hands their tools, prompts
// and resources to the rest of the program.
//
// A Manager runs the servers of a Config, merged from the hosts' own files
// (Claude Code's scopes, Claude Desktop's, VS Code's, Gemini CLI's: a Dialect
// each); it names their tools for the LLM, cleans their schemas, turns their
// results into text and images, and answers their sampling, elicitation and
// roots requests through its Options. The configuration's edits (`mcp add`,
// `mcp remove`, `mcp enable` and `disable`, the Claude Desktop import), what
// `mcp get` shows, OAuth logins and the trust of a project's servers live
// here too.
package mcpclient

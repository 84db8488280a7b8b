// Package agent is the LLM loop: it sends a task to a Chat Completions model
// and runs the tool calls the model answers with, one step after another. It
// is the one package that imports go-openai, and it holds the streamed tool
// calls of every provider's dialect, the routing prompt, the context budget,
// tool bounding with tool_search, MCP sampling and the LLM settings. It calls
// tools only through a tools.Caller, so it never bypasses the registry.
package agent

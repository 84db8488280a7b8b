// Package agent is the LLM loop: Chat Completions over go-openai (the one
// package that imports it), streamed tool calls from every provider's
// dialect, the routing prompt, the context budget, tool bounding with
// tool_search, MCP sampling and the LLM settings. It calls tools only
// through a tools.Caller, so it never bypasses the registry.
package agent

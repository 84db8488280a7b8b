// Package oauthtest serves, on 127.0.0.1, a small OAuth 2.1 authorization
// server and an MCP server protected by it, for tests of mcpclient's OAuth
// client and of 'browseragent mcp login'. The authorization server has
// metadata, dynamic registration, authorize with PKCE, and token with
// refresh.
package oauthtest

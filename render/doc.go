// Package render renders pages in a real browser for `fetch --render`, every
// step a tool call through a session's registry, so the guard judges it as it
// judges the agent. It renders on one browser (Renderer) or a pool of them
// (Pool), and the result is an extract.Result with the fields a plain fetch
// gives.
package render

// Package browser drives Chromium over the DevTools Protocol with chromedp:
// an isolated headless browser it launches itself, or the person's own Chrome
// it attaches to (shared mode). It tracks tabs and which of them the agent
// opened, and its native browser_* tools reach callers only as a
// tools.ToolProvider (Provider), which the registry calls.
//
// A Browser is safe for concurrent use. It never prints.
package browser

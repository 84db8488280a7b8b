// Package cli is browseragent's command line: it turns flags into calls of
// the packages below and their answers into output and exit codes. Each
// command group (root and the shell, run, fetch, mcp, sites, browser, audit)
// is one file.
//
// Main is the one entry point (cmd/browseragent calls it); Go errors
// become one sentence and an exit code here, never a stack trace.
package cli

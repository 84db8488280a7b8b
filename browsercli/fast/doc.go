// Package fast runs `browseragent browser COMMAND` from its init, before
// the rest of the program initialises: the command line's client
// (wire.Quick) needs none of it. Go initialises a package as soon as all
// it imports is, so this one comes before the heavy ones (the browser,
// MCP, extraction and the command tree), which a script's command would
// otherwise pay for every time. The browseragent program imports it for
// this alone; anything Quick does not take on goes on to main as before.
package fast

// Command browseragent is a terminal shell for web work: an LLM agent with a
// fast web_fetch, a real browser over CDP and any MCP server.
package main

import (
	"os"

	_ "github.com/browseragent/browseragent/browsercli/fast" // `browser COMMAND` answered before the rest initialises
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

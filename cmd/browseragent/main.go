// Command browseragent is a terminal shell for web work: an LLM agent with a
// fast web_fetch, a real browser over CDP and any MCP server. Its commands
// are package cli's.
package main

import (
	"os"

	_ "github.com/browseragent/browseragent/browsercli/early" // a script's `browser COMMAND` answered right after package os initialises
	_ "github.com/browseragent/browseragent/browsercli/fast"  // the others before the rest initialises
	"github.com/browseragent/browseragent/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

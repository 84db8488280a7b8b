package fast

import (
	"os"

	"github.com/browseragent/browseragent/browsercli/wire"
)

func init() {
	if code, ok := wire.Quick(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
}

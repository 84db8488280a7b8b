package wire

import (
	"os"

	"github.com/browseragent/browseragent/internal/textutil"
)

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool { return textutil.IsTerminal(f) }

//go:build !linux

package wire

import (
	"os"

	"github.com/mattn/go-isatty"
)

// isTerminal cannot tell here: Quick then leaves the command to the full
// command line.
func isTerminal(*os.File) bool { return true }

// showsTerminal reports whether f is a terminal, for Shown.
func showsTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

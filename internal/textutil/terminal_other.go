//go:build !linux

package textutil

import (
	"os"

	"github.com/mattn/go-isatty"
)

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

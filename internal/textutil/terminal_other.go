//go:build !linux

package textutil

import (
	"os"

	"github.com/mattn/go-isatty"
)

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

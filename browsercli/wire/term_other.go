//go:build !linux

package wire

import "os"

// isTerminal cannot tell here: Quick then leaves the command to the full
// command line.
func isTerminal(*os.File) bool { return true }

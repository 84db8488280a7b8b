//go:build !linux

package early

import "os"

// Run takes on no command elsewhere than on Linux: wire.Quick does.
func Run(args []string, stdin, stdout, stderr *os.File) (code int, ok bool) { return 0, false }

// WentAway reports whether early sent the command and the session's
// daemon went away without answering; elsewhere than on Linux early
// takes on no command (wire.Quick does), so never.
func WentAway() bool { return false }

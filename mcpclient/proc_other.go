//go:build !linux

package mcpclient

import (
	"errors"
	"os/exec"
	"syscall"
)

// setDeathSignal does nothing where there is no Pdeathsig; servers still
// see their stdin close when browseragent exits.
func setDeathSignal(*syscall.SysProcAttr) {}

func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

// liveGroupMembers cannot list members without /proc; it reports the
// group as one live member while signal 0 reaches it.
func liveGroupMembers(pgid int) []int {
	if err := syscall.Kill(-pgid, 0); err != nil && errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return []int{pgid}
}

// groupLeader runs the server directly: without a death signal there is
// nothing for a leading sh to pass on.
func groupLeader(command string, args []string) (string, []string) { return command, args }

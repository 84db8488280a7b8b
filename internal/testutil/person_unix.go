//go:build unix && !linux

package testutil

import "os/exec"

// startProcess starts cmd and closes exited when it ends.
func startProcess(cmd *exec.Cmd, exited chan struct{}) error {
	if err := cmd.Start(); err != nil {
		close(exited)
		return err
	}
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return nil
}

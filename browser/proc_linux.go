package browser

import (
	"os/exec"
	"runtime"
	"syscall"
)

// setDeathSignal makes the kernel kill Chromium if browseragent dies without
// stopping it, so no browser outlives a crash.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// startProcess starts cmd from a goroutine locked to its OS thread until the
// process exits: Pdeathsig fires when the starting thread ends, not the
// process, and Go may retire threads.
func startProcess(cmd *exec.Cmd, exited chan struct{}) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			close(exited)
			return
		}
		started <- nil
		cmd.Wait()
		close(exited)
	}()
	return <-started
}

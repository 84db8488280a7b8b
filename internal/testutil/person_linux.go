package testutil

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startProcess starts cmd with the kernel set to kill it when the test
// binary dies, and closes exited when it ends. Pdeathsig fires when the
// thread that started the process ends, not the process, and Go may retire
// threads: the starting goroutine keeps its thread until cmd exits.
func startProcess(cmd *exec.Cmd, exited chan struct{}) error {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
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

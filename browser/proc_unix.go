//go:build !windows

package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// setProcAttr puts Chromium in its own process group so that stop can signal
// the browser and all its helpers at once.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// terminate sends SIGTERM to the process group, waits up to grace for the
// browser to exit, then kills the group.
func terminate(cmd *exec.Cmd, exited <-chan struct{}, grace time.Duration) {
	if cmd.Process == nil {
		return
	}
	pgid := -cmd.Process.Pid
	syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
	}
	syscall.Kill(pgid, syscall.SIGKILL)
	<-exited
}

// killUsing kills any process left whose command line names dir, the
// profile of a browser we launched: a helper that left the process group
// must not outlive the browser.
func killUsing(dir string) {
	for _, pid := range pidsUsing(dir) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// pidsUsing lists the processes whose command line contains s (Linux /proc;
// nil elsewhere).
func pidsUsing(s string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killGroup kills the process group led by pid.
func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }

package mcpclient

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// setDeathSignal asks the kernel to send SIGTERM to a server when
// browseragent dies without closing it (a crash, kill -9), so a server
// does not outlive it even then.
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGTERM }

// groupLeader runs the server under a small sh that leads its process
// group. The death signal reaches only that leader; sh passes it on to the
// whole group, so a grandchild (npx starts the server as node, a child of
// its own) dies with browseragent even after kill -9. sh keeps stdin for
// the server explicitly: a background job would otherwise get /dev/null.
//
// sh repeats SIGTERM while the server lives, soon at first and then every
// 0.1 s: a signal that lands between fork and exec is caught by sh's
// inherited handler in the child and lost at exec (seen under load). It
// checks the server by $!, which is set at the fork, as the trap can run
// before any later line. The first checks come within milliseconds, so a
// server that dies at once is not waited for (an exit waits for sh).
// After about 2 s, as stop() would, it sends SIGKILL.
func groupLeader(command string, args []string) (string, []string) {
	const script = `trap 'trap "" TERM
for i in 0.005 0.01 0.02 0.05 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1 0.1; do
kill -TERM 0; kill -0 "$!" 2>/dev/null || exit 143; sleep $i
done; kill -KILL 0' TERM
exec 3<&0; "$@" 0<&3 3<&- & wait "$!"`
	return "/bin/sh", append([]string{"-c", script, "sh", command}, args...)
}

// Pdeathsig fires when the OS thread that forked the child exits, not the
// process (golang/go#27505). Every server is therefore started from one
// goroutine locked to its own thread, which lives as long as the program.
var (
	spawnOnce sync.Once
	spawnJobs chan spawnJob
)

type spawnJob struct {
	cmd  *exec.Cmd
	done chan error
}

func startCmd(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnJobs = make(chan spawnJob)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must not exit
			for j := range spawnJobs {
				j.done <- j.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawnJobs <- spawnJob{cmd, done}
	return <-done
}

// liveGroupMembers lists the pids of non-zombie processes in group pgid,
// read from /proc.
func liveGroupMembers(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the ")" that ends the command name: state ppid pgrp.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

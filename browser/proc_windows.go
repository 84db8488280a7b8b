package browser

import (
	"os/exec"
	"time"
)

func setProcAttr(*exec.Cmd) {}

// terminate kills the browser; Windows has no process groups to signal.
func terminate(cmd *exec.Cmd, exited <-chan struct{}, grace time.Duration) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
	<-exited
}

func killUsing(string) {}

func pidsUsing(string) []int { return nil }

func killGroup(int) {}

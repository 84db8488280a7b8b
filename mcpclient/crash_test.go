package mcpclient

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostCrashKillsServers: when the host process dies without Close
// (kill -9), a server that neither reads stdin nor exits on its own
// (stuck in a 1 h sleep) is still stopped, by the kernel's parent-death
// signal.
func TestHostCrashKillsServers(t *testing.T) {
	if os.Getenv("MCPCLIENT_CRASH_HOST") != "" {
		crashHost()
		return
	}
	bin := rawServer(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostCrashKillsServers$")
	cmd.Env = append(os.Environ(), "MCPCLIENT_CRASH_HOST="+bin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("host said nothing: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "server pid "))
	if err != nil {
		t.Fatalf("host said %q", line)
	}
	_ = cmd.Process.Kill() // SIGKILL: no Close, no deferred cleanup
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for len(liveGroupMembers(pid)) > 0 {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("server %d outlived its killed host", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// crashHost runs in the child: start one stuck server, print its pid, wait
// to be killed.
func crashHost() {
	cfg := &Config{Servers: map[string]*ServerConfig{"stuck": {Name: "stuck", Command: os.Getenv("MCPCLIENT_CRASH_HOST"), Args: []string{"sleep=1h"}}}}
	m := NewManager(cfg, &Options{InitTimeout: time.Hour})
	m.Start(context.Background())
	for {
		if st, _ := m.ServerStatus("stuck"); st.PID != 0 {
			fmt.Printf("server pid %d\n", st.PID)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(time.Hour)
}

package browsercli

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// checkPeer refuses a connection from another user's process: the socket's
// mode already keeps them out, and SO_PEERCRED says who is really there.
// It reports whether that process reads from a terminal (its standard
// input is one), which only the kernel can say: a script or a coding
// agent's shell tool that claims a terminal to approve a call is not
// believed.
func checkPeer(c net.Conn) (terminal bool, err error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false, fmt.Errorf("not a Unix socket connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false, err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return false, err
	}
	if credErr != nil {
		return false, fmt.Errorf("cannot tell who connected: %w", credErr)
	}
	if int(cred.Uid) != os.Getuid() {
		return false, fmt.Errorf("refused: this session belongs to another user")
	}
	return readsTerminal(int(cred.Pid)), nil
}

// readsTerminal reports whether process pid's standard input is a
// terminal device; false when it cannot be told.
func readsTerminal(pid int) bool {
	target, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/0")
	if err != nil {
		return false
	}
	return strings.HasPrefix(target, "/dev/pts/") || strings.HasPrefix(target, "/dev/tty")
}

//go:build unix

package wire

import (
	"io"
	"os"
	"syscall"
)

// dial connects to the session's socket. It makes the system calls itself
// rather than through package net: Quick runs from a package's init,
// before the program's other packages initialise, and importing net would
// make it wait for them (Go initialises a package once all it imports
// is). The connection is non-blocking, so closing it ends a pending read.
func dial(p Paths) (io.ReadWriteCloser, error) {
	syscall.ForkLock.RLock() // no child inherits it before it is close-on-exec
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: p.Sock}); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "dial", Path: p.Sock, Err: err}
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("setnonblock", err)
	}
	return os.NewFile(uintptr(fd), p.Sock), nil
}

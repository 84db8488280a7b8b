//go:build !unix

package wire

import (
	"io"
	"net"
	"time"
)

// dial connects to the session's socket.
func dial(p Paths) (io.ReadWriteCloser, error) {
	return net.DialTimeout("unix", p.Sock, 2*time.Second)
}

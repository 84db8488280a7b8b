package mcpclient

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
)

// DefaultMaxMessageBytes caps one message from a stdio server. A larger
// response is replaced by a JSON-RPC error for the same request, so the
// call fails with a clear reason and the server stays usable.
const DefaultMaxMessageBytes = 16 << 20

// stdoutFilter sits between a stdio server's stdout and the SDK's
// newline-delimited JSON reader. Servers print banners and logs on stdout
// by mistake; such lines would end the session, so they go to the stderr
// log instead. Oversized messages are discarded as described above.
type stdoutFilter struct {
	src     *bufio.Reader
	log     *ringBuffer
	max     int
	pending []byte
	line    []byte
}

func newStdoutFilter(src io.Reader, log *ringBuffer, max int) *stdoutFilter {
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	return &stdoutFilter{src: bufio.NewReaderSize(src, 64*1024), log: log, max: max}
}

func (f *stdoutFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		msg, err := f.nextMessage()
		if err != nil {
			return 0, err
		}
		f.pending = msg
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// nextMessage returns the next line that looks like JSON, newline included.
func (f *stdoutFilter) nextMessage() ([]byte, error) {
	for {
		f.line = f.line[:0]
		size, tail, err := f.readLine()
		if size > f.max {
			return oversized(f.line, tail, size, f.max), nil
		}
		trimmed := bytes.TrimSpace(f.line)
		if len(trimmed) > 0 {
			// A JSON log line ({"level":30,...}) is not a message either:
			// the SDK would end the session on it.
			if (trimmed[0] == '{' || trimmed[0] == '[') && bytes.Contains(trimmed, []byte(`"jsonrpc"`)) {
				return append(trimmed, '\n'), nil
			}
			f.log.add("[stdout, not JSON-RPC] " + string(trimmed))
		}
		if err != nil {
			return nil, err
		}
	}
}

// readLine reads one line into f.line, keeping at most max bytes; past that
// it keeps only the last 512 bytes in tail and counts the size.
func (f *stdoutFilter) readLine() (size int, tail []byte, err error) {
	for {
		chunk, err := f.src.ReadSlice('\n')
		size += len(chunk)
		if size <= f.max {
			f.line = append(f.line, chunk...)
		} else {
			tail = append(tail, chunk...)
			if len(tail) > 512 {
				tail = append(tail[:0], tail[len(tail)-512:]...)
			}
		}
		if err != bufio.ErrBufferFull {
			return size, tail, err
		}
	}
}

var idRE = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")`)

// oversized builds the error response for a message that was too large.
// The id is found in the head (Go servers write it first) or the tail (Node
// servers write it after the result).
func oversized(head, tail []byte, size, max int) []byte {
	var id []byte
	if ms := idRE.FindAllSubmatch(tail, -1); ms != nil {
		id = ms[len(ms)-1][1]
	} else if m := idRE.FindSubmatch(head[:min(len(head), 512)]); m != nil {
		id = m[1]
	}
	if id == nil {
		return nil // A notification: drop it.
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"message of %d bytes exceeds the %d-byte limit; ask the tool for less"}}`+"\n", id, size, max)
}

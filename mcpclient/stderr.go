package mcpclient

import (
	"bufio"
	"io"
	"strings"
	"sync"
)

// DefaultStderrLines is how many lines of a server's stderr are kept.
const DefaultStderrLines = 200

// maxLogLine caps one kept line, so a server printing megabytes without a
// newline cannot grow the buffer.
const maxLogLine = 4096

// ringBuffer keeps the last n lines written to it. It is safe for
// concurrent use: the stderr reader writes while the shell reads.
type ringBuffer struct {
	mu    sync.Mutex
	lines []string
	next  int
	full  bool
	total int
}

func newRingBuffer(n int) *ringBuffer {
	if n <= 0 {
		n = DefaultStderrLines
	}
	return &ringBuffer{lines: make([]string, n)}
}

func (r *ringBuffer) add(line string) {
	if len(line) > maxLogLine {
		line = line[:maxLogLine] + " …(line cut)"
	}
	r.mu.Lock()
	r.lines[r.next] = line
	r.next = (r.next + 1) % len(r.lines)
	r.full = r.full || r.next == 0
	r.total++
	r.mu.Unlock()
}

// Lines returns the kept lines, oldest first.
func (r *ringBuffer) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]string(nil), r.lines[:r.next]...)
	}
	return append(append([]string(nil), r.lines[r.next:]...), r.lines[:r.next]...)
}

// tail returns the last n lines joined, for error messages.
func (r *ringBuffer) tail(n int) string {
	lines := r.Lines()
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// readLines copies r into the buffer line by line until EOF.
func (r *ringBuffer) readFrom(src io.Reader) {
	br := bufio.NewReaderSize(src, 64*1024)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			r.add(strings.TrimRight(string(line), "\r\n"))
			for err == bufio.ErrBufferFull { // drop the rest of an overlong line
				_, err = br.ReadSlice('\n')
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

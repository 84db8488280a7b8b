package mcpclient

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"sync"
)

// defaultStderrLines is how many lines of a server's stderr are kept.
const defaultStderrLines = 200

// maxLogLine caps one kept line, so a server printing megabytes without a
// newline cannot grow the buffer.
const maxLogLine = 4096

// ringBuffer keeps the last n lines written to it: a server's log, where
// its process's own output (stderr, and stdout lines that are not
// JSON-RPC) sits between the protocol's log messages and browseragent's
// notes. It is safe for concurrent use: the stderr reader writes while the
// shell reads.
type ringBuffer struct {
	mu     sync.Mutex
	lines  []string
	output []bool // lines[i] came from the process
	next   int
	full   bool
	total  int
}

func newRingBuffer(n int) *ringBuffer {
	if n <= 0 {
		n = defaultStderrLines
	}
	return &ringBuffer{lines: make([]string, n), output: make([]bool, n)}
}

// add keeps a log line that is not the process's output: a protocol log
// message or a note of browseragent's.
func (r *ringBuffer) add(line string) { r.put(line, false) }

// addOutput keeps a line the server's process wrote.
func (r *ringBuffer) addOutput(line string) { r.put(line, true) }

func (r *ringBuffer) put(line string, output bool) {
	if len(line) > maxLogLine {
		line = line[:maxLogLine] + " …(line cut)"
	}
	r.mu.Lock()
	r.lines[r.next], r.output[r.next] = line, output
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

// tail returns the last n lines the process wrote, joined, for the
// "stderr:" part of error messages. Protocol log messages and
// browseragent's notes are left out: they are not why a process failed,
// and a network server, which has no process, has no tail at all.
func (r *ringBuffer) tail(n int) string {
	r.mu.Lock()
	var lines []string
	size := len(r.lines)
	count := r.next
	if r.full {
		count = size
	}
	for i := 1; i <= count && len(lines) < n; i++ {
		j := (r.next - i + size) % size
		if r.output[j] {
			lines = append(lines, r.lines[j])
		}
	}
	r.mu.Unlock()
	slices.Reverse(lines)
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// readLines copies r into the buffer line by line until EOF.
func (r *ringBuffer) readFrom(src io.Reader) {
	br := bufio.NewReaderSize(src, 64*1024)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			r.addOutput(strings.TrimRight(string(line), "\r\n"))
			for err == bufio.ErrBufferFull { // drop the rest of an overlong line
				_, err = br.ReadSlice('\n')
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

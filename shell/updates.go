package shell

import (
	"fmt"
	"sync"
	"time"
)

// A watched resource can change thousands of times a second (a server's
// counter, a log it appends to). Each resources/updated was one line above
// the prompt; now the first update of a resource is announced at once and
// the ones after it, for as long as they keep coming, are counted and
// announced once per window: "mcp srv: resource updated 4999 more times
// in 3s: test://r".

// defaultUpdateWindow is how long updates of one resource are counted
// before a line says how many there were.
const defaultUpdateWindow = 3 * time.Second

// updateCoalescer counts resource updates per server and URI. add is
// called from the MCP manager's event goroutine; the summaries go to
// notes, which the shell's event pump prints.
type updateCoalescer struct {
	window time.Duration
	notes  chan string

	mu     sync.Mutex
	counts map[updateKey]int // updates since the last line, per resource in a window
	closed bool
}

type updateKey struct{ server, uri string }

func newUpdateCoalescer() *updateCoalescer {
	return &updateCoalescer{window: defaultUpdateWindow, notes: make(chan string, 64), counts: map[updateKey]int{}}
}

// add records an update and reports whether it is to be announced now:
// the first of its resource in a window.
func (c *updateCoalescer) add(server, uri string) bool {
	k := updateKey{server, uri}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	if n, ok := c.counts[k]; ok {
		c.counts[k] = n + 1
		return false
	}
	c.counts[k] = 0
	time.AfterFunc(c.window, func() { c.flush(k) })
	return true
}

// flush ends a window: it says how many more updates came, and opens the
// next window; a quiet window ends the counting, so the next update is
// announced at once again.
func (c *updateCoalescer) flush(k updateKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.counts[k]
	if c.closed || n == 0 {
		delete(c.counts, k)
		return
	}
	c.counts[k] = 0
	time.AfterFunc(c.window, func() { c.flush(k) })
	times := "times"
	if n == 1 {
		times = "time"
	}
	select {
	case c.notes <- fmt.Sprintf("mcp %s: resource updated %d more %s in %s: %s", k.server, n, times, c.window, k.uri):
	default: // the shell is far behind: the next window says it again
	}
}

// stop ends the counting; nothing is announced after it.
func (c *updateCoalescer) stop() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
}

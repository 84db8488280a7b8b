package mcpclient

import "sync"

// eventQueue delivers events in order on one goroutine, so a slow or
// re-entrant OnEvent handler never blocks a transport reader or a lock.
type eventQueue struct {
	fn   func(Event)
	mu   sync.Mutex
	q    []Event
	wake chan struct{}
	done chan struct{}
	once sync.Once
}

func newEventQueue(fn func(Event)) *eventQueue {
	e := &eventQueue{fn: fn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	if fn != nil {
		go e.loop()
	}
	return e
}

func (e *eventQueue) push(ev Event) {
	if e.fn == nil {
		return
	}
	e.mu.Lock()
	e.q = append(e.q, ev)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *eventQueue) loop() {
	for {
		select {
		case <-e.wake:
		case <-e.done:
			return
		}
		for {
			e.mu.Lock()
			q := e.q
			e.q = nil
			e.mu.Unlock()
			if len(q) == 0 {
				break
			}
			for _, ev := range q {
				e.fn(ev)
			}
		}
	}
}

func (e *eventQueue) close() { e.once.Do(func() { close(e.done) }) }

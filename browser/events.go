package browser

import (
	"context"
	"sync"
	"time"
)

// watcher is one call waiting for some of its tab's events.
type watcher struct {
	keep func(any) bool
	ch   chan any
}

// hub hands a tab's or a browser's events to the calls waiting for some
// of them.
type hub struct {
	mu       sync.Mutex
	watchers map[*watcher]bool
}

// watch delivers the events that keep selects to the returned channel
// until stop is called. It is fed from chromedp's read loop, which must
// never block: an event that finds the channel full is dropped, so keep
// should select few.
func (h *hub) watch(keep func(any) bool) (<-chan any, func()) {
	w := &watcher{keep: keep, ch: make(chan any, 64)}
	h.mu.Lock()
	if h.watchers == nil {
		h.watchers = map[*watcher]bool{}
	}
	h.watchers[w] = true
	h.mu.Unlock()
	return w.ch, func() {
		h.mu.Lock()
		delete(h.watchers, w)
		h.mu.Unlock()
	}
}

// publish hands ev to the calls watching for it (read loop: never blocks).
func (h *hub) publish(ev any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.watchers {
		if w.keep(ev) {
			select {
			case w.ch <- ev:
			default:
			}
		}
	}
}

// waitEvent waits up to d for the first event on ch, nil when none came.
func waitEvent(ctx context.Context, ch <-chan any, d time.Duration) any {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case ev := <-ch:
		return ev
	case <-timer.C:
	case <-ctx.Done():
	}
	return nil
}

// is reports whether an event is of type T, for watch.
func is[T any](ev any) bool {
	_, ok := ev.(T)
	return ok
}

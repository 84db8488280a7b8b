package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcSettings reads GOGC and the memory limit as the runtime has them.
func gcSettings() (percent int64, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// A one-shot fetch does not collect until its heap nears fetchMemoryLimit;
// its first collection hands over to the batch's proportional policy, so a
// page whose live heap is above the limit is not collected over and over.
// A batch collects at 50% growth from the start.
func TestTuneGC(t *testing.T) {
	percent, limit := gcSettings()
	t.Cleanup(func() {
		debug.SetGCPercent(int(percent))
		debug.SetMemoryLimit(limit)
	})

	tuneGC(true)
	if p, l := gcSettings(); p != 50 || l != limit {
		t.Errorf("batch: GOGC %d, limit %d; want 50 and the limit unchanged (%d)", p, l, limit)
	}

	tuneGC(false)
	if p, l := gcSettings(); p != -1 || l != fetchMemoryLimit {
		t.Fatalf("one-shot before any collection: GOGC %d, limit %d; want off and %d", p, l, fetchMemoryLimit)
	}
	runtime.GC() // what reaching the limit does
	deadline := time.Now().Add(30 * time.Second)
	for {
		p, l := gcSettings()
		if p == 50 && l == math.MaxInt64 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("one-shot after its first collection: GOGC %d, limit %d; want 50 and no limit", p, l)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

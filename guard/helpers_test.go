package guard

import (
	"os"
	"sync"
	"testing"
	"time"
)

var (
	defaultsOnce sync.Once
	defaultsData []byte
	defaultsErr  error
)

// defaultRules loads the repository's sensitive-sites.yaml, the same bytes
// the binary embeds (guard may not import the root package).
func defaultRules(tb testing.TB) *Rules {
	tb.Helper()
	defaultsOnce.Do(func() { defaultsData, defaultsErr = os.ReadFile("../sensitive-sites.yaml") })
	if defaultsErr != nil {
		tb.Fatalf("read default rules: %v", defaultsErr)
	}
	rs, err := LoadRules(defaultsData)
	if err != nil {
		tb.Fatalf("default rules do not load: %v", err)
	}
	return rs
}

// fakeClock is a settable clock for once-approval expiry.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func ptr[T any](v T) *T { return &v }

package guard

import (
	"testing"
	"time"
)

// defaultRules loads the built-in rules, as the program does.
func defaultRules(tb testing.TB) *Rules {
	tb.Helper()
	rs, err := LoadRules()
	if err != nil {
		tb.Fatalf("default rules do not load: %v", err)
	}
	return rs
}

// loadOver layers the files in paths over base, read as the built-in
// rules would be: layering is tested on a small base of the test's own.
func loadOver(base []byte, paths ...string) (*Rules, error) {
	all, err := parseFile(base, BuiltinSource)
	if err != nil {
		return nil, err
	}
	return layerRules(all, paths)
}

// fakeClock is a settable clock for once-approval expiry.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func ptr[T any](v T) *T { return &v }

package extract

import (
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	const httpDate = "Mon, 02 Jan 2006 15:04:05 GMT" // net/http's TimeFormat
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"1", time.Second}, {" 120 ", 2 * time.Minute}, {"-5", 0}, {"soon", 0},
		{now.Add(30 * time.Second).Format(httpDate), 30 * time.Second},
		{now.Add(-time.Hour).Format(httpDate), 0},
		{now.Add(time.Minute).Format(time.RFC850), time.Minute},
		{now.Add(time.Minute).Format(time.ANSIC), time.Minute},
	}
	for _, tc := range tests {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

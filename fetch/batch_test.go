package fetch

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"1", time.Second}, {" 120 ", 2 * time.Minute}, {"-5", 0}, {"soon", 0},
		{now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	}
	for _, tc := range tests {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestReadDone(t *testing.T) {
	out := `{"url":"http://a/1","status":200}` + "\n" +
		`{"url":"http://a/\"q\"","status":200}` + "\n" +
		`{"url":"http://a/2","content":"` + strings.Repeat("x", 3<<20) + `"}` + "\n" +
		`{"url":"http://a/3","sta`
	set, whole, err := ReadDone(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(strings.LastIndex(out, "\n") + 1); whole != want {
		t.Errorf("whole = %d, want %d (up to the cut line)", whole, want)
	}
	got := map[string]bool{}
	for _, u := range []string{"http://a/1", `http://a/"q"`, "http://a/2", "http://a/3", "http://a/4"} {
		got[u] = set.Has(u)
	}
	want := map[string]bool{"http://a/1": true, `http://a/"q"`: true, "http://a/2": true, "http://a/3": false, "http://a/4": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("done (-want +got):\n%s", diff)
	}
}

func TestShard(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"0/4", "{0 4} <nil>"},
		{"3/4", "{3 4} <nil>"},
		{"4/4", `{0 0} --shard "4/4": K must be 0 to 3 (shards count from 0, like $JOB_COMPLETION_INDEX)`},
		{"1/0", `{0 0} --shard "1/0": N must be at least 1`},
		{"a/b", `{0 0} --shard "a/b": write it as K/N, e.g. 0/4 for the first of four shards`},
	}
	for _, tc := range tests {
		s, err := ParseShard(tc.in)
		if got := fmt.Sprint(s, " ", err); got != tc.want {
			t.Errorf("ParseShard(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	// The partition is a fixed function of the URL: these stay where they are.
	count := make([]int, 4)
	for i := range 1000 {
		u := fmt.Sprintf("https://example.org/%d", i)
		n := 0
		for k := range 4 {
			if (Shard{k, 4}).Has(u) {
				count[k]++
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%s is in %d shards", u, n)
		}
	}
	for k, c := range count {
		if c < 200 || c > 300 {
			t.Errorf("shard %d of 4 has %d of 1000 URLs: the hash does not spread", k, c)
		}
	}
}

package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/fetch"
	"github.com/google/go-cmp/cmp"
)

// TestReadDoneKeepsLines: a whole line that is not a result (blank, a
// note, a torn line from two files joined) answers no URL but is kept with
// every line after it; only a last line without its newline is cut. The
// old ReadDone stopped at the first such line and --resume cut the file
// there, losing every result after it.
func TestReadDoneKeepsLines(t *testing.T) {
	a := `{"url":"http://a/1","status":200}` + "\n"
	b := `{"url":"http://a/2","status":200}` + "\n"
	tests := []struct {
		name, out string
		whole     int    // bytes kept
		done      string // the URLs answered, of http://a/1 to 3
	}{
		{"a blank line", a + "\n" + b, len(a) + 1 + len(b), "1 2"},
		{"a note", a + "# rerun on Monday\n" + b, len(a) + 18 + len(b), "1 2"},
		{"a torn line from a joined file", a + `{"url":"http://a/3","sta` + "\n" + b, len(a) + 25 + len(b), "1 2"},
		{"a last line without its newline", a + b + `{"url":"http://a/3"}`, len(a) + len(b), "1 2"},
		{"CRLF lines", strings.TrimSuffix(a, "\n") + "\r\n" + b, len(a) + 1 + len(b), "1 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, whole, err := ReadDone(strings.NewReader(tc.out))
			if err != nil {
				t.Fatal(err)
			}
			var done []string
			for _, n := range []string{"1", "2", "3"} {
				if set.has("http://a/" + n) {
					done = append(done, n)
				}
			}
			got := fmt.Sprintf("whole %d, done %s", whole, strings.Join(done, " "))
			if diff := cmp.Diff(fmt.Sprintf("whole %d, done %s", tc.whole, tc.done), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
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
		got[u] = set.has(u)
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
			if (Shard{k, 4}).has(u) {
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

// TestBatchLongRetryAfter: a host whose Retry-After asks for longer than
// MaxWait is not asked again and not waited on: its URLs get no line and
// are counted as put off, with the time a resumed run may start, while the
// other hosts' URLs are done. A Retry-After within MaxWait is waited on
// and retried. The old batch waited MaxWait, asked again (four times in
// all) and wrote the 429 as the URL's answer, so --resume never redid it.
func TestBatchLongRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		retryAfter func() string
		wantAsked  int    // requests to the busy host
		want       string // the lines, then the put-off URLs by kind
	}{
		{"seconds beyond max-wait", 429, func() string { return "30" }, 1,
			"other/1 ok\nother/2 ok\nput off: map[http-429:3]"},
		{"HTTP date an hour ahead", 503, func() string { return time.Now().Add(time.Hour).UTC().Format(http.TimeFormat) }, 1,
			"other/1 ok\nother/2 ok\nput off: map[http-503:3]"},
		{"seconds within max-wait", 429, func() string { return "1" }, 4,
			"busy/1 ok\nbusy/2 ok\nbusy/3 ok\nother/1 ok\nother/2 ok\nput off: map[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			asked, refused := 0, false
			busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				asked++
				first := !refused
				refused = true
				mu.Unlock()
				if first {
					w.Header().Set("Retry-After", tc.retryAfter())
					http.Error(w, "slow down", tc.status)
					return
				}
				fmt.Fprint(w, "busy page")
			}))
			defer busy.Close()
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, "other page")
			}))
			defer other.Close()
			list := busy.URL + "/1\n" + other.URL + "/1\n" + busy.URL + "/2\n" + busy.URL + "/3\n" + other.URL + "/2\n"
			c := fetch.NewClient(nil)
			defer c.Close()
			job := func(ctx context.Context, u string, _ int) (*extract.Result, error) { return c.Fetch(ctx, u) }
			var out bytes.Buffer
			start := time.Now()
			sum, err := Run(context.Background(), strings.NewReader(list), &out, job,
				&Options{Concurrency: 1, MaxWait: 2 * time.Second, RetryBase: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var j struct{ URL, Error string }
				json.Unmarshal([]byte(l), &j)
				u := strings.NewReplacer(busy.URL, "busy", other.URL, "other").Replace(j.URL)
				if j.Error != "" {
					got = append(got, u+" "+j.Error)
				} else {
					got = append(got, u+" ok")
				}
			}
			sort.Strings(got)
			got = append(got, fmt.Sprint("put off: ", sum.Unfinished))
			if diff := cmp.Diff(tc.want, strings.Join(got, "\n")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			mu.Lock()
			defer mu.Unlock()
			if asked != tc.wantAsked {
				t.Errorf("the busy host was asked %d times, want %d", asked, tc.wantAsked)
			}
			if n := sum.UnfinishedCount(); n > 0 && sum.ResumeAfter.Before(start.Add(25*time.Second)) {
				t.Errorf("ResumeAfter %s is not when the host said it is ready", sum.ResumeAfter)
			}
		})
	}
}

// lineWriter hands each line written to it to a channel.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// TestBatchStreamsInput: a list that is still being written (stdin fed by
// a program that waits for each result before it writes the next URL, a
// list that never ends) gets each URL's line as soon as it is done, and
// cancelling the batch stops it while a read of the list waits. The batch
// used to read the list ahead before starting anything: it waited for 256
// URLs or the end of the list, so such a pipeline hung, Ctrl-C included.
func TestBatchStreamsInput(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "page "+r.URL.Path)
	}))
	defer srv.Close()
	tests := []struct {
		name        string
		concurrency int
		urls        int
	}{
		{"one at a time", 1, 3},
		{"four workers", 4, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			c := fetch.NewClient(nil)
			defer c.Close()
			job := func(ctx context.Context, u string, _ int) (*extract.Result, error) { return c.Fetch(ctx, u) }
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			lines := make(lineWriter, 1)
			type ended struct {
				sum *Summary
				err error
			}
			done := make(chan ended, 1)
			go func() {
				sum, err := Run(ctx, pr, lines, job, &Options{Concurrency: tc.concurrency})
				done <- ended{sum, err}
			}()
			var got []string
			for i := range tc.urls {
				u := fmt.Sprintf("%s/%d", srv.URL, i)
				go fmt.Fprintln(pw, u) // the list's writer, waiting for the line before the next URL
				select {
				case l := <-lines:
					var j struct{ URL, Content string }
					json.Unmarshal([]byte(l), &j)
					got = append(got, strings.TrimPrefix(j.URL, srv.URL)+" "+j.Content)
				case <-time.After(20 * time.Second):
					t.Fatalf("no line for %s 20 s after it was listed (lines so far: %q)", u, got)
				}
			}
			var want []string
			for i := range tc.urls {
				want = append(want, fmt.Sprintf("/%d page /%d", i, i))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			cancel() // the list is still open: Ctrl-C
			select {
			case e := <-done:
				if e.err != nil || !e.sum.Interrupted || e.sum.OK != tc.urls {
					t.Errorf("cancelled batch: err %v, interrupted %v, %d ok", e.err, e.sum.Interrupted, e.sum.OK)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the batch did not stop within 20 s of its cancel while the list was open")
			}
		})
	}
}

// TestBatchLongCrawlDelay: a robots.txt Crawl-delay longer than MaxWait is
// obeyed by fetching one URL of the host and putting its others off for a
// resumed run (kind "crawl-delay"), not by waiting the delay before each:
// a Crawl-delay of 3600 stalled the batch an hour a URL. A short one is
// waited between the requests.
func TestBatchLongCrawlDelay(t *testing.T) {
	tests := []struct {
		name       string
		crawlDelay string
		want       string // lines, then the put-off URLs by kind
	}{
		{"an hour", "3600", "1 line; put off: map[crawl-delay:2]"},
		{"a second", "1", "3 lines; put off: map[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					fmt.Fprint(w, "User-agent: *\nCrawl-delay: "+tc.crawlDelay+"\n")
					return
				}
				fmt.Fprint(w, "page")
			}))
			defer srv.Close()
			c := fetch.NewClient(nil)
			defer c.Close()
			job := func(ctx context.Context, u string, _ int) (*extract.Result, error) { return c.Fetch(ctx, u) }
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var out bytes.Buffer
			list := srv.URL + "/1\n" + srv.URL + "/2\n" + srv.URL + "/3\n"
			sum, err := Run(ctx, strings.NewReader(list), &out, job,
				&Options{Concurrency: 1, MaxWait: 2 * time.Second, Robots: job})
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%d line; put off: %v", strings.Count(out.String(), "\n"), sum.Unfinished)
			if strings.Count(out.String(), "\n") != 1 {
				got = strings.Replace(got, " line;", " lines;", 1)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if sum.Interrupted {
				t.Errorf("the batch was still waiting after 30 s")
			}
		})
	}
}

// TestBatchRetriesDroppedConnections: a connection the server resets or
// closes before it answers is tried again, as a 5xx is (it was a failure
// line, "cannot connect to HOST: connection reset by peer", that --resume
// then skipped); a host that refuses connections is not.
func TestBatchRetriesDroppedConnections(t *testing.T) {
	tests := []struct {
		name  string
		drop  func(c *net.TCPConn) // what the server does to the first connection
		want  string
		tries int
	}{
		{"reset", func(c *net.TCPConn) { c.SetLinger(0); c.Close() }, "ok", 2},
		{"closed unanswered", func(c *net.TCPConn) { c.Close() }, "ok", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var mu sync.Mutex
			conns := 0
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					mu.Lock()
					conns++
					first := conns == 1
					mu.Unlock()
					go func() {
						buf := make([]byte, 4096)
						c.Read(buf)
						if first {
							tc.drop(c.(*net.TCPConn))
							return
						}
						fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
						c.Close()
					}()
				}
			}()
			c := fetch.NewClient(nil)
			defer c.Close()
			job := func(ctx context.Context, u string, _ int) (*extract.Result, error) { return c.Fetch(ctx, u) }
			var out bytes.Buffer
			_, err = Run(context.Background(), strings.NewReader("http://"+ln.Addr().String()+"/x\n"), &out, job,
				&Options{RetryBase: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			var j struct{ Content, Error string }
			json.Unmarshal(out.Bytes(), &j)
			got := j.Content
			if j.Error != "" {
				got = "error: " + j.Error
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(fmt.Sprintf("%s after %d connections", tc.want, tc.tries), fmt.Sprintf("%s after %d connections", got, conns)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens there now
		c := fetch.NewClient(nil)
		defer c.Close()
		job := func(ctx context.Context, u string, _ int) (*extract.Result, error) { return c.Fetch(ctx, u) }
		var out bytes.Buffer
		sum, err := Run(context.Background(), strings.NewReader("http://"+addr+"/x\n"), &out, job,
			&Options{RetryBase: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Retried != 0 || sum.Failed["unreachable"] != 1 {
			t.Errorf("refused: %d retries, failed %v; want none and 1 unreachable", sum.Retried, sum.Failed)
		}
	})
}

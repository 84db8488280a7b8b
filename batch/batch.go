package batch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/fetch"
)

// Defaults used when an Options field is zero.
const (
	DefaultRetries = 3
	// defaultRetryBase is the first backoff after a 429 or 5xx without
	// Retry-After; each further try doubles it (with jitter).
	defaultRetryBase = 500 * time.Millisecond
	// DefaultMaxRetryWait caps one backoff. A server whose Retry-After
	// asks for longer is not made to wait on: its URLs are put off (no
	// line) for a later --resume, so a host asking for an hour neither
	// stalls the batch for an hour nor is asked again before then.
	DefaultMaxRetryWait = 2 * time.Minute
)

// errRobots is the kind of the failure of a URL that robots.txt disallows.
var errRobots = errors.New("disallowed by robots.txt")

// Job fetches (or renders) one URL of a batch. attempt counts from 0.
// It returns the page, or an error and, when the server answered, the page
// too (as Client.Fetch does).
type Job func(ctx context.Context, url string, attempt int) (*extract.Result, error)

// Options configure Run. A nil *Options, or a zero field,
// means the default.
type Options struct {
	Concurrency int           // URLs in flight at once (default 4)
	PerHost     int           // URLs in flight at once on one host (0: no limit but Concurrency)
	Delay       time.Duration // at least this long between two starts on one host
	Retries     int           // tries after the first on 429, 5xx and lost connections (default 3; -1 none)
	RetryBase   time.Duration // first backoff (default DefaultRetryBase)
	MaxWait     time.Duration // cap on one backoff; a longer Retry-After puts the host's URLs off (default DefaultMaxRetryWait)
	// Robots, when set, fetches each host's robots.txt with it once and
	// fails the URLs it disallows for RobotsAgent (errRobots). Its
	// Crawl-delay raises Delay for that host.
	Robots      Job
	RobotsAgent string
	// RobotsRules, when set, are the rules obeyed instead (made with
	// NewRobots), so the Job's redirects can be checked against the same
	// cache (Robots.CheckRedirect).
	RobotsRules *Robots
	Shard       Shard          // only the URLs of this shard (the zero Shard is all)
	Done        DoneSet        // URLs already answered: skipped (resume)
	Format      extract.Format // content format of each line (json means markdown)
	// Progress, when set, is called after each line is written, from one
	// goroutine.
	Progress func(Progress)
}

// Progress is how far a batch is.
type Progress struct {
	OK, Failed int
	Elapsed    time.Duration
}

// Summary is what a batch did.
type Summary struct {
	OK          int
	Failed      map[string]int // by FailureKind
	Skipped     int            // already answered in the output (resume)
	OtherShards int            // belong to other shards
	Retried     int            // tries after a first one
	// Unfinished counts, by failureKind, the URLs put off with no line,
	// for a resumed run to do: every browser of a pool was lost, or their
	// host asked (Retry-After) to wait longer than MaxWait.
	Unfinished map[string]int
	// ResumeAfter is when the hosts that asked to wait are ready again
	// (the latest of them), or zero.
	ResumeAfter time.Time
	Elapsed     time.Duration
	Interrupted bool // the context was cancelled before the list was done
}

// UnfinishedCount is how many URLs were put off for a resumed run.
func (s *Summary) UnfinishedCount() int {
	n := 0
	for _, c := range s.Unfinished {
		n += c
	}
	return n
}

// UnfinishedText is "14 put off (14 no-browser)", or "".
func (s *Summary) UnfinishedText() string {
	n := s.UnfinishedCount()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d put off (%s)", n, byKind(s.Unfinished))
}

// Done is how many URLs got a line.
func (s *Summary) Done() int {
	n := s.OK
	for _, c := range s.Failed {
		n += c
	}
	return n
}

// FailedText is "3 failed (2 http-404, 1 timeout)".
func (s *Summary) FailedText() string {
	total := s.Done() - s.OK
	if total == 0 {
		return "0 failed"
	}
	return fmt.Sprintf("%d failed (%s)", total, byKind(s.Failed))
}

// byKind is "2 http-404, 1 timeout": the most frequent first.
func byKind(counts map[string]int) string {
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if counts[kinds[i]] != counts[kinds[j]] {
			return counts[kinds[i]] > counts[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return strings.Join(parts, ", ")
}

// failureKind names the kind of a batch failure for summaries and the
// error_kind field: "http-404", "timeout", "unreachable", "robots" ... An
// error from another layer names its own kind with a FailureKind() string
// method; any other is "error".
func failureKind(err error) string {
	var fe *extract.Error
	if errors.As(err, &fe) && fe.Kind == fetch.ErrHTTPStatus {
		return "http-" + strconv.Itoa(fe.Status)
	}
	var k interface{ FailureKind() string }
	if errors.As(err, &k) {
		return k.FailureKind()
	}
	for _, c := range []struct {
		err  error
		name string
	}{
		{errRobots, "robots"}, // before ErrRedirectRefused: a redirect robots.txt disallows
		{fetch.ErrBadURL, "bad-url"}, {fetch.ErrUnreachable, "unreachable"}, {fetch.ErrTLS, "tls"}, {fetch.ErrTimeout, "timeout"},
		{fetch.ErrTooManyRedirects, "redirects"}, {fetch.ErrRedirectLoop, "redirects"}, {fetch.ErrRedirectRefused, "refused"},
		{extract.ErrEmptyBody, "empty"}, {extract.ErrBadSelector, "bad-selector"}, {extract.ErrNoMatch, "no-match"}, {fetch.ErrBody, "body"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "error"
}

// retryable reports whether a failure may pass if tried again; an error
// says so with a Retryable() bool method (as *extract.Error does).
func retryable(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && r.Retryable()
}

// unfinished reports whether a URL's failure is not its own but the
// batch's (no browser left to render on): it gets no line, so a resumed
// run does it. An error says so with an Unfinished() bool method.
func unfinished(err error) bool {
	var u interface{ Unfinished() bool }
	return errors.As(err, &u) && u.Unfinished()
}

// Shard is part K of N of a URL list, 0 ≤ K < N; the zero Shard is the
// whole list.
type Shard struct{ K, N int }

// ParseShard reads "K/N" (K from 0, as $JOB_COMPLETION_INDEX counts).
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("--shard %q: write it as K/N, e.g. 0/4 for the first of four shards", s)
	case ni < 1:
		return Shard{}, fmt.Errorf("--shard %q: N must be at least 1", s)
	case ki < 0 || ki >= ni:
		return Shard{}, fmt.Errorf("--shard %q: K must be 0 to %d (shards count from 0, like $JOB_COMPLETION_INDEX)", s, ni-1)
	}
	return Shard{ki, ni}, nil
}

// has reports whether url is in the shard. The partition is FNV-1a 64 of
// the URL as written (surrounding space trimmed) modulo N: stable across
// runs, machines and versions, so N processes split one list with no
// coordinator.
func (s Shard) has(url string) bool {
	if s.N <= 1 {
		return true
	}
	return urlHash(url)%uint64(s.N) == uint64(s.K)
}

func urlHash(u string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.TrimSpace(u)))
	return h.Sum64()
}

// DoneSet is the set of URLs a previous run already answered, held as
// sorted 64-bit hashes: 8 bytes a URL, so a million take 8 MB.
type DoneSet []uint64

// has reports whether url was answered.
func (d DoneSet) has(url string) bool {
	h := urlHash(url)
	i := sort.Search(len(d), func(i int) bool { return d[i] >= h })
	return i < len(d) && d[i] == h
}

// ReadDone reads the "url" of every whole JSON line of a batch output. It
// returns the set and the length of the whole lines: a last line cut short
// by a crash (no newline) is not counted, and the caller truncates the
// file there before appending. A whole line that is not a result is
// skipped, never cut: the lines after it stay.
func ReadDone(r io.Reader) (DoneSet, int64, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var set DoneSet
	var whole int64
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // a long line: copy it out and read the rest
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err == io.EOF {
			break // a last line without its newline is incomplete
		}
		if err != nil {
			return nil, 0, err
		}
		// A whole line that is not a result (a blank line, a note, two
		// files joined after a crash) is kept as it is and answers no URL:
		// only the last line can be one a crash cut short.
		if u, ok := lineURL(line); ok {
			set = append(set, urlHash(u))
		}
		whole += int64(len(line))
	}
	sort.Slice(set, func(i, j int) bool { return set[i] < set[j] })
	return set, whole, nil
}

// lineURL finds the "url" field of one result line; every line starts with
// it (jsonResult's first field).
func lineURL(line []byte) (string, bool) {
	const prefix = `{"url":`
	s := strings.TrimSpace(string(line))
	if !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, "}") {
		return "", false
	}
	rest := s[len(prefix):]
	if len(rest) == 0 || rest[0] != '"' {
		return "", false
	}
	end := 1
	for end < len(rest) && rest[end] != '"' {
		if rest[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(rest) {
		return "", false
	}
	u, err := strconv.Unquote(rest[:end+1])
	return u, err == nil
}

// Run reads URLs from in (one a line; blank lines and # comments
// skipped), runs job on each with o's limits, and writes one JSON line per
// URL to out as each finishes. Memory stays flat whatever the length of
// the list: only a window of URLs is held. A line is written whole with one
// Write, so a crash loses none that were written; a URL whose try was cut
// short by cancelling ctx gets no line, so a resumed run does it again.
// A failing URL gets a line with "error" and never stops the batch; only
// reading in or writing out fails Run.
func Run(ctx context.Context, in io.Reader, out io.Writer, job Job, o *Options) (*Summary, error) {
	b := newBatch(in, out, job, o)
	return b.run(ctx)
}

// Count counts the URLs Run would try from in with o (shard and
// done set applied), for a progress bar's total.
func Count(in io.Reader, o *Options) (int, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	sc := newURLScanner(in)
	n := 0
	for {
		u, ok := sc.next()
		if !ok {
			return n, sc.err
		}
		if opts.Shard.has(u) && !opts.Done.has(u) {
			n++
		}
	}
}

// urlScanner yields the URLs of a list one at a time.
type urlScanner struct {
	sc   *bufio.Scanner
	line int
	err  error
}

func newURLScanner(r io.Reader) *urlScanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return &urlScanner{sc: sc}
}

func (s *urlScanner) next() (string, bool) {
	for s.sc.Scan() {
		s.line++
		// A list saved by a Windows editor starts with a byte-order mark
		// (and ends its lines in CR LF, which TrimSpace drops).
		line := strings.TrimSpace(strings.TrimPrefix(s.sc.Text(), "\ufeff"))
		if line != "" && !strings.HasPrefix(line, "#") {
			return line, true
		}
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line %d is longer than 1 MiB", s.line+1)
		}
		s.err = err
	}
	return "", false
}

// hostOf is the scheduling key of a URL: its host and port, lower case
// ("" for a URL that does not parse; it fails at once anyway).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// backoff is the wait before try attempt+1: Retry-After when the server
// gave one, else base·2^attempt with ±25% jitter; at most max.
func backoff(attempt int, retryAfter, base, max time.Duration) time.Duration {
	d := retryAfter
	if d <= 0 {
		d = base << min(attempt, 16)
		d += time.Duration((rand.Float64() - 0.5) * 0.5 * float64(d))
	}
	return min(d, max)
}

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// batchLine is the part of a result line the batch tests look at.
type batchLineJSON struct {
	URL       string `json:"url"`
	Status    int    `json:"status"`
	Title     string `json:"title"`
	Error     string `json:"error"`
	ErrorKind string `json:"error_kind"`
	Content   string `json:"content"`
}

// readBatchOut parses every line of a batch output; a line that is not
// whole JSON fails the test.
func readBatchOut(t *testing.T, path string) []batchLineJSON {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []batchLineJSON
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "" {
			continue
		}
		var j batchLineJSON
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("%s line %d is not whole JSON (%v): %.80q", path, i+1, err, l)
		}
		lines = append(lines, j)
	}
	return lines
}

// pageServer serves /p/N as a small article, slowly enough that a batch
// is still running when the test acts on it.
func pageServer(t *testing.T, delay time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><article><h1>Page %s</h1>
<p>This is page %s of the batch, with a paragraph long enough to be the main content of it.</p></article></body></html>`,
			r.URL.Path, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeList(t *testing.T, dir string, urls []string) string {
	t.Helper()
	path := filepath.Join(dir, "urls.txt")
	if err := os.WriteFile(path, []byte("# a comment\n\n"+strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func pageURLs(base string, n int) []string {
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/p/%d", base, i)
	}
	return urls
}

// TestBatchResumeAfterKill: a batch process killed with SIGKILL half way,
// resumed and stopped with Ctrl-C, and resumed again leaves every URL in
// --out exactly once, each line whole.
func TestBatchResumeAfterKill(t *testing.T) {
	t.Parallel() // the binary, with its own config and state
	dir := t.TempDir()
	bin := program(t, browseragentPkg)
	srv := pageServer(t, 15*time.Millisecond)
	urls := pageURLs(srv.URL, 300)
	list := writeList(t, dir, urls)
	out := filepath.Join(dir, "out.jsonl")
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))

	first := exec.Command(bin, "fetch", "-i", list, "--out", out, "-c", "4")
	first.Env = env
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		data, _ := os.ReadFile(out)
		if n := strings.Count(string(data), "\n"); n >= 100 {
			break
		}
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatalf("the first run wrote fewer than 100 lines in 60 s")
		}
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	killedAt := len(readBatchOut(t, out))
	if killedAt >= len(urls) {
		t.Fatalf("the first run finished (%d lines) before it was killed", killedAt)
	}

	// A resumed run stopped with Ctrl-C (SIGINT) exits 130 with whole
	// lines only and says how to go on.
	second := exec.Command(bin, "fetch", "-i", list, "--out", out, "-c", "4", "--resume")
	second.Env = env
	var interrupted strings.Builder
	second.Stderr = &interrupted
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); scanLines(out) < killedAt+50; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			second.Process.Kill()
			t.Fatalf("the resumed run wrote fewer than 50 lines in 60 s")
		}
	}
	second.Process.Signal(syscall.SIGINT)
	second.Wait()
	if code := second.ProcessState.ExitCode(); code != 130 || !strings.Contains(interrupted.String(), "interrupted: run again with --resume to do the rest") {
		t.Errorf("Ctrl-C: exit %d, stderr %q", code, interrupted.String())
	}
	stoppedAt := len(readBatchOut(t, out))

	third := exec.Command(bin, "fetch", "-i", list, "--out", out, "-c", "4", "--resume")
	third.Env = env
	stderr, err := third.CombinedOutput()
	if err != nil {
		t.Fatalf("resumed run: %v\n%s", err, stderr)
	}
	seen := map[string]int{}
	for _, l := range readBatchOut(t, out) {
		seen[l.URL]++
		if l.Error != "" {
			t.Errorf("%s failed: %s", l.URL, l.Error)
		}
	}
	var wrong []string
	for _, u := range urls {
		if seen[u] != 1 {
			wrong = append(wrong, fmt.Sprintf("%s %d times", u, seen[u]))
		}
	}
	if len(seen) != len(urls) || len(wrong) > 0 {
		t.Errorf("after kill at %d lines, Ctrl-C at %d and --resume: %d distinct URLs of %d; not once: %v", killedAt, stoppedAt, len(seen), len(urls), wrong)
	}
	if want := fmt.Sprintf("already in %s", out); !strings.Contains(string(stderr), want) {
		t.Errorf("resumed run's summary lacks %q:\n%s", want, stderr)
	}
}

// TestBatchResumeCutLine: a last line a crash left half written is
// replaced, not kept beside a second copy.
func TestBatchResumeCutLine(t *testing.T) {
	srv := pageServer(t, 0)
	dir := t.TempDir()
	urls := pageURLs(srv.URL, 3)
	list := writeList(t, dir, urls)
	out := filepath.Join(dir, "out.jsonl")
	os.WriteFile(out, []byte(`{"url":"`+urls[0]+`","status":200}`+"\n"+`{"url":"`+urls[1]+`","sta`), 0o644)
	code, _, stderr := runCLI(t, "", "fetch", "-i", list, "--out", out, "--resume")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got []string
	for _, l := range readBatchOut(t, out) {
		got = append(got, l.URL)
	}
	sort.Strings(got)
	if diff := cmp.Diff(urls, got); diff != "" {
		t.Errorf("URLs in out (-want +got):\n%s", diff)
	}
}

// TestBatchShards: four shards of one list are disjoint and cover it, and
// each run says how many URLs it left to the others.
func TestBatchShards(t *testing.T) {
	srv := pageServer(t, 0)
	dir := t.TempDir()
	urls := pageURLs(srv.URL, 200)
	list := writeList(t, dir, urls)
	owner := map[string]int{}
	for k := range 4 {
		out := filepath.Join(dir, fmt.Sprintf("out-%d.jsonl", k))
		code, _, stderr := runCLI(t, "", "fetch", "-i", list, "--out", out, "--shard", fmt.Sprintf("%d/4", k), "-c", "8")
		if code != 0 {
			t.Fatalf("shard %d: exit %d: %s", k, code, stderr)
		}
		lines := readBatchOut(t, out)
		if len(lines) == 0 || len(lines) == len(urls) {
			t.Errorf("shard %d has %d of %d URLs: not a partition", k, len(lines), len(urls))
		}
		if want := fmt.Sprintf("%d in other shards", len(urls)-len(lines)); !strings.Contains(stderr, want) {
			t.Errorf("shard %d summary lacks %q: %s", k, want, stderr)
		}
		for _, l := range lines {
			if prev, ok := owner[l.URL]; ok {
				t.Errorf("%s is in shards %d and %d", l.URL, prev, k)
			}
			owner[l.URL] = k
		}
	}
	var missing []string
	for _, u := range urls {
		if _, ok := owner[u]; !ok {
			missing = append(missing, u)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no shard has %v", missing)
	}
}

// TestBatchRetries: 429 with Retry-After: 1 is tried again after that
// second and succeeds, a 503 is retried with backoff, a 404 is not, and the
// summary counts the failure by kind.
func TestBatchRetries(t *testing.T) {
	var mu sync.Mutex
	hits := map[string][]time.Time{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path] = append(hits[r.URL.Path], time.Now())
		n := len(hits[r.URL.Path])
		mu.Unlock()
		switch {
		case r.URL.Path == "/busy" && n == 1:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case r.URL.Path == "/flaky" && n <= 2:
			http.Error(w, "try later", http.StatusServiceUnavailable)
		case r.URL.Path == "/gone":
			http.NotFound(w, r)
		default:
			fmt.Fprintf(w, "<title>%s</title><p>Fine at last, after %d tries.</p>", r.URL.Path, n)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	list := writeList(t, dir, []string{srv.URL + "/busy", srv.URL + "/flaky", srv.URL + "/gone"})
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr := runCLI(t, "", "fetch", "-i", list, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := map[string]batchLineJSON{}
	for _, l := range readBatchOut(t, out) {
		got[strings.TrimPrefix(l.URL, srv.URL)] = batchLineJSON{Status: l.Status, ErrorKind: l.ErrorKind}
	}
	want := map[string]batchLineJSON{
		"/busy": {Status: 200}, "/flaky": {Status: 200}, "/gone": {Status: 404, ErrorKind: "http-404"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	tries := map[string]int{}
	for p, h := range hits {
		tries[p] = len(h)
	}
	if diff := cmp.Diff(map[string]int{"/busy": 2, "/flaky": 3, "/gone": 1}, tries); diff != "" {
		t.Errorf("requests per path (-want +got):\n%s", diff)
	}
	if b := hits["/busy"]; len(b) == 2 && b[1].Sub(b[0]) < 950*time.Millisecond {
		t.Errorf("the retry of /busy came %s after the 429, before its Retry-After: 1", b[1].Sub(b[0]))
	}
	for _, w := range []string{": 2 ok, 1 failed (1 http-404); 3 retries; written to " + out} {
		if !strings.Contains(stderr, w) {
			t.Errorf("summary lacks %q: %s", w, stderr)
		}
	}
}

// robotsSite serves robots at /robots.txt, with contentType as its
// Content-Type header (nil: none set, so Go sniffs one), and a small page at
// every other path. requested returns the paths asked for so far, sorted.
func robotsSite(t *testing.T, robots string, contentType []string) (srv *httptest.Server, requested func() []string) {
	var mu sync.Mutex
	var paths []string
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			if contentType != nil {
				w.Header()["Content-Type"] = contentType
			}
			fmt.Fprint(w, robots)
			return
		}
		fmt.Fprintf(w, "<title>%s</title><p>Some public text.</p>", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Sorted(slices.Values(paths))
	}
}

// batchRobots runs `fetch -i LIST --out OUT --robots -c 1` over urls and
// returns the lines it wrote; it fails t unless the batch exits 0.
func batchRobots(t *testing.T, urls ...string) []batchLineJSON {
	t.Helper()
	dir := t.TempDir()
	list := writeList(t, dir, urls)
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr := runCLI(t, "", "fetch", "-i", list, "--out", out, "--robots", "-c", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return readBatchOut(t, out)
}

// TestBatchRobots: with --robots a disallowed path is never requested and
// its line says why; other paths are fetched.
func TestBatchRobots(t *testing.T) {
	srv, requested := robotsSite(t, "User-agent: *\nDisallow: /private/\n", nil)
	got := map[string]string{}
	for _, l := range batchRobots(t, srv.URL+"/public/a", srv.URL+"/private/b", srv.URL+"/public/c") {
		got[strings.TrimPrefix(l.URL, srv.URL)] = l.ErrorKind + " " + l.Error
	}
	want := map[string]string{
		"/public/a":  " ",
		"/private/b": "robots robots.txt of " + strings.TrimPrefix(srv.URL, "http://") + " disallows " + srv.URL + "/private/b",
		"/public/c":  " ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/public/a", "/public/c", "/robots.txt"}, requested()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestBatchPerHostDelay: --per-host 1 --delay keeps one request at a time
// on a host, each starting at least the delay after the one before.
func TestBatchPerHostDelay(t *testing.T) {
	var mu sync.Mutex
	var starts []time.Time
	inflight, most := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		starts = append(starts, time.Now())
		inflight++
		most = max(most, inflight)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(w, "<title>x</title><p>A page of text for the batch.</p>")
		mu.Lock()
		inflight--
		mu.Unlock()
	}))
	defer srv.Close()
	dir := t.TempDir()
	list := writeList(t, dir, pageURLs(srv.URL, 5))
	code, _, stderr := runCLI(t, "", "fetch", "-i", list, "--out", filepath.Join(dir, "out.jsonl"), "-c", "4", "--per-host", "1", "--delay", "150ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 1 {
		t.Errorf("%d requests at once on one host with --per-host 1", most)
	}
	// The delay is kept between the requests browseragent sends; on a
	// loaded machine one may reach the server late, shortening the gap
	// after it, so the whole span is what is judged: n-1 delays, less
	// 100 ms of such lateness.
	if len(starts) != 5 {
		t.Fatalf("%d requests, want 5", len(starts))
	}
	if span, want := starts[4].Sub(starts[0]), 4*150*time.Millisecond-100*time.Millisecond; span < want {
		t.Errorf("5 requests under --delay 150ms spread over %s, want at least %s (starts %v)", span, want, starts)
	}
}

// TestBatchUsage: the batch flags' mistakes are usage errors that say what
// to write.
func TestBatchUsage(t *testing.T) {
	dir := t.TempDir()
	list := writeList(t, dir, []string{"http://127.0.0.1:1/"})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"resume without out", []string{"-i", list, "--resume"}, "browseragent: --resume needs --out FILE: the results already there are what it skips\n"},
		{"shard out of range", []string{"-i", list, "--shard", "4/4", "--out", filepath.Join(dir, "o")}, "browseragent: --shard \"4/4\": K must be 0 to 3 (shards count from 0, like $JOB_COMPLETION_INDEX)\n"},
		{"shard malformed", []string{"-i", list, "--shard", "half", "--out", filepath.Join(dir, "o")}, "browseragent: --shard \"half\": write it as K/N, e.g. 0/4 for the first of four shards\n"},
		{"batch flag without a batch", []string{"http://127.0.0.1:1/", "--per-host", "2"}, "browseragent: --resume, --per-host, --delay, --retries, --max-wait, --robots and --shard are for batches: add -i FILE or --out FILE\n"},
		{"concurrency beyond reason", []string{"-i", list, "-c", "100000", "--out", filepath.Join(dir, "o")}, "browseragent: --concurrency 100000 is too many: at most 1024 at once (a connection, or a browser tab, each)\n"},
		{"max-wait of nothing", []string{"-i", list, "--max-wait", "0s", "--out", filepath.Join(dir, "o")}, "browseragent: --max-wait must be more than 0 (e.g. 2m, or 1h to wait as long as a server asks up to an hour)\n"},
		{"pool without a batch", []string{"http://127.0.0.1:1/", "--render", "--ws-endpoint", "ws://127.0.0.1:1/a", "--ws-endpoint", "ws://127.0.0.1:1/b"}, "browseragent: several --ws-endpoint browsers are a pool for batches: add -i FILE or --out FILE\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", append([]string{"fetch"}, tc.args...)...)
			if diff := cmp.Diff(fmt.Sprintf("%d %s", 2, tc.want), fmt.Sprintf("%d %s", code, stderr)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatchUsageKeepsOut: a batch refused for bad usage (a mistyped list,
// a browser flag a batch cannot take) leaves the --out of an earlier run as
// it was: it used to be emptied before the list was even opened.
func TestBatchUsageKeepsOut(t *testing.T) {
	dir := t.TempDir()
	list := writeList(t, dir, []string{"http://127.0.0.1:1/"})
	earlier := `{"url":"http://127.0.0.1:1/","status":200}` + "\n"
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"out is the list", []string{"-i", "OUT"}, "browseragent: --out OUT is the URL list itself: give the results a file of their own\n"},
		{"out is the list, with --resume", []string{"-i", "OUT", "--resume"}, "browseragent: --out OUT is the URL list itself: give the results a file of their own\n"},
		{"missing list", []string{"-i", filepath.Join(dir, "nope.txt")},
			"browseragent: cannot read the URL list " + filepath.Join(dir, "nope.txt") + ": no such file or directory\n"},
		{"list is a directory", []string{"-i", dir},
			"browseragent: cannot read the URL list " + dir + ": it is a directory\n"},
		{"screenshot in a batch", []string{"-i", list, "--render", "--screenshot", filepath.Join(dir, "s.png")},
			"browseragent: --screenshot takes one page at a time; a batch cannot name a file per URL\n"},
		{"wait-for without render", []string{"-i", list, "--wait-for", "#x"},
			"browseragent: --wait-for, --screenshot, --sites and --connect need --render\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.jsonl")
			if err := os.WriteFile(out, []byte(earlier), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"fetch", "--out", out}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "OUT", out))
			}
			code, _, stderr := runCLI(t, "", args...)
			data, _ := os.ReadFile(out)
			got := fmt.Sprintf("exit %d\n%s--out:\n%s", code, stderr, data)
			want := fmt.Sprintf("exit %d\n%s--out:\n%s", exitUsage, strings.ReplaceAll(tc.stderr, "OUT", out), earlier)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatchListFiles: a list written on Windows (CR LF line ends, a
// byte-order mark before the first URL), with blank lines and comments,
// is read URL for URL: the first URL used to fail as malformed, its
// byte-order mark taken for part of it.
func TestBatchListFiles(t *testing.T) {
	srv := pageServer(t, 0)
	urls := pageURLs(srv.URL, 3)
	tests := []struct {
		name string
		list string
	}{
		{"LF", strings.Join(urls, "\n") + "\n"},
		{"CRLF, no newline at the end", strings.Join(urls, "\r\n")},
		{"byte-order mark and CRLF", "\ufeff" + strings.Join(urls, "\r\n") + "\r\n"},
		{"byte-order mark before a comment", "\ufeff# my list\r\n\r\n  \r\n" + strings.Join(urls, "\r\n") + "\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			list, out := filepath.Join(dir, "urls.txt"), filepath.Join(dir, "out.jsonl")
			if err := os.WriteFile(list, []byte(tc.list), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCLI(t, "", "fetch", "-i", list, "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got []string
			for _, l := range readBatchOut(t, out) {
				got = append(got, l.URL+" "+l.Error)
			}
			sort.Strings(got)
			var want []string
			for _, u := range urls {
				want = append(want, u+" ")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// scanLines counts the lines of r; used by the pool test to wait.
func scanLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
	}
	return n
}

// TestRenderPool: a --render batch over three Chromium endpoints spreads
// its pages over them; one killed mid-batch loses no page (its pages are
// rendered on the others) and the summary counts its failures. The batch
// is the binary with a TMPDIR, config and state of its own.
func TestRenderPool(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	bin := program(t, browseragentPkg)
	srv := pageServer(t, 250*time.Millisecond)
	var pool []*testutil.PersonsBrowser
	var ws []string
	for range 3 {
		p := testutil.StartPersonsBrowser(t, chrome, []string{"about:blank"}, nil)
		pool = append(pool, p)
		data, err := os.ReadFile(filepath.Join(p.Dir, "DevToolsActivePort"))
		if err != nil {
			t.Fatal(err)
		}
		port, path, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
		ws = append(ws, "ws://127.0.0.1:"+port+path)
	}
	tmp := t.TempDir() // a local browser would put its profile here
	urls := pageURLs(srv.URL, 30)
	list := writeList(t, tmp, urls)
	out := filepath.Join(tmp, "out.jsonl")
	args := []string{"fetch", "--render", "-i", list, "--out", out, "-c", "6"}
	for _, w := range ws {
		args = append(args, "--ws-endpoint", w)
	}
	type result struct {
		code   int
		stderr string
	}
	batch := exec.Command(bin, args...)
	batch.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"))
	var stderr strings.Builder
	batch.Stderr = &stderr
	if err := batch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { batch.Process.Kill() }) // a batch that hangs
	done := make(chan result, 1)
	go func() {
		batch.Wait()
		done <- result{batch.ProcessState.ExitCode(), stderr.String()}
	}()
	for deadline := time.Now().Add(90 * time.Second); scanLines(out) < 6; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the pool rendered fewer than 6 pages in 90 s")
		}
	}
	killedAt := time.Now()
	pool[0].Kill()
	var r result
	select {
	case r = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("the batch did not finish within 3 minutes of the kill")
	}
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	seen := map[string]int{}
	for _, l := range readBatchOut(t, out) {
		seen[l.URL]++
		if l.Error != "" || !strings.HasPrefix(l.Title, "Page /p/") {
			t.Errorf("%s: title %q, error %q", l.URL, l.Title, l.Error)
		}
	}
	for _, u := range urls {
		if seen[u] != 1 {
			t.Errorf("%s has %d lines, want 1", u, seen[u])
		}
	}
	if !strings.Contains(r.stderr, ws[0]+": ") || !strings.Contains(r.stderr, "(lost)") {
		t.Errorf("the summary does not count the lost browser's failures: %s", r.stderr)
	}
	for _, w := range ws[1:] {
		if strings.Contains(r.stderr, w+": 0 pages") || !strings.Contains(r.stderr, w+": ") {
			t.Errorf("the pages were not spread over %s: %s", w, r.stderr)
		}
	}
	t.Logf("finished %s after the kill: %s", time.Since(killedAt), r.stderr)
	testutil.WaitNoProcessWith(t, tmp) // no local browser was launched in the lost one's place
	for _, p := range pool[1:] {
		if !p.Running() {
			t.Errorf("a live browser of the pool was closed by the batch")
		}
	}
}

// TestRenderPoolAllLost: when every browser of a --render batch is lost,
// the pages not rendered get no line (they used to get "no-browser",
// "load" or a message meant for the shell, which --resume then skipped),
// the batch exits 75 and says so, and a run resumed on a new browser
// renders them: every URL in --out once, none failed. The summary and the
// errors never show the endpoints' ?token=.
func TestRenderPoolAllLost(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	bin := program(t, browseragentPkg)
	srv := pageServer(t, 300*time.Millisecond)
	wsOf := func(p *testutil.PersonsBrowser) string {
		data, err := os.ReadFile(filepath.Join(p.Dir, "DevToolsActivePort"))
		if err != nil {
			t.Fatal(err)
		}
		port, path, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
		return "ws://127.0.0.1:" + port + path + "?token=s3cret-t0ken"
	}
	tests := []struct {
		name      string
		endpoints int // the same browser, given this many times
	}{
		{"one endpoint", 1},
		{"the same browser twice", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			urls := pageURLs(srv.URL, 16)
			list := writeList(t, tmp, urls)
			out := filepath.Join(tmp, "out.jsonl")
			run := func(ws string, extra ...string) *exec.Cmd {
				args := []string{"fetch", "--render", "-i", list, "--out", out, "-c", "2"}
				for range tc.endpoints {
					args = append(args, "--ws-endpoint", ws)
				}
				cmd := exec.Command(bin, append(args, extra...)...)
				cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"))
				return cmd
			}
			first := testutil.StartPersonsBrowser(t, chrome, []string{"about:blank"}, nil)
			batch := run(wsOf(first))
			var stderr strings.Builder
			batch.Stderr = &stderr
			if err := batch.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { batch.Process.Kill() })
			for deadline := time.Now().Add(90 * time.Second); scanLines(out) < 3; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("fewer than 3 pages rendered in 90 s: %s", stderr.String())
				}
			}
			first.Kill()
			batch.Wait()
			code, summary := batch.ProcessState.ExitCode(), stderr.String()
			lines := readBatchOut(t, out)
			var failed []string
			for _, l := range lines {
				if l.Error != "" {
					failed = append(failed, l.ErrorKind+": "+l.Error)
				}
			}
			if diff := cmp.Diff([]string(nil), failed); diff != "" {
				t.Errorf("lines with an error after the browser was lost (-want +got):\n%s", diff)
			}
			if code != exitFetchUnfinished || !strings.Contains(summary, "put off (") || !strings.Contains(summary, "run again with --resume") {
				t.Errorf("exit %d (want %d), summary %q", code, exitFetchUnfinished, summary)
			}
			if len(lines) == len(urls) {
				t.Fatalf("the batch finished before the browser was killed: %s", summary)
			}
			second := testutil.StartPersonsBrowser(t, chrome, []string{"about:blank"}, nil)
			resumed := run(wsOf(second), "--resume")
			rerr, err := resumed.CombinedOutput()
			if err != nil {
				t.Fatalf("resumed run: %v\n%s", err, rerr)
			}
			seen := map[string]int{}
			for _, l := range readBatchOut(t, out) {
				seen[l.URL]++
				if l.Error != "" {
					t.Errorf("%s: %s", l.URL, l.Error)
				}
			}
			for _, u := range urls {
				if seen[u] != 1 {
					t.Errorf("%s has %d lines, want 1", u, seen[u])
				}
			}
			if all := summary + string(rerr); strings.Contains(all, "s3cret") {
				t.Errorf("the endpoint's token is shown:\n%s", all)
			}
			testutil.WaitNoProcessWith(t, tmp)
		})
	}
}

// TestBatchRobotsServedAs: robots.txt is obeyed whatever Content-Type it
// comes with. One sent as text/html (a site's web app answering for it)
// used to be extracted as an article: its lines ran together, no rule was
// read and every disallowed URL was fetched.
func TestBatchRobotsServedAs(t *testing.T) {
	tests := []struct{ name, contentType string }{
		{"text/plain", "text/plain; charset=utf-8"},
		{"text/html", "text/html; charset=utf-8"},
		{"no type", ""},
		{"octet-stream", "application/octet-stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, requested := robotsSite(t, "User-agent: *\nDisallow: /private/\n\nUser-agent: browseragent\nDisallow: /secret/\n", []string{tc.contentType})
			batchRobots(t, srv.URL+"/public/a", srv.URL+"/private/b", srv.URL+"/secret/c")
			// The agent's own group applies: /secret/ is disallowed, /private/ (the * group's) is not.
			if diff := cmp.Diff([]string{"/private/b", "/public/a", "/robots.txt"}, requested()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatchRobotsRedirects: with --robots, a redirect is judged by its
// target's robots.txt before it is followed. The batch used to check only
// the URL as listed, so a redirect carried it to pages robots.txt
// disallows, and onto hosts whose robots.txt disallows everything.
func TestBatchRobotsRedirects(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	site := func(name, robots string, robotsStatus int) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			asked = append(asked, name+r.URL.Path)
			mu.Unlock()
			switch {
			case r.URL.Path == "/robots.txt":
				w.WriteHeader(robotsStatus)
				fmt.Fprint(w, robots)
			case r.URL.Path == "/go":
				http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
			default:
				fmt.Fprintf(w, "<title>%s</title><p>Some public text.</p>", r.URL.Path)
			}
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	from := site("from", "User-agent: *\nAllow: /\n", 200)
	strict := site("strict", "User-agent: *\nDisallow: /private/\n", 200)
	broken := site("broken", "down", 503)
	tests := []struct {
		name, to string
		want     string // error_kind
	}{
		{"to a disallowed page", strict.URL + "/private/p", "robots"},
		{"to an allowed page", strict.URL + "/public/p", ""},
		{"to a host whose robots.txt fails", broken.URL + "/any", "robots"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			asked = nil
			mu.Unlock()
			dir := t.TempDir()
			list := writeList(t, dir, []string{from.URL + "/go?to=" + tc.to})
			out := filepath.Join(dir, "out.jsonl")
			code, _, stderr := runCLI(t, "", "fetch", "-i", list, "--out", out, "--robots")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var kinds []string
			for _, l := range readBatchOut(t, out) {
				kinds = append(kinds, l.ErrorKind)
			}
			if diff := cmp.Diff([]string{tc.want}, kinds); diff != "" {
				t.Errorf("error_kind (-want +got):\n%s", diff)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, a := range asked {
				if strings.HasPrefix(a, "strict/private/") || strings.HasPrefix(a, "broken/") && a != "broken/robots.txt" {
					t.Errorf("requested %s, which robots.txt disallows (requests: %v)", a, asked)
				}
			}
		})
	}
}

// TestRenderPoolEndpointDownAtStart: a pool goes on without a browser
// that cannot be attached at the start, as it does without one lost
// later, and says so; only when none can be attached does the batch fail.
// The whole batch used to fail on the first endpoint that did not answer.
// No message shows an endpoint's ?token=.
func TestRenderPoolEndpointDownAtStart(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	bin := program(t, browseragentPkg)
	srv := pageServer(t, 0)
	live := testutil.StartPersonsBrowser(t, chrome, []string{"about:blank"}, nil)
	data, err := os.ReadFile(filepath.Join(live.Dir, "DevToolsActivePort"))
	if err != nil {
		t.Fatal(err)
	}
	port, path, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	up := "ws://127.0.0.1:" + port + path + "?token=s3cret-t0ken"
	down := "ws://127.0.0.1:1/devtools/browser/gone?token=s3cret-t0ken"
	tests := []struct {
		name      string
		endpoints []string
		code      int
		lines     int
		stderr    []string // substrings
	}{
		{"one of two down", []string{down, up}, 0, 4, []string{
			"browseragent: warning: cannot attach #1 ws://127.0.0.1:1/devtools/browser/gone?token=xxx (",
			"#1 ws://127.0.0.1:1/devtools/browser/gone?token=xxx: not attached; #2 ws://127.0.0.1:" + port + path + "?token=xxx: 4 pages, 0 failed"}},
		{"both down", []string{down, down}, 1, 0, []string{"browseragent: none of the 2 --ws-endpoint browsers could be attached; the first: "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			urls := pageURLs(srv.URL, 4)
			list := writeList(t, tmp, urls)
			out := filepath.Join(tmp, "out.jsonl")
			args := []string{"fetch", "--render", "-i", list, "--out", out, "-c", "2"}
			for _, w := range tc.endpoints {
				args = append(args, "--ws-endpoint", w)
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"))
			stderr, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			var ok int
			if tc.lines > 0 {
				for _, l := range readBatchOut(t, out) {
					if l.Error == "" {
						ok++
					}
				}
			}
			if ok != tc.lines {
				t.Errorf("%d pages rendered, want %d: %s", ok, tc.lines, stderr)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(string(stderr), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if strings.Contains(string(stderr), "s3cret") {
				t.Errorf("the endpoint's token is shown:\n%s", stderr)
			}
			testutil.WaitNoProcessWith(t, tmp)
		})
	}
}

// TestBatchProgressInTerminal runs batches in a real terminal (tmux on a
// socket of its own): with the lines going to a file, stderr shows a bar
// with the count of the list, the rate and the time left, Ctrl-C stops the
// batch (exit 130) leaving only whole lines and says how to go on; with
// the lines on the terminal itself no bar is drawn into them (it was, a
// bar between every two lines).
func TestBatchProgressInTerminal(t *testing.T) {
	t.Parallel()
	testutil.RequireProgram(t, "tmux")
	testutil.RequireProgram(t, "bash")
	bin := program(t, browseragentPkg)
	srv := pageServer(t, 150*time.Millisecond)
	tests := []struct {
		name    string
		out     bool // --out FILE, else the lines go to the terminal
		wantBar bool
	}{
		{"lines to a file", true, true},
		{"lines on the terminal", false, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			list := writeList(t, dir, pageURLs(srv.URL, 40))
			out := filepath.Join(dir, "out.jsonl")
			cmd := bin + " fetch -i " + list + " -c 1"
			if tc.out {
				cmd += " --out " + out
			}
			tm := &ttySession{t: t, socket: filepath.Join(dir, fmt.Sprintf("tmux-%d.sock", i))}
			tm.run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "400", "-y", "40", "env", "-i",
				"PATH="+os.Getenv("PATH"), "HOME="+os.Getenv("HOME"), "TERM=xterm-256color",
				"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
				"bash", "-c", cmd+"; echo EXIT=$?; sleep 60") // bash waits on, as a person's shell does; dash dies with the Ctrl-C
			t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
			if tc.out {
				tm.waitFor("URL/s", 60*time.Second)
				if sc := tm.screen(); !strings.Contains(sc, "fetching") || !strings.Contains(sc, "/40, ") {
					t.Errorf("the bar does not show the list's count:\n%s", sc)
				}
				tm.keys("C-c")
				tm.waitFor("EXIT=", 30*time.Second)
				sc := tm.screen()
				if !strings.Contains(sc, "interrupted: run again with --resume to do the rest") || !strings.Contains(sc, "EXIT=130") {
					t.Errorf("Ctrl-C:\n%s", sc)
				}
				if n := len(readBatchOut(t, out)); n == 0 || n == 40 {
					t.Errorf("%d lines after Ctrl-C, want some of 40", n)
				}
				return
			}
			tm.waitFor("EXIT=0", 90*time.Second)
			if sc := tm.screen(); strings.Contains(sc, "URL/s") || strings.Count(sc, `{"url":`) != 40 {
				t.Errorf("lines on the terminal: want the 40 lines and no bar:\n%s", sc)
			}
		})
	}
}

// TestRenderBatchInterrupted: a --render batch stopped with Ctrl-C exits
// 130 with whole lines, leaves no browser process, and does not count the
// pages it cut short as the browser's failures (the summary said
// "browsers local: 7 pages, 3 failed" of a browser that failed nothing).
func TestRenderBatchInterrupted(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	bin := program(t, browseragentPkg)
	srv := pageServer(t, 400*time.Millisecond)
	tests := []struct {
		name   string
		signal os.Signal
	}{
		{"Ctrl-C", os.Interrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			list := writeList(t, tmp, pageURLs(srv.URL, 30))
			out := filepath.Join(tmp, "out.jsonl")
			batch := exec.Command(bin, "fetch", "--render", "-i", list, "--out", out, "-c", "3")
			batch.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"))
			var stderr strings.Builder
			batch.Stderr = &stderr
			if err := batch.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { batch.Process.Kill() })
			for deadline := time.Now().Add(90 * time.Second); scanLines(out) < 2; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("fewer than 2 pages rendered in 90 s: %s", stderr.String())
				}
			}
			batch.Process.Signal(tc.signal)
			batch.Wait()
			lines := readBatchOut(t, out)
			got := fmt.Sprintf("exit %d, interrupted %v, browser failures shown %v",
				batch.ProcessState.ExitCode(), strings.Contains(stderr.String(), "interrupted: run again with --resume"),
				strings.Contains(stderr.String(), "browsers local"))
			if diff := cmp.Diff("exit 130, interrupted true, browser failures shown false", got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%s", diff, stderr.String())
			}
			for _, l := range lines {
				if l.Error != "" {
					t.Errorf("%s: %s", l.URL, l.Error)
				}
			}
			testutil.WaitNoProcessWith(t, tmp)
		})
	}
}

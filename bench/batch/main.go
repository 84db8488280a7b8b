//go:build linux

// Command batch-bench measures `browseragent fetch -i` batches, every page
// served on 127.0.0.1:
//
//   - memory: a 1 000 000-line URL list, plain fetch, stopped with Ctrl-C
//     (SIGINT) after 20 000 pages; it prints the peak RSS (VmHWM) at
//     2 000, 10 000 and 20 000 pages, and beside it the peak RSS of a
//     2 000-line list run to its end: equal figures at 2 000 pages mean
//     memory does not grow with the list, flat ones that it does not grow
//     with the pages done.
//   - render throughput: N pages rendered with --render on one, then two
//     local Chromium endpoints (--ws-endpoint), pages per second and per
//     browser.
//
// Run it with:
//
//	go run ./bench/batch [-lines 1000000] [-cut 20000] [-render 60]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// page is a small server-rendered article, about 4 KB.
var page = `<!doctype html><html lang="en"><head><title>Bench article</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav><article><h1>Bench article</h1>` +
	strings.Repeat("<p>A paragraph of the benchmark article, with enough words in it to look like the body of a real page.</p>\n", 30) +
	`</article><footer>Footer text</footer></body></html>`

func main() {
	lines := flag.Int("lines", 1_000_000, "lines of the big URL list")
	cut := flag.Int("cut", 20_000, "pages after which the big batch is stopped")
	conc := flag.Int("c", 8, "--concurrency of the plain batches")
	render := flag.Int("render", 60, "pages of the render runs (0 skips them)")
	flag.Parse()
	if err := run(*lines, *cut, *conc, *render); err != nil {
		fmt.Fprintln(os.Stderr, "batch-bench:", err)
		os.Exit(1)
	}
}

func run(lines, cut, conc, render int) error {
	dir, err := os.MkdirTemp("", "batch-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := testutil.BuildBrowseragent(dir)
	if err != nil {
		return err
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))

	big, err := writeList(dir, "big.txt", srv.URL, lines)
	if err != nil {
		return err
	}
	fmt.Printf("plain fetch, -c %d, pages of %d bytes served on 127.0.0.1\n", conc, len(page))
	marks := []int{2_000, 10_000, cut} // 2 000 is also the peer's length
	m, err := measure(bin, env, []string{"fetch", "-i", big, "--out", filepath.Join(dir, "big.jsonl"), "-c", strconv.Itoa(conc)}, filepath.Join(dir, "big.jsonl"), cut, marks)
	if err != nil {
		return err
	}
	fmt.Printf("  %d-line list, stopped at %d pages: peak RSS %s (after %s); %.0f pages/s\n",
		lines, m.pages, mib(m.peak), m.marksText(marks), float64(m.pages)/m.elapsed.Seconds())
	const peer = 2_000
	small, err := writeList(dir, "small.txt", srv.URL, peer)
	if err != nil {
		return err
	}
	s, err := measure(bin, env, []string{"fetch", "-i", small, "--out", filepath.Join(dir, "small.jsonl"), "-c", strconv.Itoa(conc)}, filepath.Join(dir, "small.jsonl"), 0, nil)
	if err != nil {
		return err
	}
	fmt.Printf("  %d-line list, run to its end (%d pages): peak RSS %s; %.0f pages/s\n", peer, s.pages, mib(s.peak), float64(s.pages)/s.elapsed.Seconds())
	fmt.Printf("  peak RSS at %d pages, %d-line list / %d-line list: %.2f; after %d pages / after %d: %.2f\n",
		peer, lines, peer, float64(m.at[peer])/float64(s.peak), cut, peer, float64(m.peak)/float64(m.at[peer]))
	if render > 0 {
		return renderRuns(bin, env, dir, srv.URL, render)
	}
	return nil
}

// measurement is one batch process's figures.
type measurement struct {
	pages   int
	peak    int64 // VmHWM, bytes
	at      map[int]int64
	elapsed time.Duration
}

func (m *measurement) marksText(marks []int) string {
	var parts []string
	for _, k := range marks {
		parts = append(parts, fmt.Sprintf("%d pages: %s", k, mib(m.at[k])))
	}
	return strings.Join(parts, ", ")
}

// measure runs the batch and samples its peak RSS and output lines every
// 20 ms; with stopAt > 0 it sends SIGINT (Ctrl-C) once that many lines are
// written.
func measure(bin string, env, args []string, out string, stopAt int, marks []int) (*measurement, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	m := &measurement{at: map[int]int64{}}
	counter := &lineCounter{path: out}
	stopped := false
	for {
		select {
		case err := <-exited:
			m.elapsed = time.Since(start)
			m.pages = counter.count()
			if err != nil && !stopped {
				return nil, fmt.Errorf("%v: %v\n%s", args, err, stderr.String())
			}
			return m, nil
		case <-time.After(20 * time.Millisecond):
		}
		if hwm := vmHWM(cmd.Process.Pid); hwm > m.peak {
			m.peak = hwm
		}
		n := counter.count()
		for _, k := range marks {
			if _, ok := m.at[k]; !ok && n >= k {
				m.at[k] = m.peak
			}
		}
		if stopAt > 0 && n >= stopAt && !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGINT)
		}
	}
}

// lineCounter counts the lines of a growing file, reading only what was
// added since the last call.
type lineCounter struct {
	path string
	off  int64
	n    int
}

func (c *lineCounter) count() int {
	f, err := os.Open(c.path)
	if err != nil {
		return c.n
	}
	defer f.Close()
	f.Seek(c.off, 0)
	buf := make([]byte, 1<<20)
	for {
		k, err := f.Read(buf)
		for _, b := range buf[:k] {
			if b == '\n' {
				c.n++
			}
		}
		c.off += int64(k)
		if err != nil {
			return c.n
		}
	}
}

// vmHWM is the process's peak resident set size.
func vmHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func writeList(dir, name, base string, n int) (string, error) {
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		fmt.Fprintf(w, "%s/article/%d\n", base, i)
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return path, f.Close()
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// renderRuns renders n pages on one, then two local Chromium endpoints.
func renderRuns(bin string, env []string, dir, base string, n int) error {
	list, err := writeList(dir, "render.txt", base, n)
	if err != nil {
		return err
	}
	fmt.Printf("fetch --render, %d pages, 4 tabs per browser, local Chromium endpoints\n", n)
	var perOne float64
	for _, k := range []int{1, 2} {
		var ws []string
		var stops []func()
		for i := range k {
			w, stop, err := startChromium(filepath.Join(dir, fmt.Sprintf("chrome-%d-%d", k, i)))
			if err != nil {
				return err
			}
			ws, stops = append(ws, w), append(stops, stop)
		}
		args := []string{"fetch", "--render", "-i", list, "--out", filepath.Join(dir, fmt.Sprintf("render-%d.jsonl", k)), "-c", strconv.Itoa(4 * k)}
		for _, w := range ws {
			args = append(args, "--ws-endpoint", w)
		}
		m, err := measure(bin, env, args, filepath.Join(dir, fmt.Sprintf("render-%d.jsonl", k)), 0, nil)
		for _, stop := range stops {
			stop()
		}
		if err != nil {
			return err
		}
		rate := float64(m.pages) / m.elapsed.Seconds()
		if k == 1 {
			perOne = rate
		}
		fmt.Printf("  %d browser(s): %d pages in %.1f s: %.2f pages/s, %.2f per browser (%.2f× one browser)\n",
			k, m.pages, m.elapsed.Seconds(), rate, rate/float64(k), rate/perOne)
	}
	return nil
}

// startChromium starts a headless Chromium with remote debugging on a free
// loopback port and returns its websocket URL and a stop function.
func startChromium(profile string) (string, func(), error) {
	chrome := os.Getenv("BROWSERAGENT_CHROME")
	if chrome == "" {
		chrome = "chromium"
	}
	args := []string{"--headless", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "--user-data-dir=" + profile,
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "about:blank"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(chrome, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		data, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if port, path, ok := strings.Cut(strings.TrimSpace(string(data)), "\n"); err == nil && ok {
			return "ws://127.0.0.1:" + port + path, stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("chromium did not write DevToolsActivePort within 20 s")
}

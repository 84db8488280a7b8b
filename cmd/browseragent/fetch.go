package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/fetch"
)

// fetchFlags are the flags of `browseragent fetch`. render holds the
// browser flags (--render, --wait-for, --screenshot, --connect...), defined
// with runRender in browser.go.
type fetchFlags struct {
	render         renderFlags
	format         string
	selector       string
	links          bool
	maxBytes       byteSize
	timeout        time.Duration
	connectTimeout time.Duration
	acceptLanguage string
	userAgent      string
	input          string
	out            string
	concurrency    int
}

func newFetchCmd(s *streams) *cobra.Command {
	f := &fetchFlags{maxBytes: fetch.DefaultMaxBytes, timeout: fetch.DefaultTimeout,
		connectTimeout: fetch.DefaultConnectTimeout, concurrency: 4}
	cmd := &cobra.Command{
		Use:   "fetch URL... | fetch -i FILE [--out FILE]",
		Short: "Fetch pages over HTTP and print their main content (markdown, text, json or html)",
		Long: `Fetch web pages over plain HTTP (no browser) and print their main content:
navigation, ads and boilerplate are dropped. HTML comes out as markdown by
default; JSON is pretty-printed, text passed through, binary files described.

With -i FILE (one URL per line, "-" for stdin) or --out FILE, URLs are fetched
concurrently and each becomes one JSON line; a failing URL gets a line with
an "error" field and never stops the batch.

Exit codes: 0 ok; 1 a page could not be fetched; 2 bad usage (flag, URL,
selector); 3 the page was printed but cut at --max-bytes.`,
		Example: `  browseragent fetch https://example.com/article
  browseragent fetch https://example.com --format text
  browseragent fetch https://example.com/shop --select 'li.item' --format html
  browseragent fetch https://example.com --links
  browseragent fetch -i urls.txt --concurrency 8 --out results.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFetch(cmd.Context(), s, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.format, "format", "f", "markdown", "output format: markdown, text, json or html")
	fl.StringVarP(&f.selector, "select", "s", "", "CSS selector: print only the matching elements")
	fl.BoolVar(&f.links, "links", false, "list the page's absolute links instead of its content (json: add a links field)")
	fl.Var(&f.maxBytes, "max-bytes", "cap on the page size, e.g. 500k, 10MiB; bigger pages are cut")
	fl.DurationVar(&f.timeout, "timeout", f.timeout, "give up on a page after this long")
	fl.DurationVar(&f.connectTimeout, "connect-timeout", f.connectTimeout, "give up connecting to a host after this long")
	fl.StringVar(&f.acceptLanguage, "accept-language", fetch.DefaultAcceptLanguage, "Accept-Language header: which language to ask sites for")
	fl.StringVar(&f.userAgent, "user-agent", "", "User-Agent header (default: a current desktop Chrome)")
	fl.StringVarP(&f.input, "input", "i", "", `read URLs from this file, one per line ("-" for stdin); output is JSON lines`)
	fl.StringVarP(&f.out, "out", "o", "", "write JSON lines to this file instead of stdout")
	fl.IntVarP(&f.concurrency, "concurrency", "c", f.concurrency, "how many URLs to fetch at once")
	f.render.addFlags(fl)
	return cmd
}

func runFetch(ctx context.Context, s *streams, f *fetchFlags, args []string) error {
	if os.Getenv("GOGC") == "" {
		// A fetch holds a page's DOM, its readability copy and the markdown
		// converter's buffers at once; collecting at 50% growth instead of
		// 100% keeps a 5 MiB page near 80 MiB of RSS for a few percent of CPU.
		debug.SetGCPercent(50)
	}
	format, err := fetch.ParseFormat(f.format)
	if err != nil {
		return exitCode(exitUsage, err.Error())
	}
	if f.concurrency < 1 {
		return exitCode(exitUsage, "--concurrency must be at least 1")
	}
	urls := args
	if f.input != "" {
		fromFile, err := readURLList(s, f.input)
		if err != nil {
			return err
		}
		urls = append(urls, fromFile...)
	}
	if len(urls) == 0 {
		return exitCode(exitUsage, "no URL given (see 'browseragent fetch --help')")
	}
	if r := &f.render; r.on || r.waitFor != "" || r.screenshot != "" || r.headed || r.conn.on() {
		return runRender(ctx, s, f, urls, format)
	}
	get, done, err := guardedFetcher(ctx, f)
	if err != nil {
		return err
	}
	defer done()
	if f.input != "" || f.out != "" {
		return runBatch(ctx, s, f, get, urls, format)
	}
	return printPages(ctx, s, f, get, urls, format)
}

// fetcher fetches one URL.
type fetcher func(ctx context.Context, url string) (*fetch.Result, error)

// guardedFetcher fetches through the session's registry, the one path every
// tool call takes: the guard judges each URL as web_fetch (a deny rule, such
// as a cloud metadata address, is refused) and the audit log records it.
// The HTTP client is shared so connections are reused across URLs.
func guardedFetcher(ctx context.Context, f *fetchFlags) (fetcher, func(), error) {
	sess, err := openSession(ctx, sessionConfig{sitesFile: f.render.sites, noMCP: true})
	if err != nil {
		return nil, nil, err
	}
	opts := f.options()
	opts.AllowRedirect = func(to string) error { return sess.Registry.Recheck(agent.WebFetchName, to) }
	client := fetch.NewClient(opts)
	get := func(ctx context.Context, u string) (*fetch.Result, error) {
		if _, err := fetch.ParseURL(u); err != nil {
			return nil, err // nothing is fetched; fetch says best what is wrong
		}
		var res *fetch.Result
		var ferr error
		args, _ := json.Marshal(map[string]string{"url": u})
		tr, err := sess.Registry.Run(ctx, agent.WebFetchName, args, agent.OriginScript, func(ctx context.Context) (*agent.ToolResult, error) {
			res, ferr = client.Fetch(ctx, u)
			if ferr != nil {
				return &agent.ToolResult{IsError: true, Text: ferr.Error()}, nil
			}
			return &agent.ToolResult{}, nil
		})
		switch {
		case err != nil:
			return nil, err
		case tr.IsError && res == nil && ferr == nil:
			return nil, errors.New(tr.Text) // the guard refused it
		}
		return res, ferr
	}
	return get, func() { client.Close(); sess.Close() }, nil
}

func (f *fetchFlags) options() *fetch.Options {
	return &fetch.Options{
		Timeout: f.timeout, ConnectTimeout: f.connectTimeout, MaxBytes: int64(f.maxBytes),
		AcceptLanguage: f.acceptLanguage, UserAgent: f.userAgent,
		Extract: fetch.ExtractOptions{Select: f.selector, Links: f.links},
	}
}

// fetched is one URL's outcome.
type fetched struct {
	url string
	res *fetch.Result
	err error
}

// printPages fetches urls concurrently and prints them in order. Failures
// are one sentence each on stderr; the exit code is the worst seen.
func printPages(ctx context.Context, s *streams, f *fetchFlags, get fetcher, urls []string, format fetch.Format) error {
	results := make([]chan fetched, len(urls))
	sem := make(chan struct{}, f.concurrency)
	for i, u := range urls {
		results[i] = make(chan fetched, 1)
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := get(ctx, u)
			results[i] <- fetched{u, res, err}
		}()
	}
	return printInOrder(s, f, results, format)
}

// printInOrder prints each result as it arrives, in the order of results
// (the URLs' order), each under a "==> URL <==" header when there are
// several. Failures are one sentence each on stderr; the exit code is the
// worst seen. Plain fetches and --render share it, so their output is alike.
func printInOrder(s *streams, f *fetchFlags, results []chan fetched, format fetch.Format) error {
	worst := 0
	for i, ch := range results {
		r := <-ch
		if len(results) > 1 && format != fetch.FormatJSON {
			if i > 0 {
				fmt.Fprintln(s.out)
			}
			fmt.Fprintf(s.out, "==> %s <==\n", r.url)
		}
		worst = max(worst, printPage(s, f, r, format))
	}
	if worst != 0 {
		return exitCode(worst, "")
	}
	return nil
}

// printPage writes one result and returns its exit code.
func printPage(s *streams, f *fetchFlags, r fetched, format fetch.Format) int {
	if r.err != nil {
		fmt.Fprintf(s.err, "browseragent: %s\n", r.err)
		if errors.Is(r.err, fetch.ErrBadURL) || errors.Is(r.err, fetch.ErrBadSelector) {
			return exitUsage
		}
		return exitFailed
	}
	var out []byte
	var err error
	switch {
	case f.links && format != fetch.FormatJSON:
		out = []byte(r.res.LinksText(format))
	default:
		out, err = r.res.Render(format)
		if format == fetch.FormatJSON {
			out = append(out, '\n')
		}
	}
	if err != nil {
		fmt.Fprintf(s.err, "browseragent: %s: %v\n", r.url, err)
		return exitFailed
	}
	s.out.Write(out)
	for _, w := range r.res.Warnings {
		fmt.Fprintf(s.err, "browseragent: warning: %s: %s\n", r.url, w)
	}
	if r.res.JSShell {
		fmt.Fprintf(s.err, "browseragent: note: %s\n", r.res.Hint)
	}
	if r.res.Truncated {
		return exitFetchTruncated
	}
	return exitOK
}

// runBatch fetches urls with f.concurrency workers and writes one JSON line
// per URL, in the order they finish. One bad URL never stops the batch.
func runBatch(ctx context.Context, s *streams, f *fetchFlags, get fetcher, urls []string, format fetch.Format) error {
	out, closeOut, err := batchOutput(s, f.out)
	if err != nil {
		return err
	}
	bar := newBar(s.err, len(urls))
	jobs := make(chan string)
	lines := make(chan fetched)
	var wg sync.WaitGroup
	for range min(f.concurrency, len(urls)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range jobs {
				res, err := get(ctx, u)
				lines <- fetched{u, res, err}
			}
		}()
	}
	go func() {
		for _, u := range urls {
			jobs <- u
		}
		close(jobs)
		wg.Wait()
		close(lines)
	}()
	ok, failed, werr := writeLines(out, lines, format, bar)
	if bar != nil {
		bar.Finish()
	}
	if err := closeOut(); err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("writing results: %w", werr)
	}
	fmt.Fprintf(s.err, "browseragent: fetched %d URLs: %d ok, %d failed%s\n", len(urls), ok, failed, outName(f.out))
	return nil
}

func writeLines(out io.Writer, lines <-chan fetched, format fetch.Format, bar *progressbar.ProgressBar) (ok, failed int, werr error) {
	w := bufio.NewWriter(out)
	for r := range lines {
		line := batchLine(r, format)
		if r.err != nil {
			failed++
		} else {
			ok++
		}
		if werr == nil {
			_, werr = w.Write(append(line, '\n'))
			if werr == nil {
				werr = w.Flush() // a line is whole on disk as soon as it is done
			}
		}
		if bar != nil {
			bar.Add(1)
		}
	}
	return ok, failed, werr
}

// batchLine is the JSON line of one URL; content is in format (json means
// markdown), failures carry an "error" field.
func batchLine(r fetched, format fetch.Format) []byte {
	res := r.res
	if res == nil {
		res = &fetch.Result{URL: r.url}
	}
	if r.err != nil {
		res.Error = r.err.Error()
	}
	line, err := res.JSON(format)
	if err != nil {
		line, _ = (&fetch.Result{URL: r.url, Error: "cannot encode result: " + err.Error()}).JSON(format)
	}
	return line
}

func batchOutput(s *streams, path string) (io.Writer, func() error, error) {
	if path == "" || path == "-" {
		return s.out, func() error { return nil }, nil
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, nil, exitCode(exitFailed, fmt.Sprintf("cannot write %s: %v", path, errors.Unwrap(err)))
	}
	return file, file.Close, nil
}

func outName(path string) string {
	if path == "" || path == "-" {
		return ""
	}
	return " (written to " + path + ")"
}

// newBar returns a progress bar on w when w is a terminal, else nil.
func newBar(w io.Writer, n int) *progressbar.ProgressBar {
	file, ok := w.(*os.File)
	if !ok || !(isatty.IsTerminal(file.Fd()) || isatty.IsCygwinTerminal(file.Fd())) {
		return nil
	}
	return progressbar.NewOptions(n,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("fetching"),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

// readURLList reads one URL per line; blank lines and # comments are skipped.
func readURLList(s *streams, path string) ([]string, error) {
	var r io.Reader = s.in
	if path != "-" {
		file, err := os.Open(path)
		if err != nil {
			return nil, exitCode(exitUsage, fmt.Sprintf("cannot read the URL list %s: %v", path, errors.Unwrap(err)))
		}
		defer file.Close()
		r = file
	}
	var urls []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			urls = append(urls, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, exitCode(exitUsage, fmt.Sprintf("cannot read the URL list %s: %v", path, err))
	}
	return urls, nil
}

// byteSize is a flag value like "10MiB", "500k" or "1048576".
type byteSize int64

func (b *byteSize) String() string {
	switch n := int64(*b); {
	case n > 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	default:
		return strconv.FormatInt(n, 10)
	}
}
func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	v := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3},
		{"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}} {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSpace(strings.TrimSuffix(v, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("%q is not a size (write e.g. 500k, 10MiB or 1048576)", s)
	}
	*b = byteSize(n * float64(mult))
	return nil
}

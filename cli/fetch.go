package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/tools"
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
	headers        []string
	cookie         string
	proxy          string
	input          string
	out            string
	concurrency    int
	batch          batchFlags
	// allowRedirect is asked about each redirect of a plain fetch after
	// the guard: a --robots batch's robots.txt rules.
	allowRedirect func(to string) error
}

func newFetchCmd(s *streams) *cobra.Command {
	f := &fetchFlags{maxBytes: fetch.DefaultMaxBytes, timeout: fetch.DefaultTimeout,
		connectTimeout: fetch.DefaultConnectTimeout, concurrency: 4}
	cmd := &cobra.Command{
		Use:   "fetch URL... [-o FILE] | fetch -i FILE [--out FILE]",
		Short: "Fetch pages over HTTP and print their main content (markdown, text, json or html)",
		Long: `Fetch web pages over plain HTTP (no browser) and print their main content:
navigation, ads and boilerplate are dropped. HTML comes out as markdown by
default; JSON is pretty-printed, text passed through, binary files described.

With -i FILE (one URL per line, "-" for stdin) or --out FILE, URLs are fetched
concurrently and each becomes one JSON line; a failing URL gets a line with
an "error" field and never stops the batch.

Exit codes: 0 ok; 1 a page could not be fetched; 2 bad usage (flag, URL,
selector); 3 the page was printed but cut at --max-bytes. A batch exits 0
once every URL has its line, 130 when stopped by Ctrl-C, 75 when URLs were
put off (no browser left, a host asking to wait past --max-wait): run it
again with --resume.`,
		Example: `  browseragent fetch https://example.com/article
  browseragent fetch https://example.com --format text
  browseragent fetch https://example.com/shop --select 'li.item' --format html
  browseragent fetch https://example.com --links
  browseragent fetch -i urls.txt --concurrency 8 --out results.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.render.on && !cmd.Flags().Changed("concurrency") {
				f.concurrency = renderTabs() * max(1, len(f.render.conn.wsEndpoints))
			}
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
	fl.StringArrayVarP(&f.headers, "header", "H", nil, `request header "Name: value" (repeat for more; not Host)`)
	fl.StringVar(&f.cookie, "cookie", "", `cookies to send: "name=value; name2=value2", or a cookies.txt file (Netscape format, as curl writes)`)
	fl.StringVar(&f.proxy, "proxy", "", "HTTP proxy for every request, e.g. http://127.0.0.1:3128 (default: HTTP_PROXY/HTTPS_PROXY); the guard still judges each page's own address")
	fl.StringVarP(&f.input, "input", "i", "", `read URLs from this file, one per line ("-" for stdin); output is JSON lines`)
	fl.StringVarP(&f.out, "out", "o", "", "write the page's output to this file instead of stdout (a batch's JSON lines with -i)")
	fl.IntVarP(&f.concurrency, "concurrency", "c", f.concurrency, fmt.Sprintf("how many URLs to fetch at once (with --render: %d per browser, 4 per CPU core)", renderTabs()))
	f.batch.addFlags(fl)
	f.render.addFlags(fl)
	return cmd
}

func runFetch(ctx context.Context, s *streams, f *fetchFlags, args []string) error {
	format, err := extract.ParseFormat(f.format)
	if err != nil {
		return exitCode(exitUsage, err.Error())
	}
	if f.concurrency < 1 {
		return exitCode(exitUsage, "--concurrency must be at least 1")
	}
	if err := f.requestOptions(&fetch.Options{}); err != nil {
		return err // before a batch empties its --out, or a browser starts
	}
	if f.concurrency > maxConcurrency {
		// Each is a worker with its share of the read-ahead window, and a
		// connection or a tab: -c 1000000 took 2.7 GB and a minute to start.
		return exitCode(exitUsage, fmt.Sprintf("--concurrency %d is too many: at most %d at once (a connection, or a browser tab, each)", f.concurrency, maxConcurrency))
	}
	// -o FILE with one URL writes that page's output to FILE, as curl and
	// wget do; with -i, several URLs or a batch's flag (--resume …) it is
	// the batch's JSON lines.
	batch := f.input != "" || (f.out != "" && (len(args) != 1 || f.batch.check() != nil))
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		tuneGC(batch)
	}
	if batch {
		return runBatch(ctx, s, f, args, format)
	}
	if err := f.batch.check(); err != nil {
		return err
	}
	if len(args) == 0 {
		return exitCode(exitUsage, "no URL given (see 'browseragent fetch --help')")
	}
	if f.out != "" && f.out != "-" {
		return writePage(s, f.out, func(s *streams) error { return fetchPages(ctx, s, f, args, format) })
	}
	return fetchPages(ctx, s, f, args, format)
}

func fetchPages(ctx context.Context, s *streams, f *fetchFlags, args []string, format extract.Format) error {
	if f.render.wanted() {
		return runRender(ctx, s, f, args, format)
	}
	get, done, err := guardedFetcher(ctx, f)
	if err != nil {
		return err
	}
	defer done()
	return printPages(ctx, s, f, get, args, format)
}

// requestOptions puts -H, --cookie and --proxy into o: bad values are
// usage errors, said before anything is fetched.
func (f *fetchFlags) requestOptions(o *fetch.Options) error {
	if (len(f.headers) > 0 || f.cookie != "" || f.proxy != "") && f.render.wanted() {
		return exitCode(exitUsage, "-H, --cookie and --proxy are for plain fetch: --render uses the browser's own")
	}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return exitCode(exitUsage, fmt.Sprintf("-H %q is not a header: write it as \"Name: value\"", h))
		}
		if strings.EqualFold(name, "Host") {
			// The guard judges the URL's host; another Host would ask
			// the server for a site the guard never judged.
			return exitCode(exitUsage, "-H Host: is not allowed: put the host in the URL, which the guard judges")
		}
		if o.Header == nil {
			o.Header = http.Header{}
		}
		o.Header.Add(name, strings.TrimSpace(value))
	}
	switch {
	case f.cookie == "":
	case strings.Contains(f.cookie, "="):
		if o.Header == nil {
			o.Header = http.Header{}
		}
		o.Header.Set("Cookie", strings.TrimSpace(f.cookie))
	default:
		data, err := os.ReadFile(f.cookie)
		if err != nil {
			return exitCode(exitUsage, fmt.Sprintf("cannot read the cookie file %s: %v", f.cookie, errors.Unwrap(err)))
		}
		jar, err := fetch.ParseCookieFile(data)
		if err != nil {
			return exitCode(exitUsage, fmt.Sprintf("cookie file %s: %v", f.cookie, err))
		}
		o.Jar = jar
	}
	if f.proxy != "" {
		u, err := url.Parse(f.proxy)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5") || u.Host == "" {
			return exitCode(exitUsage, fmt.Sprintf("--proxy %q is not a proxy URL: write it as http://HOST:PORT", f.proxy))
		}
		o.Proxy = u
	}
	return nil
}

// writePage runs print with its output kept, then writes that output to
// path: a page that could not be fetched leaves path as it was.
func writePage(s *streams, path string, print func(*streams) error) error {
	if err := checkOutPlace(path); err != nil {
		return err // before anything is fetched
	}
	var buf bytes.Buffer
	err := print(&streams{in: s.in, out: &buf, err: s.err})
	if buf.Len() > 0 || err == nil {
		if werr := os.WriteFile(path, buf.Bytes(), 0o644); werr != nil {
			return fmt.Errorf("cannot write %s: %w", path, errors.Unwrap(werr))
		}
	}
	return err
}

// fetchMemoryLimit is the heap a one-shot fetch may grow to before it
// collects at all.
const fetchMemoryLimit = 64 << 20

// tuneGC sets the collector for a fetch. A fetch holds a page's DOM, its
// readability copy and the markdown converter's buffers at once.
//
// A batch runs for hours over pages of every size: it collects at 50%
// growth instead of 100%, which keeps a 5 MiB page near 80 MiB of RSS for
// a few percent of CPU.
//
// A one-shot fetch (URLs on the command line) is a short process: most
// pages need a few MiB and the process ends before collecting would give
// anything back, so it does not collect until the heap nears
// fetchMemoryLimit (a third less CPU per process on a typical page). The
// first collection, which only a big page reaches, hands over to the
// batch's policy: held at the limit, a page whose live heap is above it
// (10 MiB of HTML) would be collected over and over, and took twice as long.
func tuneGC(batch bool) {
	if batch {
		debug.SetGCPercent(50)
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(fetchMemoryLimit)
	// The sentinel is unreachable at once, so the first collection frees
	// it and runs the cleanup. It holds pointers, so it is not one of the
	// tiny objects a cleanup may never run for.
	runtime.AddCleanup(&gcSentinel{}, func(struct{}) {
		debug.SetGCPercent(50)
		debug.SetMemoryLimit(math.MaxInt64)
	}, struct{}{})
}

// gcSentinel is an object whose collection tells tuneGC the first
// collection happened.
type gcSentinel struct{ _ [2]*byte }

// renderTabs is how many pages a --render batch renders at once in each
// browser when -c does not say: a tab waiting for its page to settle costs
// no CPU, so more than the cores; 4 per core, 4 to 16 (each tab is a
// renderer process of its own).
func renderTabs() int { return min(16, max(4, 4*runtime.NumCPU())) }

// maxConcurrency bounds --concurrency: about what one process may keep
// open (a common limit of open files is 1024).
const maxConcurrency = 1024

// fetcher fetches one URL.
type fetcher func(ctx context.Context, url string) (*extract.Result, error)

// guardedFetcher fetches through the session's registry, the one path every
// tool call takes: the guard judges each URL as web_fetch (a deny rule, such
// as a cloud metadata address, is refused) and the audit log records it.
// The session's web_fetch has the flags' options and one HTTP client, so
// connections are reused across URLs; its result carries fetch's own.
func guardedFetcher(ctx context.Context, f *fetchFlags) (fetcher, func(), error) {
	o := f.options()
	if err := f.requestOptions(o); err != nil {
		return nil, nil, err
	}
	sess, err := openSession(ctx, sessionConfig{sitesFile: f.render.sites, noMCP: true, fetch: o})
	if err != nil {
		return nil, nil, err
	}
	get := func(ctx context.Context, u string) (*extract.Result, error) {
		if _, err := fetch.ParseURL(u); err != nil {
			return nil, err // nothing is fetched; fetch says best what is wrong
		}
		call := map[string]any{"url": u, "select": f.selector, "links": f.links}
		if format, _ := extract.ParseFormat(f.format); format == extract.FormatText {
			call["format"] = "text" // else web_fetch renders the markdown -f text never prints
		}
		args, _ := json.Marshal(call)
		tr, err := sess.Registry.Call(ctx, tools.WebFetchName, args, tools.OriginScript)
		switch {
		case errors.Is(err, guard.ErrDenied):
			return nil, refusedError(tr.ForPerson())
		case err != nil:
			return nil, err
		}
		got, ok := tr.Data.(*tools.Fetched)
		if !ok {
			return nil, errors.New(tr.Text) // the registry's own answer: a timeout
		}
		if res := got.Result; res != nil && res.JSShell {
			res.Hint += " Add --render to read it in the browser."
		}
		return got.Result, got.Err
	}
	return get, func() { sess.Close() }, nil
}

func (f *fetchFlags) options() *fetch.Options {
	return &fetch.Options{
		Timeout: f.timeout, ConnectTimeout: f.connectTimeout, MaxBytes: int64(f.maxBytes),
		AcceptLanguage: f.acceptLanguage, UserAgent: f.userAgent, AllowRedirect: f.allowRedirect,
		Extract: extract.Options{Select: f.selector, Links: f.links},
	}
}

// fetched is one URL's outcome.
type fetched struct {
	url string
	res *extract.Result
	err error
}

// printPages fetches urls concurrently and prints them in order. Failures
// are one sentence each on stderr; the exit code is the worst seen.
func printPages(ctx context.Context, s *streams, f *fetchFlags, get fetcher, urls []string, format extract.Format) error {
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
func printInOrder(s *streams, f *fetchFlags, results []chan fetched, format extract.Format) error {
	worst := 0
	for i, ch := range results {
		r := <-ch
		if len(results) > 1 && format != extract.FormatJSON {
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
func printPage(s *streams, f *fetchFlags, r fetched, format extract.Format) int {
	if r.err != nil {
		fmt.Fprintf(s.err, "browseragent: %s\n", words.Error(r.err))
		if errors.Is(r.err, fetch.ErrBadURL) || errors.Is(r.err, extract.ErrBadSelector) {
			return exitUsage
		}
		return exitFailed
	}
	var out []byte
	var err error
	switch {
	case f.links && format != extract.FormatJSON:
		out = []byte(r.res.LinksText(format))
	default:
		out, err = r.res.Render(format)
		if format == extract.FormatJSON {
			out = append(out, '\n')
		}
	}
	if err != nil {
		fmt.Fprintf(s.err, "browseragent: %s: %s\n", r.url, words.Error(err))
		return exitFailed
	}
	io.WriteString(s.out, textutil.ForTerminal(s.out, string(out)))
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

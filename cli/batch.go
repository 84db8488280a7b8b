package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"

	"github.com/browseragent/browseragent/batch"
	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/words"
)

// batchFlags are the flags of `fetch -i FILE` for long jobs.
type batchFlags struct {
	resume  bool
	perHost int
	delay   time.Duration
	retries int
	maxWait time.Duration
	robots  bool
	shard   string
}

func (b *batchFlags) addFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&b.resume, "resume", false, "batch: skip the URLs that already have a line in --out and append the rest")
	fl.IntVar(&b.perHost, "per-host", 0, "batch: at most this many URLs of one host at once (default: --concurrency)")
	fl.DurationVar(&b.delay, "delay", 0, "batch: wait at least this long between two requests to one host (e.g. 500ms)")
	fl.IntVar(&b.retries, "retries", batch.DefaultRetries, "batch: tries after the first on 429, 5xx and lost browsers, with backoff (Retry-After honoured)")
	fl.DurationVar(&b.maxWait, "max-wait", batch.DefaultMaxRetryWait, "batch: the longest wait before a retry; a host whose Retry-After asks for longer is left for a later --resume")
	fl.BoolVar(&b.robots, "robots", false, "batch: obey each host's robots.txt (Disallow and Crawl-delay)")
	fl.StringVar(&b.shard, "shard", "", "batch: do only shard `K/N` of the list (K from 0), split by URL hash")
}

// check refuses the batch flags outside a batch.
func (b *batchFlags) check() error {
	if b.resume || b.perHost != 0 || b.delay != 0 || b.robots || b.shard != "" || b.retries != batch.DefaultRetries || b.maxWait != batch.DefaultMaxRetryWait {
		return exitCode(exitUsage, "--resume, --per-host, --delay, --retries, --max-wait, --robots and --shard are for batches: add -i FILE or --out FILE")
	}
	return nil
}

// refusedError is the guard's refusal of a URL, as one sentence.
type refusedError string

func (e refusedError) Error() string       { return string(e) }
func (e refusedError) FailureKind() string { return "refused" }

// runBatch is `fetch -i FILE` (or --out FILE): the URLs of args and then
// of the list are fetched (or rendered) concurrently and each becomes one
// JSON line, streamed so a list of millions needs no more memory than one
// of ten. Ctrl-C stops it cleanly: every line already written is whole,
// and --resume goes on from there.
func runBatch(ctx context.Context, s *streams, f *fetchFlags, args []string, format extract.Format) error {
	o, err := f.batchOptions(format)
	if err != nil {
		return err
	}
	if len(args) == 0 && f.input == "" {
		return exitCode(exitUsage, "no URL given: --out needs URLs as arguments or a list with -i FILE")
	}
	if err := f.checkBatchRender(); err != nil {
		return err
	}
	// The list is opened before --out is made: a mistyped -i FILE (or a
	// usage error above) must not empty the results of an earlier run.
	in, closeIn, err := openBatchIn(s, f.input, args)
	if err != nil {
		return err
	}
	defer closeIn()
	if err := checkOutIsNotList(s, f); err != nil {
		return err
	}
	out, err := openBatchOut(s, f, o)
	if err != nil {
		return err
	}
	defer out.Close()
	if f.batch.robots {
		// robots.txt is read whole up to 500 KiB, what RFC 9309 asks a
		// crawler to parse (a 20 MiB one cost 90 MiB of memory), and
		// without the pages' --select and --links.
		rf := *f
		rf.maxBytes, rf.selector, rf.links = min(f.maxBytes, 500<<10), "", false
		robots, rdone, err := guardedFetcher(ctx, &rf)
		if err != nil {
			return err
		}
		defer rdone()
		o.RobotsRules = batch.NewRobots(func(ctx context.Context, u string, _ int) (*extract.Result, error) { return robots(ctx, u) }, o.RobotsAgent)
		// A redirect is a request too: one to a page its host's
		// robots.txt disallows is not followed (plain fetches; the
		// browser follows its own).
		rules := o.RobotsRules
		f.allowRedirect = func(to string) error { return rules.CheckRedirect(ctx, to) }
	}
	job, done, err := batchJob(ctx, f)
	if err != nil {
		return err
	}
	defer done()
	if job.pool != nil {
		for _, u := range job.pool.Unreached() {
			fmt.Fprintf(s.err, "browseragent: warning: cannot attach %s (%s); rendering on the other browsers\n", u.Name, words.Error(u.Err))
		}
	}
	bar := batchBar(s, f, args, o)
	if bar != nil {
		o.Progress = func(p batch.Progress) { bar.Set(p.OK + p.Failed) }
	}
	sum, err := batch.Run(ctx, in, out, job.run, o)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return exitCode(exitFailed, err.Error())
	}
	fmt.Fprintln(s.err, "browseragent: "+summaryLine(f, sum, job))
	switch {
	case sum.Interrupted:
		return exitCode(exitFetchInterrupted, "")
	case sum.UnfinishedCount() > 0:
		return exitCode(exitFetchUnfinished, "")
	}
	return nil
}

func (f *fetchFlags) batchOptions(format extract.Format) (*batch.Options, error) {
	b := &f.batch
	o := &batch.Options{
		Concurrency: f.concurrency, PerHost: b.perHost, Delay: b.delay, Retries: b.retries, MaxWait: b.maxWait,
		RobotsAgent: "browseragent", Format: format,
	}
	switch {
	case b.perHost < 0:
		return nil, exitCode(exitUsage, "--per-host must be at least 1")
	case b.delay < 0:
		return nil, exitCode(exitUsage, "--delay cannot be negative")
	case b.retries < 0:
		return nil, exitCode(exitUsage, "--retries cannot be negative (0 means no retry)")
	case b.maxWait <= 0:
		return nil, exitCode(exitUsage, "--max-wait must be more than 0 (e.g. 2m, or 1h to wait as long as a server asks up to an hour)")
	case b.resume && (f.out == "" || f.out == "-"):
		return nil, exitCode(exitUsage, "--resume needs --out FILE: the results already there are what it skips")
	}
	if b.retries == 0 {
		o.Retries = -1
	}
	if b.shard != "" {
		sh, err := batch.ParseShard(b.shard)
		if err != nil {
			return nil, exitCode(exitUsage, err.Error())
		}
		o.Shard = sh
	}
	return o, nil
}

// batchOut is where the lines go: a file, or stdout.
type batchOut struct {
	io.Writer
	file *os.File
}

func (b *batchOut) Close() error {
	if b.file == nil {
		return nil
	}
	return b.file.Close()
}

// openBatchOut creates --out, or with --resume reads the URLs it already
// answers into o.Done, cuts a last line a crash left half written and
// opens it for appending.
func openBatchOut(s *streams, f *fetchFlags, o *batch.Options) (*batchOut, error) {
	path := f.out
	if path == "" || path == "-" {
		return &batchOut{Writer: s.out}, nil
	}
	fail := func(err error) (*batchOut, error) {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, exitCode(exitFailed, fmt.Sprintf("cannot write %s: %v", path, err))
	}
	if err := checkOutPlace(path); err != nil {
		return nil, err
	}
	if !f.batch.resume {
		file, err := os.Create(path)
		if err != nil {
			return fail(err)
		}
		return &batchOut{Writer: file, file: file}, nil
	}
	file, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fail(err)
	}
	done, whole, err := batch.ReadDone(file)
	if err == nil {
		err = file.Truncate(whole)
	}
	if err == nil {
		_, err = file.Seek(whole, io.SeekStart)
	}
	if err != nil {
		file.Close()
		return fail(err)
	}
	o.Done = done
	return &batchOut{Writer: file, file: file}, nil
}

// checkOutPlace refuses an --out that is a symbolic link (what it points at
// is not what the person named) or a place the guard never lets a tool
// write (an .mcp.json, an agent's or editor's settings, a shell start-up
// file: guard.WriteRefused), as it refuses them to the tools.
func checkOutPlace(path string) error { return checkWritePlace("--out "+path, path) }

// checkWritePlace is checkOutPlace for any file the command line writes
// itself, named as the messages name it.
func checkWritePlace(named, path string) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return exitCode(exitUsage, fmt.Sprintf("%s is a symbolic link: browseragent does not write through links; give a file of its own", named))
	}
	if why := guard.WriteRefused(path); why != "" {
		return exitCode(exitUsage, fmt.Sprintf("%s is %s: browseragent never writes there; give another file", named, why))
	}
	return nil
}

// checkOutIsNotList refuses an --out that is the URL list itself (-i FILE,
// or stdin read from it): it would be emptied before it is read, or, with
// --resume, read back as it is written.
func checkOutIsNotList(s *streams, f *fetchFlags) error {
	if f.out == "" || f.out == "-" {
		return nil
	}
	out, err := os.Stat(f.out)
	if err != nil {
		return nil // not there yet: it cannot be the list
	}
	var list os.FileInfo
	switch f.input {
	case "":
		return nil
	case "-":
		if file, ok := s.in.(*os.File); ok {
			list, _ = file.Stat()
		}
	default:
		list, _ = os.Stat(f.input)
	}
	if list != nil && os.SameFile(list, out) {
		return exitCode(exitUsage, fmt.Sprintf("--out %s is the URL list itself: give the results a file of their own", f.out))
	}
	return nil
}

// openBatchIn streams the URLs of args and then of the list ("-" is stdin).
func openBatchIn(s *streams, path string, args []string) (io.Reader, func(), error) {
	head := strings.NewReader(strings.Join(args, "\n") + "\n")
	switch path {
	case "":
		return head, func() {}, nil
	case "-":
		return io.MultiReader(head, s.in), func() {}, nil
	}
	bad := func(err error) (io.Reader, func(), error) {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, exitCode(exitUsage, fmt.Sprintf("cannot read the URL list %s: %v", path, err))
	}
	file, err := os.Open(path)
	if err != nil {
		return bad(err)
	}
	if st, err := file.Stat(); err == nil && st.IsDir() {
		file.Close()
		return bad(errors.New("it is a directory"))
	}
	return io.MultiReader(head, file), func() { file.Close() }, nil
}

// batchBar is a progress bar with rate and ETA on stderr when it is a
// terminal and the lines do not go to that terminal too, or nil. The total is counted first when the list is a file;
// from stdin the bar shows the count and the rate only.
func batchBar(s *streams, f *fetchFlags, args []string, o *batch.Options) *progressbar.ProgressBar {
	if !isTerminal(s.err) {
		return nil
	}
	if (f.out == "" || f.out == "-") && isTerminal(s.out) {
		return nil // the lines are the progress: a bar would be drawn into them
	}
	total := -1
	if f.input != "" && f.input != "-" {
		if list, err := os.Open(f.input); err == nil {
			n, err := batch.Count(io.MultiReader(strings.NewReader(strings.Join(args, "\n")+"\n"), list), o)
			list.Close()
			if err == nil {
				total = n
			}
		}
	}
	verb := "fetching"
	if f.render.on {
		verb = "rendering"
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(s.err),
		progressbar.OptionSetDescription(verb),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("URL"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(file.Fd()) || isatty.IsCygwinTerminal(file.Fd()))
}

// summaryLine is the batch's last word: "fetched 20000 URLs in 12.3 s
// (1626/s): 19990 ok, 10 failed (6 http-404, 4 timeout); ...".
func summaryLine(f *fetchFlags, sum *batch.Summary, job *batchRunner) string {
	verb := "fetched"
	if f.render.on {
		verb = "rendered"
	}
	secs := sum.Elapsed.Seconds()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d URLs in %.1f s", verb, sum.Done(), secs)
	if secs > 0 && sum.Done() > 0 {
		fmt.Fprintf(&b, " (%.1f/s)", float64(sum.Done())/secs)
	}
	fmt.Fprintf(&b, ": %d ok, %s", sum.OK, sum.FailedText())
	if sum.Retried > 0 {
		fmt.Fprintf(&b, "; %d retries", sum.Retried)
	}
	if sum.Skipped > 0 {
		fmt.Fprintf(&b, "; %d already in %s", sum.Skipped, f.out)
	}
	if sum.OtherShards > 0 {
		fmt.Fprintf(&b, "; %d in other shards", sum.OtherShards)
	}
	if u := sum.UnfinishedText(); u != "" {
		b.WriteString("; " + u)
	}
	if e := job.endpointsText(); e != "" {
		b.WriteString("; " + e)
	}
	if f.out != "" && f.out != "-" {
		fmt.Fprintf(&b, "; written to %s", f.out)
	}
	switch {
	case sum.Interrupted:
		b.WriteString("; interrupted: run again with --resume to do the rest")
	case sum.UnfinishedCount() > 0 && !sum.ResumeAfter.IsZero():
		fmt.Fprintf(&b, "; run again with --resume after %s", sum.ResumeAfter.Round(time.Second).Format("15:04:05 MST"))
	case sum.UnfinishedCount() > 0:
		b.WriteString("; run again with --resume to do them")
	}
	return b.String()
}

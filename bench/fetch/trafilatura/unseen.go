package main

// The unseen set: pages browseragent's extraction rules were never tuned
// on, scored for browseragent and go-trafilatura in the same run (-unseen).
// Two parts, both read from Go module zips (the Go module proxy is their
// only source, `go mod download` fetches them once into the module cache):
//
//   - realworld: the pages of trafilatura's real-world tests as
//     go-trafilatura ports them (realworld_test.go with its mock pages in
//     test-files/mock, Apache-2.0). Each assert.True(resContains(...)) is a
//     segment that must be in the main text, each assert.False one that
//     must not; counted as trafilatura-eval is (TP, FN, FP; segment F1).
//   - readability: Mozilla Readability's test pages as
//     codeberg.org/readeck/go-readability/v2 ships them (Apache-2.0),
//     scored as fetch's TestExtractionQuality scores the shared ones: word
//     F1 of the text against expected.html, mean over pages.
//
// A page whose HTML (SHA-256) is already in ../shared/testdata, or whose
// name or URL is a shared page's, is left out: the set holds only pages
// the rules have not seen.

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/internal/wordf1"
)

const (
	trafilaturaModule = "github.com/markusmobius/go-trafilatura@v1.12.2"
	readabilityModule = "codeberg.org/readeck/go-readability/v2@v2.1.3"
)

// unseenPage is one page of the unseen set: its HTML and either segments
// (realworld) or an expected text (readability).
type unseenPage struct {
	kind, name string
	html       []byte
	with       []string
	without    []string
	expected   string // readability: the text of expected.html; goose: the start of the article
}

// moduleDir downloads (or finds in the module cache) mod and returns its
// directory.
func moduleDir(mod string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		return "", fmt.Errorf("go mod download %s: %v %s %s", mod, err, out, stderr)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download %s: %v", mod, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", mod, info.Error)
	}
	return info.Dir, nil
}

// sharedHashes hashes every page under the shared testdata directory (the
// readability pages and the gzipped trafilatura-eval pages), and collects
// their names and URLs.
func sharedHashes(shared string) (hashes map[[32]byte]bool, names map[string]bool, err error) {
	hashes, names = map[[32]byte]bool{}, map[string]bool{}
	rd, _ := filepath.Glob(filepath.Join(shared, "readability", "*", "source.html"))
	for _, p := range rd {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		hashes[sha256.Sum256(b)] = true
		names[filepath.Base(filepath.Dir(p))] = true
	}
	te, _ := filepath.Glob(filepath.Join(shared, "trafilatura-eval", "html", "*.gz"))
	for _, p := range te {
		b, err := gunzip(p)
		if err != nil {
			return nil, nil, err
		}
		hashes[sha256.Sum256(b)] = true
	}
	if raw, err := os.ReadFile(filepath.Join(shared, "trafilatura-eval", "evaldata.json")); err == nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			for u := range m {
				names[strings.TrimSuffix(u, "/")] = true
			}
		}
	}
	if len(rd) == 0 || len(te) == 0 {
		return nil, nil, fmt.Errorf("%s: no shared pages found to dedupe against (set -shared)", shared)
	}
	return hashes, names, nil
}

func gunzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return io.ReadAll(zr)
}

// stringArg is the value of a string literal argument, "" otherwise.
func stringArg(e ast.Expr) string {
	if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
		if s, err := strconv.Unquote(lit.Value); err == nil {
			return s
		}
	}
	return ""
}

// realworldPages reads go-trafilatura's realworld_test.go: for each
// extractMockFile(rwMockFiles, URL) the resContains assertions that follow
// it, and the mock file of URL from realworld-mock_test.go.
func realworldPages(dir string) ([]*unseenPage, error) {
	fset := token.NewFileSet()
	mockFile, err := parser.ParseFile(fset, filepath.Join(dir, "realworld-mock_test.go"), nil, 0)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	ast.Inspect(mockFile, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if k, v := stringArg(kv.Key), stringArg(kv.Value); k != "" && v != "" {
				files[k] = v
			}
		}
		return true
	})
	testFile, err := parser.ParseFile(fset, filepath.Join(dir, "realworld_test.go"), nil, 0)
	if err != nil {
		return nil, err
	}
	var pages []*unseenPage
	var cur *unseenPage
	var perr error
	ast.Inspect(testFile, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || perr != nil {
			return perr == nil
		}
		fn := ""
		switch f := call.Fun.(type) {
		case *ast.Ident:
			fn = f.Name
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok {
				fn = x.Name + "." + f.Sel.Name
			}
		}
		switch fn {
		case "extractMockFile":
			u := stringArg(call.Args[1])
			name, ok := files[u]
			if !ok {
				perr = fmt.Errorf("realworld_test.go: no mock file for %s", u)
				return false
			}
			b, err := os.ReadFile(filepath.Join(dir, "test-files", "mock", name))
			if err != nil {
				perr = err
				return false
			}
			cur = &unseenPage{kind: "realworld", name: u, html: b}
			pages = append(pages, cur)
			return false
		case "assert.True", "assert.False":
			inner, ok := call.Args[1].(*ast.CallExpr)
			if !ok || cur == nil {
				return false
			}
			if id, ok := inner.Fun.(*ast.Ident); !ok || id.Name != "resContains" {
				return false // htmlContains: markup, not text
			}
			s := stringArg(inner.Args[1])
			if fn == "assert.True" {
				cur.with = append(cur.with, s)
			} else {
				cur.without = append(cur.without, s)
			}
			return false
		}
		return true
	})
	return pages, perr
}

// comparisonPages reads the segments of go-trafilatura's comparison set
// (scripts/comparison/data.go, an older copy of trafilatura's evaldata.json
// with pages trafilatura-eval no longer has) and their pages from
// test-files/comparison or test-files/mock.
func comparisonPages(dir string) ([]*unseenPage, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(dir, "scripts", "comparison", "data.go"), nil, 0)
	if err != nil {
		return nil, err
	}
	var pages []*unseenPage
	var perr error
	strs := func(e ast.Expr) []string {
		var out []string
		if cl, ok := e.(*ast.CompositeLit); ok {
			for _, el := range cl.Elts {
				out = append(out, stringArg(el))
			}
		}
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || perr != nil {
			return perr == nil
		}
		u := stringArg(kv.Key)
		cl, ok := kv.Value.(*ast.CompositeLit)
		if u == "" || !ok {
			return true
		}
		p := &unseenPage{kind: "realworld", name: u}
		var file string
		for _, el := range cl.Elts {
			fkv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			switch id, _ := fkv.Key.(*ast.Ident); id.Name {
			case "File":
				file = stringArg(fkv.Value)
			case "With":
				p.with = strs(fkv.Value)
			case "Without":
				p.without = strs(fkv.Value)
			}
		}
		for _, sub := range []string{"comparison", "mock"} {
			if b, err := os.ReadFile(filepath.Join(dir, "test-files", sub, file)); err == nil {
				p.html = b
				break
			}
		}
		if p.html == nil {
			perr = fmt.Errorf("scripts/comparison/data.go: %s: no page %s in test-files", u, file)
			return false
		}
		pages = append(pages, p)
		return false
	})
	return pages, perr
}

// goosePages reads the fixtures of the unfluff npm package (goose's test
// pages, Apache-2.0): each test_NAME.html with test_NAME.json, whose
// expected.cleaned_text is the start of the article (a full text on a few).
func goosePages(dir string) ([]*unseenPage, error) {
	jsons, _ := filepath.Glob(filepath.Join(dir, "test_*.json"))
	if len(jsons) == 0 {
		return nil, fmt.Errorf("%s: no unfluff fixtures (test_*.json)", dir)
	}
	var pages []*unseenPage
	for _, j := range jsons {
		raw, err := os.ReadFile(j)
		if err != nil {
			return nil, err
		}
		var fx struct {
			URL      string `json:"url"`
			Expected struct {
				CleanedText string `json:"cleaned_text"`
			} `json:"expected"`
		}
		if err := json.Unmarshal(raw, &fx); err != nil {
			return nil, fmt.Errorf("%s: %v", j, err)
		}
		if strings.TrimSpace(fx.Expected.CleanedText) == "" {
			continue
		}
		b, err := os.ReadFile(strings.TrimSuffix(j, ".json") + ".html")
		if err != nil {
			return nil, err
		}
		pages = append(pages, &unseenPage{kind: "goose", name: strings.TrimSuffix(filepath.Base(j), ".json"), html: b, expected: fx.Expected.CleanedText})
	}
	return pages, nil
}

// readabilityPages reads Mozilla Readability's test pages from the
// go-readability module.
func readabilityPages(dir string) ([]*unseenPage, error) {
	srcs, _ := filepath.Glob(filepath.Join(dir, "test-pages", "*", "source.html"))
	var pages []*unseenPage
	for _, s := range srcs {
		b, err := os.ReadFile(s)
		if err != nil {
			return nil, err
		}
		exp, err := os.ReadFile(filepath.Join(filepath.Dir(s), "expected.html"))
		if err != nil {
			continue
		}
		pages = append(pages, &unseenPage{kind: "readability", name: filepath.Base(filepath.Dir(s)), html: b, expected: htmlText(exp)})
	}
	return pages, nil
}

func htmlText(b []byte) string {
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
			sb.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return sb.String()
}

// loadUnseen builds the unseen set, deduped against shared.
func loadUnseen(shared, unfluff string) (pages []*unseenPage, dropped int, err error) {
	hashes, names, err := sharedHashes(shared)
	if err != nil {
		return nil, 0, err
	}
	tdir, err := moduleDir(trafilaturaModule)
	if err != nil {
		return nil, 0, err
	}
	rdir, err := moduleDir(readabilityModule)
	if err != nil {
		return nil, 0, err
	}
	rw, err := realworldPages(tdir)
	if err != nil {
		return nil, 0, err
	}
	cp, err := comparisonPages(tdir)
	if err != nil {
		return nil, 0, err
	}
	rw = append(rw, cp...)
	rp, err := readabilityPages(rdir)
	if err != nil {
		return nil, 0, err
	}
	all := append(rw, rp...)
	if unfluff != "" {
		gp, err := goosePages(unfluff)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, gp...)
	}
	seen := map[[32]byte]bool{}
	for _, p := range all {
		h := sha256.Sum256(p.html)
		if hashes[h] || seen[h] || names[p.name] || names[strings.TrimSuffix(p.name, "/")] {
			// Already shared, or the same page twice (a realworld page is
			// also in the comparison set: its first segments are kept).
			dropped++
			continue
		}
		if p.kind == "realworld" {
			// Some pages of the comparison set were archived cut short
			// (trafilatura-eval dropped them): a "with" segment that is not
			// in the page's text at all can be found by no extractor, so
			// it is not counted, and a page left with none is left out.
			text := norm(htmlText(p.html))
			var with []string
			for _, s := range p.with {
				if strings.Contains(text, norm(s)) {
					with = append(with, s)
				}
			}
			p.with = with
			if len(p.with) == 0 {
				dropped++
				continue
			}
		}
		seen[h] = true
		pages = append(pages, p)
	}
	return pages, dropped, nil
}

// runUnseen scores both extractors on the unseen set and prints the table;
// verbose lists every page where either one misses or keeps a segment (or
// scores below 0.95 word F1); dump, if set, is a directory that gets
// browseragent's text of each page.
func runUnseen(shared, unfluff string, fallback, verbose bool, dump string) int {
	pages, dropped, err := loadUnseen(shared, unfluff)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trafilatura-bench:", err)
		return 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "trafilatura-bench:", err)
		return 1
	}
	byPath := map[string]*unseenPage{}
	for i, p := range pages {
		byPath["/"+strconv.Itoa(i)] = p
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := byPath[r.URL.Path]
		if p == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write(p.html)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	if dump != "" {
		if err := os.MkdirAll(dump, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "trafilatura-bench:", err)
			return 1
		}
	}

	client := fetch.NewClient(nil)
	defer client.Close()
	type result struct {
		segs   counts
		f1     float64
		n      int
		dur    time.Duration
		detail []string
	}
	var ba, gt [3]result // 0 realworld, 1 readability, 2 goose
	check := func(r *result, p *unseenPage, text string, who string) {
		if p.kind == "realworld" {
			t := norm(text)
			var c counts
			var miss []string
			for _, s := range p.with {
				if strings.Contains(t, norm(s)) {
					c.tp++
				} else {
					c.fn++
					miss = append(miss, "  missed: "+s)
				}
			}
			for _, s := range p.without {
				if strings.Contains(t, norm(s)) {
					c.fp++
					miss = append(miss, "  kept:   "+s)
				}
			}
			r.segs.add(c)
			r.n++
			if len(miss) > 0 {
				r.detail = append(r.detail, fmt.Sprintf("%s %s\n%s", who, p.name, strings.Join(miss, "\n")))
			}
			return
		}
		if p.kind == "goose" {
			// The start of the article must be there (the fixture's text
			// up to its last whole word); a full text is also scored by
			// its words.
			lead := norm(p.expected)
			if i := strings.LastIndexByte(lead, ' '); i > 0 && len(lead) < 1000 {
				lead = lead[:i]
			}
			r.n++
			if len(lead) > 300 {
				lead = lead[:strings.LastIndexByte(lead[:300], ' ')]
			}
			if strings.Contains(norm(text), lead) {
				r.segs.tp++
			} else {
				r.segs.fn++
				r.detail = append(r.detail, fmt.Sprintf("%s %s lead missed: %s", who, p.name, lead))
			}
			return
		}
		_, _, f := wordf1.Score(wordf1.Words(p.expected), wordf1.Words(text))
		r.f1 += f
		r.n++
		if f < 0.95 {
			r.detail = append(r.detail, fmt.Sprintf("%s %s word F1 %.3f", who, p.name, f))
		}
	}
	for i, p := range pages {
		k := map[string]int{"realworld": 0, "readability": 1, "goose": 2}[p.kind]
		u := base + "/" + strconv.Itoa(i)
		t0 := time.Now()
		var text string
		if res, err := client.Fetch(context.Background(), u); err == nil {
			text = printed(res)
		}
		ba[k].dur += time.Since(t0)
		check(&ba[k], p, text, "browseragent")
		if dump != "" {
			os.WriteFile(filepath.Join(dump, fmt.Sprintf("%s-%03d.txt", p.kind, i)), []byte(p.name+"\n\n"+text), 0o644)
		}
		t0 = time.Now()
		text, _ = trafilaturaText(u, fallback)
		gt[k].dur += time.Since(t0)
		check(&gt[k], p, text, "go-trafilatura")
	}
	nrw, nrd := ba[0].n, ba[1].n
	fmt.Printf("unseen set: %d realworld pages (%d segments with, %d without) from %s, %d readability pages from %s; %d left out as already in %s\n",
		nrw, ba[0].segs.tp+ba[0].segs.fn, countWithout(pages), trafilaturaModule, nrd, readabilityModule, dropped, shared)
	if ba[2].n > 0 {
		fmt.Printf("            %d goose pages (unfluff's fixtures, the start of each article)\n", ba[2].n)
	}
	fmt.Printf("%-34s %6s %6s %6s %10s %10s %10s\n", "extractor", "rw P", "rw R", "rw F1", "rd wordF1", "goose lead", "s/page in")
	row := func(name string, r [3]result) {
		p, rc, f := r[0].segs.f1()
		fmt.Printf("%-34s %6.3f %6.3f %6.3f %10.3f %10.3f %10.4f\n", name, p, rc, f, r[1].f1/float64(max(r[1].n, 1)),
			float64(r[2].segs.tp)/float64(max(r[2].n, 1)),
			(r[0].dur+r[1].dur+r[2].dur).Seconds()/float64(max(r[0].n+r[1].n+r[2].n, 1)))
	}
	row("browseragent fetch", ba)
	gtName := "go-trafilatura"
	if fallback {
		gtName += " (with fallback)"
	}
	row(gtName, gt)
	if verbose {
		sortDetail := func(d []string) []string { sort.Strings(d); return d }
		var all []string
		for k := range ba {
			all = append(append(all, ba[k].detail...), gt[k].detail...)
		}
		for _, d := range sortDetail(all) {
			fmt.Println(d)
		}
	}
	return 0
}

func countWithout(pages []*unseenPage) int {
	n := 0
	for _, p := range pages {
		n += len(p.without)
	}
	return n
}

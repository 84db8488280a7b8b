package extract

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/internal/wordf1"
)

// The chooser's trainer. Its data recipe: every page of the three dev sets
// (WCXB's dev split, trafilatura's evaluation pages, Readability's test
// pages) is extracted twice, once forced to the article reading and once
// to the broad one; each is scored as its set scores it (word F1 of the
// printed text; for trafilatura's pages the segment F1). A page whose two
// readings score alike teaches nothing; any other is one sample, labelled
// by the better reading and weighted by how much better it is. Features
// are not scaled (trees split on each feature's quantiles); the trees are
// grown in a fixed order with ties broken by the first split found, so the
// same pages give the same trees. Generalisation is measured across domains:
// WCXB's domains (and the other sets' hosts) are split in two halves by
// a hash, a model is fitted on each half and scored on the other.

// choiceSample is one page's two readings.
type choiceSample struct {
	Set, ID, Type, Domain string
	FArticle, FBroad      float64
	X                     []float64
}

// chooserTable is the trainer's data: one line per page, its two readings'
// scores and its features, as choiceSamples measured them.
const chooserTable = "testdata/chooser-samples.tsv.gz"

// devPage is one page of a dev set and how its text is scored.
type devPage struct {
	set, id, typ, domain, url string
	html                      []byte
	score                     func(text string) float64
}

// devPages are the pages of the three dev sets, in a fixed order.
func devPages(t *testing.T) []devPage {
	t.Helper()
	var out []devPage
	for _, p := range loadWCXB(t) {
		out = append(out, devPage{"wcxb", p.id, p.typ, p.domain, p.url, p.html, func(s string) float64 { return wcxbF1(p.truth, s) }})
	}
	dir, evals := loadEvalPages(t)
	for _, p := range evals {
		b, err := gunzipFile(filepath.Join(dir, "html", p.File+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		score := func(s string) float64 { _, _, f := scoreSegments(p, s).scores(); return f }
		out = append(out, devPage{"trafilatura", p.File, "article", strings.TrimPrefix(hostOf(t, p.URL), "www."), "http://127.0.0.1/" + url.PathEscape(p.File), b, score})
	}
	for _, p := range loadReadabilityPages(t) {
		want := wordf1.Words(htmlText(p.expectedHTML))
		score := func(s string) float64 { _, _, f := wordf1.Score(want, wordf1.Words(s)); return f }
		out = append(out, devPage{"readability", p.name, "article", p.name, "http://127.0.0.1/" + p.name + "/", p.source, score})
	}
	return out
}

// sample reads p both ways; ok is false when the page has one reading.
func (p devPage) sample() (s choiceSample, ok bool) {
	ra, err := Extract(p.html, p.url, &Options{reading: readArticle})
	if err != nil || ra.choiceX == nil {
		return s, false
	}
	rb, err := Extract(p.html, p.url, &Options{reading: readBroad})
	if err != nil {
		return s, false
	}
	s = choiceSample{p.set, p.id, p.typ, p.domain, round6(p.score(printedText(ra))), round6(p.score(printedText(rb))), ra.choiceX}
	for i, v := range s.X {
		s.X[i] = round6(v)
	}
	return s, true
}

func (s choiceSample) line() string {
	f := []string{s.Set, s.ID, s.Type, s.Domain, fmt.Sprintf("%g", s.FArticle), fmt.Sprintf("%g", s.FBroad)}
	for _, v := range s.X {
		f = append(f, fmt.Sprintf("%g", v))
	}
	return strings.Join(f, "\t")
}

func parseSample(line string) (choiceSample, error) {
	f := strings.Split(line, "\t")
	if len(f) != 6+nChoiceFeatures {
		return choiceSample{}, fmt.Errorf("%d fields, want %d", len(f), 6+nChoiceFeatures)
	}
	s := choiceSample{Set: f[0], ID: f[1], Type: f[2], Domain: f[3]}
	nums := make([]float64, len(f)-4)
	for i, v := range f[4:] {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return s, err
		}
		nums[i] = x
	}
	s.FArticle, s.FBroad, s.X = nums[0], nums[1], nums[2:]
	return s, nil
}

func writeTable(t *testing.T, samples []choiceSample) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	for _, s := range samples {
		fmt.Fprintln(zw, s.line())
	}
	zw.Close()
	if err := os.MkdirAll(filepath.Dir(chooserTable), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chooserTable, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTable(t *testing.T) []choiceSample {
	raw, err := gunzipFile(chooserTable)
	if err != nil {
		t.Fatalf("%v (CHOOSER_WRITE=1 go test -run TestChooserWeights ./extract/ makes it)", err)
	}
	var out []choiceSample
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		s, err := parseSample(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", chooserTable, i+1, err)
		}
		out = append(out, s)
	}
	return out
}

// chooserModel is a fitted chooser.
type chooserModel struct {
	bias  float64
	nodes []chooserNode
	roots []int
}

func (m *chooserModel) score(x []float64) float64 { return treesScore(m.bias, m.nodes, m.roots, x) }

// The boosting's settings: trees, learning rate, depth, L2 penalty of a
// leaf, candidate thresholds per feature (its quantiles).
const (
	chooserTrees     = 300
	chooserRate      = 0.05
	chooserDepth     = 3
	chooserLambda    = 1.0
	chooserQuantiles = 32
)

// fitChooser fits gradient-boosted trees for the logistic loss on the
// samples whose readings differ, each weighted by how much they differ.
func fitChooser(samples []choiceSample) *chooserModel {
	var rows []choiceSample
	for _, s := range samples {
		if math.Abs(s.FBroad-s.FArticle) > 1e-9 {
			rows = append(rows, s)
		}
	}
	n, d := len(rows), nChoiceFeatures
	thr := make([][]float64, d)
	for j := 0; j < d; j++ {
		v := make([]float64, n)
		for i, s := range rows {
			v[i] = s.X[j]
		}
		sort.Float64s(v)
		for q := 1; q < chooserQuantiles; q++ {
			if t := v[q*n/chooserQuantiles]; len(thr[j]) == 0 || thr[j][len(thr[j])-1] != t {
				thr[j] = append(thr[j], t)
			}
		}
	}
	y, w := make([]float64, n), make([]float64, n)
	var sw, sy float64
	for i, s := range rows {
		if s.FBroad > s.FArticle {
			y[i] = 1
		}
		w[i] = math.Abs(s.FBroad - s.FArticle)
		sw += w[i]
		sy += w[i] * y[i]
	}
	m := &chooserModel{bias: round6(math.Log(sy / (sw - sy)))}
	f := make([]float64, n)
	for i := range f {
		f[i] = m.bias
	}
	g, h := make([]float64, n), make([]float64, n)
	var build func(idx []int, depth int) int
	build = func(idx []int, depth int) int {
		var G, H float64
		for _, i := range idx {
			G += g[i]
			H += h[i]
		}
		me := len(m.nodes)
		m.nodes = append(m.nodes, chooserNode{left: -1, right: -1, value: round6(-chooserRate * G / (H + chooserLambda))})
		if depth == chooserDepth || len(idx) < 10 {
			return me
		}
		best, bf, bt := 0.0, -1, 0.0
		base := G * G / (H + chooserLambda)
		for j := 0; j < d; j++ {
			for _, t := range thr[j] {
				var gl, hl float64
				for _, i := range idx {
					if rows[i].X[j] <= t {
						gl += g[i]
						hl += h[i]
					}
				}
				gr, hr := G-gl, H-hl
				if hl < 1e-3 || hr < 1e-3 {
					continue
				}
				if gain := gl*gl/(hl+chooserLambda) + gr*gr/(hr+chooserLambda) - base; gain > best {
					best, bf, bt = gain, j, t
				}
			}
		}
		if bf < 0 {
			return me
		}
		var li, ri []int
		for _, i := range idx {
			if rows[i].X[bf] <= bt {
				li = append(li, i)
			} else {
				ri = append(ri, i)
			}
		}
		m.nodes[me].feat, m.nodes[me].thr, m.nodes[me].value = bf, bt, 0
		l := build(li, depth+1)
		r := build(ri, depth+1)
		m.nodes[me].left, m.nodes[me].right = l, r
		return me
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	for it := 0; it < chooserTrees; it++ {
		for i := range rows {
			p := 1 / (1 + math.Exp(-f[i]))
			g[i] = w[i] * (p - y[i])
			h[i] = w[i] * p * (1 - p)
		}
		root := build(all, 0)
		m.roots = append(m.roots, root)
		for i := range rows {
			f[i] += treesScore(0, m.nodes, []int{root}, rows[i].X)
		}
	}
	return m
}

// round6 keeps 6 significant digits, as the weights file does.
func round6(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	e := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*e) / e
}

// source is the weights file for m.
func (m *chooserModel) source() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by TestChooserWeights (CHOOSER_WRITE=1); DO NOT EDIT.\n\npackage extract\n\n")
	fmt.Fprintf(&b, "var chooserBias = %g\n\n", m.bias)
	fmt.Fprintf(&b, "var chooserRoots = []int{")
	for i, r := range m.roots {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", r)
	}
	fmt.Fprintf(&b, "}\n\nvar chooserNodes = []chooserNode{\n")
	for _, n := range m.nodes {
		fmt.Fprintf(&b, "\t{%d, %g, %g, %d, %d},\n", n.feat, n.thr, n.value, n.left, n.right)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// TestChooserWeights checks the chooser against its trainer: the shipped
// weights must be what fitChooser learns from the table, and the table
// what extraction measures today (every 10th page is read again both
// ways). CHOOSER_WRITE=1 reads every dev page both ways and rewrites the
// table and the weights: the one command that retrains. It logs the
// model's scores on domains it was not fitted on.
func TestChooserWeights(t *testing.T) {
	if testing.Short() {
		t.Skip("reads dev pages both ways: not in -short")
	}
	pages := devPages(t)
	var samples []choiceSample
	if os.Getenv("CHOOSER_WRITE") != "" {
		for _, p := range pages {
			if s, ok := p.sample(); ok {
				samples = append(samples, s)
			}
		}
		writeTable(t, samples)
	} else {
		samples = readTable(t)
		byKey := map[string]choiceSample{}
		for _, s := range samples {
			byKey[s.Set+"/"+s.ID] = s
		}
		for i, p := range pages {
			if i%10 != 0 {
				continue
			}
			got, ok := p.sample()
			want, had := byKey[p.set+"/"+p.id]
			if ok != had {
				t.Errorf("%s %s: has two readings %v, the table says %v", p.set, p.id, ok, had)
				continue
			}
			if ok && got.line() != want.line() {
				t.Errorf("%s %s: read both ways now\n%s\nthe table says\n%s", p.set, p.id, got.line(), want.line())
			}
		}
		if t.Failed() {
			t.Fatalf("%s is not what extraction measures: run CHOOSER_WRITE=1 go test -run TestChooserWeights ./extract/", chooserTable)
		}
	}
	m := fitChooser(samples)
	t.Log(heldOutTable(samples))

	const file = "extract_choose_weights.go"
	got := m.source()
	if os.Getenv("CHOOSER_WRITE") != "" {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	shipped, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, got) {
		t.Errorf("%s is not what the trainer learns from %s; run CHOOSER_WRITE=1 go test -run TestChooserWeights ./extract/ to rewrite it. Trained:\n%s", file, chooserTable, got)
	}
}

// heldOutTable scores models fitted on one half of the domains on the
// other half's pages, per set and per WCXB page type.
func heldOutTable(samples []choiceSample) string {
	type agg struct{ n, art, broad, oracle, model float64 }
	tab := map[string]*agg{}
	add := func(k string, s choiceSample, useBroad bool) {
		a := tab[k]
		if a == nil {
			a = &agg{}
			tab[k] = a
		}
		a.n++
		a.art += s.FArticle
		a.broad += s.FBroad
		a.oracle += math.Max(s.FArticle, s.FBroad)
		if useBroad {
			a.model += s.FBroad
		} else {
			a.model += s.FArticle
		}
	}
	for _, half := range []string{"a", "b"} {
		var train []choiceSample
		for _, s := range samples {
			if wcxbHalf(s.Domain) != half {
				train = append(train, s)
			}
		}
		hm := fitChooser(train)
		for _, s := range samples {
			if wcxbHalf(s.Domain) == half {
				if s.Set == "wcxb" {
					add("wcxb "+s.Type, s, hm.score(s.X) > 0)
				}
				add(s.Set, s, hm.score(s.X) > 0)
			}
		}
	}
	keys := make([]string, 0, len(tab))
	for k := range tab {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "\nheld-out domains (fitted on the other half), mean per-page F1 of the pages with two readings:\n%-22s %5s %7s %7s %7s %7s\n", "set", "pages", "article", "broad", "model", "oracle")
	for _, k := range keys {
		a := tab[k]
		fmt.Fprintf(&b, "%-22s %5.0f %7.3f %7.3f %7.3f %7.3f\n", k, a.n, a.art/a.n, a.broad/a.n, a.model/a.n, a.oracle/a.n)
	}
	return b.String()
}

package extract

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkExtract runs extraction plus rendering over every shared test
// page per iteration; MB/s is source HTML processed per second.
func BenchmarkExtract(b *testing.B) {
	pages := loadReadabilityPages(b)
	var total int64
	for _, p := range pages {
		total += int64(len(p.source))
	}
	for _, f := range []Format{FormatMarkdown, FormatText} {
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range pages {
					res, err := Extract(p.source, "http://127.0.0.1/"+p.name+"/", nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := res.Render(f); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(pages)), "ms/page")
		})
	}
}

// BenchmarkExtractWCXB times extraction of each WCXB dev page, rendered as
// `fetch -f text` prints it, and reports the median and mean per page: the
// issue's guard is the median (10 ms).
func BenchmarkExtractWCXB(b *testing.B) {
	pages := loadWCXB(b)
	var per []time.Duration
	for b.Loop() {
		per = per[:0]
		for _, p := range pages {
			t0 := time.Now()
			res, err := Extract(p.html, p.url, nil)
			if err == nil {
				printedText(res)
			}
			per = append(per, time.Since(t0))
		}
	}
	slices.Sort(per)
	var sum time.Duration
	for _, d := range per {
		sum += d
	}
	b.ReportMetric(float64(per[len(per)/2].Microseconds())/1000, "ms-median/page")
	b.ReportMetric(float64(sum.Microseconds())/1000/float64(len(per)), "ms-mean/page")
}

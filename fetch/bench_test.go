package fetch

import "testing"

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

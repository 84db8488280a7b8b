package extract

import (
	"slices"
	"syscall"
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
// issue's guard is the median (10 ms). The process's CPU time per page is
// reported too: on a shared machine it varies far less than the wall
// clock (run with -cpu 1, so no other goroutine's work is counted in).
func BenchmarkExtractWCXB(b *testing.B) {
	pages := loadWCXB(b)
	var per, cpu []time.Duration
	for b.Loop() {
		per, cpu = per[:0], cpu[:0]
		for _, p := range pages {
			t0, c0 := time.Now(), processCPU()
			res, err := Extract(p.html, p.url, nil)
			if err == nil {
				printedText(res)
			}
			per = append(per, time.Since(t0))
			cpu = append(cpu, processCPU()-c0)
		}
	}
	b.ReportMetric(medianMS(per), "ms-median/page")
	b.ReportMetric(medianMS(cpu), "cpu-ms-median/page")
	var sum time.Duration
	for _, d := range per {
		sum += d
	}
	b.ReportMetric(float64(sum.Microseconds())/1000/float64(len(per)), "ms-mean/page")
}

// medianMS sorts ds and returns their median in milliseconds.
func medianMS(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}

// processCPU is the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

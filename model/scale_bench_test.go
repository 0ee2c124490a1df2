package model

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchCatalogues are the synthetic catalogues of the scale benchmarks:
// every pair measured (partners=all), and each workload measured with
// about 50 partners, the catalogue whose pairs grow linearly with its
// workloads.
var benchCatalogues = []struct{ jobs, partners int }{
	{100, 0}, {400, 0}, {1000, 0}, {100, 50}, {400, 50}, {1000, 50},
}

func catalogueName(jobs, partners int) string {
	if partners == 0 {
		return fmt.Sprintf("jobs=%d/partners=all", jobs)
	}
	return fmt.Sprintf("jobs=%d/partners=%d", jobs, partners)
}

// BenchmarkFitCatalogue fits every model, one after the other, on every
// pair of synthetic catalogues (what `coloc fit --workers 1` does) and
// reports the CPU time besides the wall time. COLOC_BENCH_PROGRESS=1
// prints each model's time; COLOC_BENCH_MODELS (comma-separated) limits
// the models.
func BenchmarkFitCatalogue(b *testing.B) {
	for _, c := range benchCatalogues {
		b.Run(catalogueName(c.jobs, c.partners), func(b *testing.B) {
			co := DefaultCatalogueOptions
			co.Jobs, co.Partners = c.jobs, c.partners
			d, err := Catalogue(co)
			if err != nil {
				b.Fatal(err)
			}
			t, err := NewTrain(d.Space, d.Obs, 1)
			if err != nil {
				b.Fatal(err)
			}
			names := Names()
			if m := os.Getenv("COLOC_BENCH_MODELS"); m != "" {
				names = strings.Split(m, ",")
			}
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				for _, name := range names {
					start := time.Now()
					m, _ := New(name)
					if err := m.Fit(t); err != nil {
						b.Fatal(err)
					}
					if os.Getenv("COLOC_BENCH_PROGRESS") != "" {
						fmt.Fprintf(os.Stderr, "fit %-10s %6.2fs\n", name, time.Since(start).Seconds())
					}
				}
			}
			b.ReportMetric((processCPU()-cpu0)/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(len(d.Obs)), "pairs")
		})
	}
}

// processCPU is the CPU time (user + system) this process has used, in
// seconds: on a shared machine it moves far less with the load than the
// wall time does.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

package model

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFitCatalogue fits every model, one after the other, on every
// pair of synthetic catalogues (what `coloc fit --workers 1` does).
// COLOC_BENCH_PROGRESS=1 prints each model's time; COLOC_BENCH_JOBS
// (comma-free, one size) replaces the sizes.
func BenchmarkFitCatalogue(b *testing.B) {
	sizes := []int{100, 400, 1000}
	if s := os.Getenv("COLOC_BENCH_JOBS"); s != "" {
		var n int
		fmt.Sscan(s, &n)
		sizes = []int{n}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			co := DefaultCatalogueOptions
			co.Jobs = n
			d, err := Catalogue(co)
			if err != nil {
				b.Fatal(err)
			}
			t, err := NewTrain(d.Space, d.Obs, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				for _, name := range Names() {
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

package eval

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// benchCatalogues are the synthetic catalogues of the scale benchmarks:
// every pair measured (partners=all), or about 50 partners per workload.
var benchCatalogues = []struct{ jobs, partners int }{
	{100, 0}, {400, 0}, {1000, 0}, {100, 50}, {400, 50}, {1000, 50},
}

// BenchmarkEvalCatalogue runs the sweep `coloc eval --protocol pairs
// --fractions 0.2 --seeds 1` over every model on synthetic catalogues.
// COLOC_BENCH_PROGRESS=1 prints each model's time. Besides the time it
// reports each model's MAE over the noise floor (1: as good as knowing
// the noise-free value of every pair).
func BenchmarkEvalCatalogue(b *testing.B) {
	for _, c := range benchCatalogues {
		name := fmt.Sprintf("jobs=%d/partners=%d", c.jobs, c.partners)
		if c.partners == 0 {
			name = fmt.Sprintf("jobs=%d/partners=all", c.jobs)
		}
		b.Run(name, func(b *testing.B) {
			co := model.DefaultCatalogueOptions
			co.Jobs, co.Partners = c.jobs, c.partners
			d, err := model.Catalogue(co)
			if err != nil {
				b.Fatal(err)
			}
			o := Options{Protocols: []string{"pairs"}, Fractions: []float64{0.2}, Seeds: 1, Models: model.Names(), Workers: 1}
			if os.Getenv("COLOC_BENCH_PROGRESS") != "" {
				o.Progress = os.Stderr
			}
			b.ResetTimer()
			cpu0 := processCPU()
			var res *Result
			for i := 0; i < b.N; i++ {
				if res, err = Run(d, o); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			for _, s := range res.Summaries {
				b.ReportMetric(s.MAEMedian/co.NoiseFloor(), s.Model+"-mae/floor")
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

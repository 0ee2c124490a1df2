package policies

import (
	"fmt"
	"testing"

	"github.com/coloc-dev/coloc/sim"
)

// BenchmarkSimulate replays generated Gavel-format traces (sim.Generate,
// seed 1, a job every 150 s on average) of 10k, 50k and 100k jobs on
// 1,024 GPUs (128 nodes of 8: 43 V100, 43 P100, 42 K80) under each
// policy, and reports jobs/s. Run one size at a time, e.g.
// -bench 'Simulate/^10000$/'.
func BenchmarkSimulate(b *testing.B) {
	dir, truth := gavelModel(b)
	topo := simTopo(b, "v100 v100 43 8", "p100 p100 43 8", "k80 k80 42 8")
	for _, n := range []int{10_000, 50_000, 100_000} {
		jobs, err := sim.Generate(sim.GenOptions{Jobs: n, Seed: 1, Workloads: truth.Workloads(), Rates: truth, RefType: "v100", MeanGap: 150})
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"fifo", "backfill", "greedy-pack", "coloc", "oracle"} {
			b.Run(fmt.Sprintf("%d/%s", n, name), func(b *testing.B) {
				x := Experiment{Jobs: jobs, Topology: topo, Truth: truth, Options: sim.DefaultOptions,
					Env: sim.Env{Seed: 1, Models: dir}, Policies: []string{name}}
				for b.Loop() {
					if _, err := x.Run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			})
		}
	}
}

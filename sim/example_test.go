package sim_test

import (
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
)

// rates is a tiny ground truth: two workloads, one GPU type.
type rates struct{}

func (rates) Solo(w string, s sim.Shape) (float64, bool) {
	return map[string]float64{"A": 2, "B": 3}[w], s.GPUType == "v100" && s.GPUs == 1
}

func (rates) Colocated(w, p string, s sim.Shape) (float64, bool) {
	return map[string]float64{"A": 1, "B": 2}[w], s.GPUType == "v100"
}

// Two jobs on a one-GPU cluster: greedy-pack shares the GPU, fifo makes
// the second job wait.
func Example() {
	spec, err := cluster.Parse(strings.NewReader(`
version: 1
nodes:
  - {name: n, gpu_type: v100, gpus: 1}
`), "one.yaml")
	if err != nil {
		panic(err)
	}
	topo, _ := sim.NewTopology(spec)
	trace, err := sim.ReadTrace(strings.NewReader(
		"A\tcmd\t-n\t1\t100\t0\t1\n"+
			"B\tcmd\t-n\t1\t300\t0\t1\n"), "two.trace")
	if err != nil {
		panic(err)
	}
	for _, p := range []sim.Policy{sim.NewFIFO(sim.SoloOnly(rates{})), sim.NewGreedyPack(sim.SoloOnly(rates{}))} {
		r, err := sim.Run(topo, trace.Jobs, rates{}, p, sim.DefaultOptions)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-11s JCT A %5.1f s, B %5.1f s, makespan %5.1f s, util %.2f\n",
			r.Policy, r.Jobs[0].JCT, r.Jobs[1].JCT, r.Makespan, r.GPUUtil)
	}
	// Output:
	// fifo        JCT A  50.0 s, B 150.0 s, makespan 150.0 s, util 1.00
	// greedy-pack JCT A 100.0 s, B 133.3 s, makespan 133.3 s, util 1.00
}

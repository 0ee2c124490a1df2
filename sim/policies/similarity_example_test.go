package policies_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/policies"
)

// The similarity policy next to fifo on Gavel's minimize_makespan trace
// (100 jobs at t=0) on the 108-GPU example cluster, with the similarity
// model fitted on the shipped Gavel data (what `coloc fit --models
// similarity` writes).
func ExampleNewSimilarity() {
	data := filepath.Join("..", "..", "datasets", "reference", "gavel")
	d, err := model.LoadData(data)
	if err != nil {
		panic(err)
	}
	fitted, err := model.FitAll(d, []string{"similarity"}, model.DefaultSeed)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "models")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if _, err := model.WriteDir(dir, d, fitted); err != nil {
		panic(err)
	}
	ds, err := datasets.Open(data)
	if err != nil {
		panic(err)
	}
	truth, err := sim.NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		panic(err)
	}
	spec, err := cluster.Load(filepath.Join("..", "..", "examples", "cluster-gavel.yaml"))
	if err != nil {
		panic(err)
	}
	topo, err := sim.NewTopology(spec)
	if err != nil {
		panic(err)
	}
	tr, err := sim.LoadTrace(filepath.Join("..", "..", "examples", "traces", "physical_cluster", "minimize_makespan.trace"))
	if err != nil {
		panic(err)
	}
	env := sim.Env{Seed: 1, Solo: sim.SoloOnly(truth)}
	sp, err := policies.NewSimilarity(env, dir, policies.DefaultSimilarityOptions)
	if err != nil {
		panic(err)
	}
	for _, p := range []sim.Policy{sim.NewFIFO(env.Solo), sp} {
		r, err := sim.Run(topo, tr.Jobs, truth, p, sim.DefaultOptions)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-10s avg JCT %5.2f h, makespan %5.2f h, %2d restarts, %2d jobs shared\n",
			r.Policy, r.AvgJCT/3600, r.Makespan/3600, r.Restarts, r.Shared)
	}
	// Output:
	// fifo       avg JCT  8.07 h, makespan 43.84 h,  0 restarts,  0 jobs shared
	// similarity avg JCT  4.95 h, makespan 16.89 h, 31 restarts, 28 jobs shared
}

package policies

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/peers"
)

// BenchmarkSimulate replays generated Gavel-format traces (sim.Generate,
// seed 1, a job every 150 s on average) of 10k, 50k and 100k jobs on
// 1,024 GPUs (128 nodes of 8: 43 V100, 43 P100, 42 K80, as
// examples/cluster-1024.yaml) under each policy (the baselines, the
// published peers and coloc's), and reports jobs/s. Run
// one size at a time, e.g. -bench 'Simulate/^10000/'; -short leaves out
// the 100k traces. coloc reads its models from $COLOC_MODELS (a directory
// written by 'coloc fit') when set; otherwise the benchmark fits IASP and
// IAPP first, which takes minutes.
func BenchmarkSimulate(b *testing.B) {
	dir, truth := gavelModel(b)
	if env := os.Getenv("COLOC_MODELS"); env != "" {
		dir = env
	}
	sizes := []int{10_000, 50_000, 100_000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, n := range sizes {
		jobs, err := sim.Generate(sim.GenOptions{Jobs: n, Seed: 1, Workloads: truth.Workloads(), Rates: truth, RefType: "v100", MeanGap: 150})
		if err != nil {
			b.Fatal(err)
		}
		topo := simTopo(b, "v100 v100 43 8", "p100 p100 43 8", "k80 k80 42 8")
		for _, name := range []string{"fifo", "backfill", "greedy-pack", "similarity", "gavel-las", "gavel-las-packed", "tiresias", "srtf-known", "coloc", "oracle"} {
			b.Run(fmt.Sprintf("%d/%s", n, name), func(b *testing.B) {
				if name == "coloc" && os.Getenv("COLOC_MODELS") == "" {
					dir = benchModels(b)
				}
				info, err := sim.Lookup(slices.Concat(sim.Baselines(), peers.Peers(), Policies(Config{Models: dir})), name)
				if err != nil {
					b.Fatal(err)
				}
				env := sim.Env{Seed: 1, Solo: sim.SoloOnly(truth), Truth: truth}
				for b.Loop() {
					pol, err := info.New(env)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := sim.Run(topo, jobs, truth, pol, sim.DefaultOptions); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			})
		}
	}
}

var benchModelDir string

// benchModels fits the models coloc reads (IASP, IAPP, similarity) on
// the reference Gavel data, once per test binary.
func benchModels(b *testing.B) string {
	b.Helper()
	if benchModelDir != "" {
		return benchModelDir
	}
	d, err := model.LoadData("../../datasets/reference/gavel")
	if err != nil {
		b.Fatal(err)
	}
	fitted, err := model.FitAll(d, []string{"iasp", "iapp", "similarity"}, model.DefaultSeed)
	if err != nil {
		b.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "coloc-bench-")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := model.WriteDir(dir, d, fitted); err != nil {
		b.Fatal(err)
	}
	benchModelDir = dir
	return dir
}

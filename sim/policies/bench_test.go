package policies

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/peers"
)

// BenchmarkSimulate replays generated Gavel-format traces (sim.Generate,
// seed 1, a job every 150 s on average) of 10k, 50k and 100k jobs, and
// the 50k trace played twice, on 1,024 GPUs (128 nodes of 8: 43 V100,
// 43 P100, 42 K80, as examples/cluster-1024.yaml) under each policy (the
// baselines, the published peers and coloc's). It reports jobs/s and
// what the policy was asked: scheduling points per job, jobs waiting and
// running per point, the share of points with five or more jobs waiting,
// and the microseconds a decision took on average. Run one size at a time, e.g.
// -bench 'Simulate/^10000/'; -short leaves out the 100k traces and the
// 50k trace twice. coloc reads its models from $COLOC_MODELS (a
// directory written by 'coloc fit') when set; otherwise the benchmark
// fits IASP and IAPP first, which takes minutes.
func BenchmarkSimulate(b *testing.B) {
	dir, truth := gavelModel(b)
	if env := os.Getenv("COLOC_MODELS"); env != "" {
		dir = env
	}
	// 50000x2 is the 50k trace played twice, the second copy 150 s after
	// the first's last arrival: twice the jobs at the same load, so its
	// time over the 50k trace's is the growth of the work per job alone
	// (the 100k trace's second half is more loaded than its first).
	sizes := []struct {
		name      string
		n, copies int
	}{{"10000", 10_000, 1}, {"50000", 50_000, 1}, {"100000", 100_000, 1}, {"50000x2", 50_000, 2}}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, size := range sizes {
		once, err := sim.Generate(sim.GenOptions{Jobs: size.n, Seed: 1, Workloads: truth.Workloads(), Rates: truth, RefType: "v100", MeanGap: 150})
		if err != nil {
			b.Fatal(err)
		}
		jobs, n := repeatTrace(once, size.copies, 150), size.n*size.copies
		topo := simTopo(b, "v100 v100 43 8", "p100 p100 43 8", "k80 k80 42 8")
		for _, name := range []string{"fifo", "backfill", "greedy-pack", "similarity", "gavel-las", "gavel-las-packed", "tiresias", "srtf-known", "coloc", "oracle"} {
			b.Run(size.name+"/"+name, func(b *testing.B) {
				if name == "coloc" && os.Getenv("COLOC_MODELS") == "" {
					dir = benchModels(b)
				}
				info, err := sim.Lookup(slices.Concat(sim.Baselines(), peers.Peers(), Policies(Config{Models: dir})), name)
				if err != nil {
					b.Fatal(err)
				}
				env := sim.Env{Seed: 1, Solo: sim.SoloOnly(truth), Truth: truth}
				var c counted
				for b.Loop() {
					pol, err := info.New(env)
					if err != nil {
						b.Fatal(err)
					}
					c.Policy = pol
					if _, err := sim.Run(topo, jobs, truth, &c, sim.DefaultOptions); err != nil {
						b.Fatal(err)
					}
				}
				runs := float64(b.N)
				b.ReportMetric(float64(n)*runs/b.Elapsed().Seconds(), "jobs/s")
				b.ReportMetric(float64(c.points)/(float64(n)*runs), "points/job")
				b.ReportMetric(float64(c.waiting)/float64(max(c.points, 1)), "waiting/point")
				b.ReportMetric(float64(c.running)/float64(max(c.points, 1)), "running/point")
				b.ReportMetric(float64(c.busy)/float64(max(c.points, 1)), "share-5+waiting")
				b.ReportMetric(float64(c.spent.Microseconds())/float64(max(c.points, 1)), "µs/point")
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

// repeatTrace returns jobs played copies times in a row, each copy's
// arrivals shifted by the previous copy's last arrival plus gap seconds.
func repeatTrace(jobs []sim.TraceJob, copies int, gap float64) []sim.TraceJob {
	out := slices.Clone(jobs)
	shift := 0.0
	for range copies - 1 {
		shift += jobs[len(jobs)-1].Arrival + gap
		for _, j := range jobs {
			j.Arrival += shift
			out = append(out, j)
		}
	}
	return out
}

// counted is a policy that counts what it was asked: the scheduling
// points, the jobs waiting and running at them, the points with five or
// more jobs waiting and the time its decisions took. How a trace loads
// the cluster decides how many jobs a decision weighs, so these say why
// the time per job moves from one trace to another.
type counted struct {
	sim.Policy
	points, waiting, running, busy int
	spent                          time.Duration
}

func (c *counted) Schedule(v *sim.View) (*sim.Plan, error) {
	start := time.Now()
	plan, err := c.Policy.Schedule(v)
	c.spent += time.Since(start)
	c.points++
	c.waiting += len(v.Waiting)
	c.running += len(v.Running)
	if len(v.Waiting) >= 5 {
		c.busy++
	}
	return plan, err
}

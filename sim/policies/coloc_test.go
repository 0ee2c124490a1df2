package policies

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
)

// truth builds a ground truth on GPU type g: every workload runs 1
// iteration/s alone; pairs (a|b) at the given normalized throughputs.
func truth(t *testing.T, workloads []string, pairs map[[2]string]float64) *sim.Measured {
	t.Helper()
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitItersPerS}
	for _, w := range workloads {
		solo.Rows = append(solo.Rows, datasets.Solo{Workload: w, DeviceType: "g", Degree: 1, Throughput: 1, Source: "test"})
	}
	ps := &datasets.Pairs{ThroughputUnit: datasets.UnitItersPerS}
	for k, y := range pairs {
		ps.Rows = append(ps.Rows, datasets.Pair{Workload: k[0], Partner: k[1], DeviceType: "g", Degree: 1,
			Solo: 1, Colocated: y, Normalized: y, Status: datasets.StatusOK, Source: "test"})
	}
	m, err := sim.NewMeasured(solo, ps)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func both(m map[[2]string]float64, a, b string, ab, ba float64) {
	m[[2]string{a, b}], m[[2]string{b, a}] = ab, ba
}

// fake is the estimator coloc would get from models: solo rates from the
// truth, normalized throughputs as "predicted".
type fake struct {
	solo sim.Rates
	y    map[[2]string]float64
}

func (f fake) Solo(t *place.Task, typ string, d int, spread bool) (float64, bool) {
	return f.solo.Solo(t.Workload, sim.Shape{GPUType: typ, GPUs: d, Spread: spread})
}

func (f fake) Normalized(_ place.Level, t, q *place.Task, _ string, _ int) (float64, string, bool) {
	y, ok := f.y[[2]string{t.Workload, q.Workload}]
	return y, "predicted:fake", ok
}

func twoGPUs(t *testing.T) *sim.Topology {
	t.Helper()
	topo, err := sim.NewTopology(&cluster.Spec{Version: 1, Groups: []cluster.NodeGroup{{Name: "n", GPUType: "g", GPUs: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// Three jobs of 100 iterations on a 2-GPU cluster, at 1 iteration/s
// alone. A and B interfere badly (0.5 each) and go on separate GPUs; C
// arrives with them and must share. Measured: C next to A keeps 0.9 each,
// next to B 0.5 each. The predictions coloc gets have it the other way
// round, so coloc puts C with B while the oracle puts it with A:
//
//	oracle: B alone 100 s; A and C at 0.9/s: 100/0.9 s each.
//	coloc:  A alone 100 s; B and C at 0.5/s: 200 s each.
func TestColocFollowsPredictionsOracleTheTruth(t *testing.T) {
	measuredPairs := map[[2]string]float64{}
	both(measuredPairs, "A", "B", 0.5, 0.5)
	both(measuredPairs, "A", "C", 0.9, 0.9)
	both(measuredPairs, "B", "C", 0.5, 0.5)
	tr := truth(t, []string{"A", "B", "C"}, measuredPairs)
	pred := map[[2]string]float64{}
	both(pred, "A", "B", 0.5, 0.5)
	both(pred, "A", "C", 0.5, 0.5)
	both(pred, "B", "C", 0.9, 0.9)
	jobs := []sim.TraceJob{
		{Workload: "A", Steps: 100, Scale: 1}, {Workload: "B", Steps: 100, Scale: 1}, {Workload: "C", Steps: 100, Scale: 1},
	}
	coloc := NewPlacement("coloc", func(*sim.View) place.Estimator { return fake{sim.SoloOnly(tr), pred} }, nil, 0)
	for _, c := range []struct {
		pol  sim.Policy
		jcts []float64
	}{
		{NewOracle(tr, 0), []float64{100 / 0.9, 100, 100 / 0.9}},
		{coloc, []float64{100, 200, 200}},
	} {
		res, err := sim.Run(twoGPUs(t), jobs, tr, c.pol, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range c.jcts {
			if got := res.Jobs[i].JCT; math.Abs(got-want) > 1e-9 {
				t.Errorf("%s: job %s JCT %v, want %v", c.pol.Name(), jobs[i].Workload, got, want)
			}
		}
	}
}

// A pair predicted (and measured) to interfere badly is kept apart while a
// GPU is free, even though the first GPU has room for a second job; a
// third job that would drop below 0.8 next to either waits.
func TestBadPairKeptApartWhileAGPUIsFree(t *testing.T) {
	ps := map[[2]string]float64{}
	both(ps, "A", "B", 0.5, 0.5)
	both(ps, "A", "C", 0.7, 0.9)
	both(ps, "B", "C", 0.9, 0.6)
	tr := truth(t, []string{"A", "B", "C"}, ps)
	jobs := []sim.TraceJob{
		{Workload: "A", Steps: 100, Scale: 1}, {Workload: "B", Steps: 100, Arrival: 10, Scale: 1}, {Workload: "C", Steps: 10, Arrival: 20, Scale: 1},
	}
	res, err := sim.Run(twoGPUs(t), jobs, tr, NewOracle(tr, 0), sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{100, 100, 90} { // C: arrives at 20, runs 100-110
		j := res.Jobs[i]
		if j.JCT != want || j.Shared != 0 {
			t.Errorf("job %s: JCT %v shared %v s, want %v alone", j.Workload, j.JCT, j.Shared, want)
		}
	}
	// C waited for A to finish at t=100, then ran alone for 10 s.
	if c := res.Jobs[2]; c.Start != 100 {
		t.Errorf("C started at %v, want 100 (when A finished)", c.Start)
	}
	// With a threshold of 0.6, C shares with B at once (0.9 and 0.6).
	res, err = sim.Run(twoGPUs(t), jobs, tr, NewOracle(tr, 0.6), sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Jobs[2]; c.Start != 20 || c.Shared == 0 {
		t.Errorf("threshold 0.6: C started at %v, shared %v s; want at 20 with B", c.Start, c.Shared)
	}
}

func TestFactories(t *testing.T) {
	infos := Policies()
	names := []string{}
	for _, p := range infos {
		names = append(names, p.Name)
	}
	if !reflect.DeepEqual(names, []string{"coloc", "similarity", "oracle"}) {
		t.Errorf("policies %v", names)
	}
	coloc, _ := sim.Lookup(infos, "coloc")
	if _, err := coloc.New(sim.Env{}); err == nil || !strings.Contains(err.Error(), "needs --models") {
		t.Errorf("coloc without models: %v", err)
	}
	if _, err := coloc.New(sim.Env{Models: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "index.json") {
		t.Errorf("coloc with an empty model directory: %v", err)
	}
	oracle, _ := sim.Lookup(infos, "oracle")
	if _, err := oracle.New(sim.Env{}); err == nil {
		t.Error("oracle without the ground truth built")
	}
}

// coloc with models fit on the reference data replays a Gavel trace,
// deterministically.
func TestColocOnGavel(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP and IAPP (a few seconds)")
	}
	dir := filepath.Join(t.TempDir(), "models")
	d, err := model.LoadData("../../datasets/reference/gavel")
	if err != nil {
		t.Fatal(err)
	}
	fitted, err := model.FitAll(d, []string{"iasp", "iapp"}, model.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.WriteDir(dir, d, fitted); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Open("../../datasets/reference/gavel")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := sim.NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := cluster.Load("../../examples/cluster-gavel-48.yaml")
	if err != nil {
		t.Fatal(err)
	}
	topo, _ := sim.NewTopology(spec)
	trace, err := sim.LoadTrace("../../examples/traces/physical_cluster/small_test.trace")
	if err != nil {
		t.Fatal(err)
	}
	coloc, _ := sim.Lookup(Policies(), "coloc")
	var runs []*sim.Result
	for range 2 {
		pol, err := coloc.New(sim.Env{Solo: sim.SoloOnly(tr), Truth: tr, Models: dir, MinNormalized: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(topo, trace.Jobs, tr, pol, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, res)
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Error("two runs differ")
	}
	if r := runs[0]; r.Completed != len(trace.Jobs) || !(r.AvgJCT > 0) {
		t.Errorf("completed %d of %d, avg JCT %v", r.Completed, len(trace.Jobs), r.AvgJCT)
	}
	_ = os.RemoveAll(dir)
}

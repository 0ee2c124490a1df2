package policies

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
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
func TestFactories(t *testing.T) {
	infos := Policies(Config{})
	names := []string{}
	for _, p := range infos {
		names = append(names, p.Name)
	}
	if !reflect.DeepEqual(names, []string{"coloc", "similarity", "oracle", "coloc-no-sharing", "coloc-estimate", "coloc-known", "coloc-rule", "oracle-rule"}) {
		t.Errorf("policies %v", names)
	}
	coloc, _ := sim.Lookup(infos, "coloc")
	if _, err := coloc.New(sim.Env{}); err == nil || !strings.Contains(err.Error(), "needs --models") {
		t.Errorf("coloc without models: %v", err)
	}
	coloc, _ = sim.Lookup(Policies(Config{Models: t.TempDir()}), "coloc")
	if _, err := coloc.New(sim.Env{}); err == nil || !strings.Contains(err.Error(), "index.json") {
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
	dir := fitGavel(t, "iasp", "iapp")
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
	coloc, _ := sim.Lookup(Policies(Config{Models: dir, MinNormalized: 0.5}), "coloc")
	var runs []*sim.Result
	for range 2 {
		pol, err := coloc.New(sim.Env{Solo: sim.SoloOnly(tr), Truth: tr})
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

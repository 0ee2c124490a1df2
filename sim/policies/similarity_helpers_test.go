package policies

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
)

// Workloads of the tiny data set, named after Gavel job families so that
// their descriptors come from features.KnownModels: ResNet-50 has 25.6
// million parameters (large), Recommendation 8.1 million (small).
const (
	r50x32  = "ResNet-50 (batch size 32)"
	r50x64  = "ResNet-50 (batch size 64)"
	r50x128 = "ResNet-50 (batch size 128)"
	rec512  = "Recommendation (batch size 512)"
	rec1024 = "Recommendation (batch size 1024)"
	rec2048 = "Recommendation (batch size 2048)"
	rec4096 = "Recommendation (batch size 4096)"
)

// tinySolo are the solo rates (iterations/s) of the tiny data set on one
// GPU. ResNet-50 runs 4x faster on v100 than on k80: score k80 0.25,
// v100 1. Recommendation runs 2x faster on k80: score k80 1, v100 0.5;
// except batch size 4096, whose own rates favour v100 (its references'
// do not).
var tinySolo = map[string][2]float64{ // k80, v100
	r50x32:  {10, 40},
	r50x64:  {5, 20},
	r50x128: {2.5, 10},
	rec512:  {100, 50},
	rec1024: {50, 25},
	rec2048: {25, 12.5},
	rec4096: {10, 20},
}

var tinyOrder = []string{r50x32, r50x64, r50x128, rec512, rec1024, rec2048, rec4096}

// tinyNorm is the measured normalized throughput of a next to b, the same
// on both types: two recommenders 0.8, two ResNet-50 0.5, mixed 0.6.
func tinyNorm(a, b string) float64 {
	fa, fb := features.FamilyOf(a), features.FamilyOf(b)
	switch {
	case fa == "Recommendation" && fb == fa:
		return 0.8
	case fa == "ResNet-50" && fb == fa:
		return 0.5
	}
	return 0.6
}

// tinyData returns the tiny data set: solo rows (with the batch size the
// name states, as the Gavel importer fills it) and every ordered pair
// (self pairs too) on k80 and v100, all status ok.
func tinyData() (*datasets.SoloTable, *datasets.Pairs) {
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitItersPerS}
	pairs := &datasets.Pairs{ThroughputUnit: datasets.UnitItersPerS}
	nan := math.NaN()
	for i, typ := range []string{"k80", "v100"} {
		for _, w := range tinyOrder {
			_, batch := datasets.SplitJobName(w)
			solo.Rows = append(solo.Rows, datasets.Solo{Workload: w, DeviceType: typ, Degree: 1, BatchSize: batch,
				Throughput: tinySolo[w][i], CILow: nan, CIHigh: nan, PeakMemory: nan, Source: "test"})
			for _, b := range tinyOrder {
				y := tinyNorm(w, b)
				pairs.Rows = append(pairs.Rows, datasets.Pair{Workload: w, Partner: b, DeviceType: typ, Degree: 1,
					Solo: tinySolo[w][i], Colocated: y * tinySolo[w][i], Normalized: y,
					NormLow: nan, NormHigh: nan, Status: datasets.StatusOK, Source: "test"})
			}
		}
	}
	return solo, pairs
}

// fitDir fits the similarity model on d and writes it to a temporary
// model directory.
func fitDir(t testing.TB, d *model.Data) string {
	t.Helper()
	fitted, err := model.FitAll(d, []string{"similarity"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := model.WriteDir(dir, d, fitted); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tinyModel returns the tiny data set's model directory and ground truth.
func tinyModel(t testing.TB) (string, *sim.Measured) {
	t.Helper()
	solo, pairs := tinyData()
	set, err := features.Build(&datasets.Dataset{Dir: "tiny", Solo: solo, Pairs: pairs})
	if err != nil {
		t.Fatal(err)
	}
	d, err := model.DataFrom(set, pairs)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := sim.NewMeasured(solo, pairs)
	if err != nil {
		t.Fatal(err)
	}
	return fitDir(t, d), truth
}

// tinyPolicy is the similarity policy on the tiny data set with K = 2:
// each ResNet-50 job is matched to the two other ResNet-50s, each
// recommender to two other recommenders.
func tinyPolicy(t testing.TB) (*Similarity, *sim.Measured) {
	t.Helper()
	dir, truth := tinyModel(t)
	o := DefaultSimilarityOptions
	o.K = 2
	p, err := NewSimilarity(sim.Env{Seed: 1, Solo: sim.SoloOnly(truth)}, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return p, truth
}

// gavelModel returns a model directory fitted on the shipped Gavel data and the
// ground truth of those data.
func gavelModel(t testing.TB) (string, *sim.Measured) {
	t.Helper()
	dir := filepath.Join("..", "..", "datasets", "reference", "gavel")
	d, err := model.LoadData(dir)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := sim.NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		t.Fatal(err)
	}
	return fitDir(t, d), truth
}

// simTopo builds a topology of groups "name type nodes gpus".
func simTopo(t testing.TB, groups ...string) *sim.Topology {
	t.Helper()
	spec := &cluster.Spec{Version: 1, Name: "toy"}
	for _, g := range groups {
		var name, typ string
		var count, gpus int
		if _, err := fmt.Sscanf(g, "%s %s %d %d", &name, &typ, &count, &gpus); err != nil {
			t.Fatalf("group %q: %v", g, err)
		}
		spec.Groups = append(spec.Groups, cluster.NodeGroup{Name: name, Count: count, GPUType: typ, GPUs: gpus})
	}
	tp, err := sim.NewTopology(spec)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// simOpts are the simulator's defaults with rounds every 100 s and a 10 s
// restart penalty.
func simOpts() sim.Options {
	o := sim.DefaultOptions
	o.Round = 100
	o.RestartPenalty = 10
	return o
}

func simRun(t *testing.T, tp *sim.Topology, jobs []sim.TraceJob, truth sim.Rates, p sim.Policy, o sim.Options) *sim.Result {
	t.Helper()
	r, err := sim.Run(tp, jobs, truth, p, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r
}

// simNear reports whether a and b agree to 1e-9 relative.
func simNear(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

// fitGavel fits the named models on the shipped Gavel data (seed
// model.DefaultSeed) into a temporary model directory and returns it.
func fitGavel(t testing.TB, names ...string) string {
	t.Helper()
	d, err := model.LoadData(filepath.Join("..", "..", "datasets", "reference", "gavel"))
	if err != nil {
		t.Fatal(err)
	}
	fitted, err := model.FitAll(d, names, model.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "models")
	if _, err := model.WriteDir(dir, d, fitted); err != nil {
		t.Fatal(err)
	}
	return dir
}

// gavelPlaceInputs fits IASP, IAPP and the similarity model on the shipped
// Gavel data and loads them and the data as the placement engine reads
// them: what an export test hands place.Export.
func gavelPlaceInputs(t testing.TB) (*place.Models, *place.Data) {
	t.Helper()
	models, err := place.LoadModels(fitGavel(t, "iasp", "iapp", "similarity"), place.DefaultModelNames)
	if err != nil {
		t.Fatal(err)
	}
	data, err := place.LoadData([]string{filepath.Join("..", "..", "datasets", "reference", "gavel")})
	if err != nil {
		t.Fatal(err)
	}
	return models, data
}

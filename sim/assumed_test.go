package sim

import (
	"math"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

// assumedData: W and Q measured solo on one and two GPUs of g, their pair
// on one GPU only (W at 6/10 = 0.6 of solo, Q at 15/20 = 0.75); V and Q
// measured as a pair on one GPU and on two (the assumption can be checked
// there); V and W infeasible on two GPUs (as Gavel's unmeasured rows).
func assumedData(t *testing.T) *Measured {
	t.Helper()
	nan := math.NaN()
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitItersPerS}
	for _, r := range []struct {
		w string
		g int
		v float64
	}{{"W", 1, 10}, {"W", 2, 18}, {"Q", 1, 20}, {"Q", 2, 36}, {"V", 1, 8}, {"V", 2, 16}} {
		solo.Rows = append(solo.Rows, datasets.Solo{Workload: r.w, DeviceType: "g", Degree: r.g, Throughput: r.v, CILow: nan, CIHigh: nan, PeakMemory: nan})
	}
	pair := func(w, p string, g int, status string, co float64) datasets.Pair {
		return datasets.Pair{Workload: w, Partner: p, DeviceType: "g", Degree: g, Colocated: co, Status: status}
	}
	pairs := &datasets.Pairs{ThroughputUnit: datasets.UnitItersPerS, Rows: []datasets.Pair{
		pair("W", "Q", 1, datasets.StatusOK, 6), pair("Q", "W", 1, datasets.StatusOK, 15),
		pair("V", "Q", 1, datasets.StatusOK, 4), pair("Q", "V", 1, datasets.StatusOK, 10),
		pair("V", "Q", 2, datasets.StatusOK, 12), pair("Q", "V", 2, datasets.StatusOK, 18),
		pair("V", "W", 1, datasets.StatusOK, 4), pair("W", "V", 1, datasets.StatusOK, 5),
		pair("V", "W", 2, datasets.StatusInfeasible, nan),
	}}
	m, err := NewMeasured(solo, pairs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAssumedPairRates(t *testing.T) {
	m := assumedData(t)
	x := m.AssumedPairs()
	two := Shape{GPUType: "g", GPUs: 2}
	for _, c := range []struct {
		w, q    string
		want    float64
		assumed bool
	}{
		{"W", "Q", 0.6 * 18, true},
		{"Q", "W", 0.75 * 36, true},
		{"V", "Q", 12, false}, // measured at 2: kept
		{"Q", "V", 18, false},
	} {
		r, ok := x.Colocated(c.w, c.q, two)
		if !ok || math.Abs(r-c.want) > 1e-9 || x.IsAssumed(c.w, c.q, two) != c.assumed {
			t.Errorf("%s next to %s on 2 GPUs: %v, %v (assumed %v), want %v (assumed %v)", c.w, c.q, r, ok, x.IsAssumed(c.w, c.q, two), c.want, c.assumed)
		}
	}
	if r, ok := x.Colocated("V", "W", two); !ok || math.Abs(r-0.5*16) > 1e-9 || !x.IsAssumed("V", "W", two) {
		t.Errorf("V next to W, a row infeasible on 2 GPUs, ok on one: %v, %v, want %v, assumed", r, ok, 0.5*16)
	}
	if _, ok := m.Colocated("W", "Q", two); ok || m.IsAssumed("W", "Q", two) {
		t.Error("the measured rates changed: AssumedPairs must copy")
	}
	if x.IsAssumed("W", "Q", Shape{GPUType: "g", GPUs: 1}) {
		t.Error("a one-GPU pair labelled assumed")
	}
	h := m.WithoutMultiGPUPairs()
	if _, ok := h.Colocated("V", "Q", two); ok {
		t.Error("WithoutMultiGPUPairs kept a 2-GPU pair")
	}
	if r, ok := h.AssumedPairs().Colocated("V", "Q", two); !ok || math.Abs(r-0.5*16) > 1e-9 {
		t.Errorf("hidden then assumed V next to Q: %v, %v, want %v", r, ok, 0.5*16)
	}
}

// Two 2-GPU jobs on one node of two GPUs: with the assumption they share
// (W at 10.8 it/s, Q at 27 it/s: Q's 360 steps end at 13.33 s, W's 180
// at 13.33 + (180 - 144)/18 = 15.33 s), counted and labelled; without it
// they run one after the other (10 s each).
func TestAssumedPairsInSimulation(t *testing.T) {
	m := assumedData(t)
	jobs := []TraceJob{{Workload: "W", Steps: 180, Scale: 2}, {Workload: "Q", Steps: 360, Scale: 2}}
	tp := topo(t, "n g 1 2")
	r := run(t, tp, jobs, m, NewGreedyPack(SoloOnly(m)), opts())
	if r.Shared != 0 || r.Assumed != 0 {
		t.Errorf("measured only: %d shared, %d assumed, want none", r.Shared, r.Assumed)
	}
	checkJCT(t, r, map[int]float64{0: 10, 1: 20})
	x := m.AssumedPairs()
	r = run(t, tp, jobs, x, NewGreedyPack(SoloOnly(x)), opts())
	if r.Shared != 2 || r.Assumed != 2 || !r.Jobs[0].Assumed || !r.Jobs[1].Assumed {
		t.Errorf("assumed: %d shared, %d assumed (%v, %v), want 2 and 2", r.Shared, r.Assumed, r.Jobs[0].Assumed, r.Jobs[1].Assumed)
	}
	checkJCT(t, r, map[int]float64{0: 46.0 / 3, 1: 40.0 / 3})
	if s := r.Summary(); s.Assumed != 2 {
		t.Errorf("summary assumed_jobs = %d, want 2", s.Assumed)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || w == "2 job(s) shared GPUs on assumed rates: multi-GPU pairs not measured at their degree, rated from the pair on one GPU"
	}
	if !found {
		t.Errorf("no warning of assumed rates in %q", r.Warnings)
	}
}

// The one-GPU value against the measurement on two GPUs: V next to Q
// 0.5 vs 12/16 = 0.75, Q next to V 0.5 vs 18/36 = 0.5: MAE 0.125, bias
// -0.125 (pessimistic here).
func TestAssumptionErrors(t *testing.T) {
	es := assumedData(t).AssumptionErrors()
	if len(es) != 1 {
		t.Fatalf("got %+v, want one device and degree", es)
	}
	e := es[0]
	if e.Device != "g" || e.Degree != 2 || e.Pairs != 2 || math.Abs(e.MAE-0.125) > 1e-12 || math.Abs(e.Bias+0.125) > 1e-12 || math.Abs(e.MeanMeasured-0.625) > 1e-12 {
		t.Errorf("got %+v", e)
	}
}

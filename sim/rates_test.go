package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

func measured(t *testing.T) *Measured {
	t.Helper()
	solo, pairs := measuredTables(nil)
	m, err := NewMeasured(solo, pairs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// measuredTables are the tables of measured: in iterations/s when batch is
// nil, else in samples/s, each workload's rates times its batch size.
func measuredTables(batch map[string]int) (*datasets.SoloTable, *datasets.Pairs) {
	nan := math.NaN()
	unit, per := datasets.UnitItersPerS, func(string) float64 { return 1 }
	if batch != nil {
		unit, per = datasets.UnitSamplesPerS, func(w string) float64 { return float64(batch[w]) }
	}
	solo := &datasets.SoloTable{ThroughputUnit: unit}
	for _, r := range []struct {
		w, d string
		g    int
		v    float64
	}{
		{"A", "v100", 1, 10}, {"B", "v100", 1, 20},
		{"A", "v100", 2, 18}, {"A", "v100_unconsolidated", 2, 12},
		{"C", "v100", 1, 5},
	} {
		solo.Rows = append(solo.Rows, datasets.Solo{Workload: r.w, DeviceType: r.d, Degree: r.g, BatchSize: batch[r.w], Throughput: r.v * per(r.w), CILow: nan, CIHigh: nan, PeakMemory: nan})
	}
	pair := func(w, p, status string, co float64) datasets.Pair {
		return datasets.Pair{Workload: w, Partner: p, DeviceType: "v100", Degree: 1, Colocated: co * per(w), Status: status}
	}
	pairs := &datasets.Pairs{ThroughputUnit: unit, Rows: []datasets.Pair{
		pair("A", "B", datasets.StatusOK, 6), pair("B", "A", datasets.StatusOK, 15),
		pair("A", "C", datasets.StatusSuspect, 10), pair("C", "A", datasets.StatusSuspect, 5),
		pair("B", "C", datasets.StatusInfeasible, nan),
	}}
	return solo, pairs
}

func TestMeasuredRates(t *testing.T) {
	m := measured(t)
	cases := []struct {
		name string
		got  func() (float64, bool)
		want float64
		ok   bool
	}{
		{"solo", func() (float64, bool) { return m.Solo("A", Shape{GPUType: "v100", GPUs: 1, Spread: false}) }, 10, true},
		{"one node", func() (float64, bool) { return m.Solo("A", Shape{GPUType: "v100", GPUs: 2, Spread: false}) }, 18, true},
		{"spread reads _unconsolidated", func() (float64, bool) { return m.Solo("A", Shape{GPUType: "v100", GPUs: 2, Spread: true}) }, 12, true},
		{"one GPU is never spread", func() (float64, bool) { return m.Solo("A", Shape{GPUType: "v100", GPUs: 1, Spread: true}) }, 10, true},
		{"no degree", func() (float64, bool) { return m.Solo("B", Shape{GPUType: "v100", GPUs: 2, Spread: false}) }, 0, false},
		{"no type", func() (float64, bool) { return m.Solo("A", Shape{GPUType: "k80", GPUs: 1, Spread: false}) }, 0, false},
		{"ok pair", func() (float64, bool) { return m.Colocated("A", "B", Shape{GPUType: "v100", GPUs: 1, Spread: false}) }, 6, true},
		{"suspect pair", func() (float64, bool) { return m.Colocated("A", "C", Shape{GPUType: "v100", GPUs: 1, Spread: false}) }, 0, false},
		{"infeasible pair", func() (float64, bool) { return m.Colocated("B", "C", Shape{GPUType: "v100", GPUs: 1, Spread: false}) }, 0, false},
		{"solo only", func() (float64, bool) {
			return SoloOnly(m).Colocated("A", "B", Shape{GPUType: "v100", GPUs: 1, Spread: false})
		}, 0, false},
	}
	for _, c := range cases {
		if v, ok := c.got(); v != c.want || ok != c.ok {
			t.Errorf("%s: %v %v, want %v %v", c.name, v, ok, c.want, c.ok)
		}
	}
	if !m.Knows("C") || m.Knows("D") || !m.HasType("v100") || m.HasType("k80") {
		t.Error("Knows or HasType wrong")
	}
}

// Tables in samples/s (coloc's profiler) give the same rates as in
// iterations/s once divided by each workload's batch size; without one
// batch size per workload they are refused.
func TestMeasuredFromSamplesPerSecond(t *testing.T) {
	want := measured(t)
	batch := map[string]int{"A": 32, "B": 64, "C": 16}
	got, err := NewMeasured(measuredTables(batch))
	if err != nil {
		t.Fatal(err)
	}
	count := func(m *Measured) (solos, pairs int) {
		for range m.solos() {
			solos++
		}
		for range m.pairRates() {
			pairs++
		}
		return solos, pairs
	}
	for k, v := range want.solos() {
		if g, _ := got.soloRate(k); math.Abs(g-v) > 1e-12 {
			t.Errorf("solo %v: %v it/s, want %v", k, g, v)
		}
	}
	for k, v := range want.pairRates() {
		if g, _ := got.pairRate(k); math.Abs(g-v) > 1e-12 {
			t.Errorf("pair %v: %v it/s, want %v", k, g, v)
		}
	}
	gs, gp := count(got)
	if ws, wp := count(want); gs != ws || gp != wp {
		t.Errorf("%d solo and %d pair rates, want %d and %d", gs, gp, ws, wp)
	}
	// solo in iterations/s, pairs in samples/s: the batch sizes still come
	// from the solo table.
	solo, _ := measuredTables(nil)
	for i := range solo.Rows {
		solo.Rows[i].BatchSize = batch[solo.Rows[i].Workload]
	}
	_, pairs := measuredTables(batch)
	mixed, err := NewMeasured(solo, pairs)
	if err != nil {
		t.Fatalf("solo in it/s, pairs in samples/s: %v", err)
	}
	if r, ok := mixed.Colocated("B", "A", Shape{GPUType: "v100", GPUs: 1, Spread: false}); !ok || math.Abs(r-15) > 1e-12 {
		t.Errorf("solo in it/s, pairs in samples/s: B next to A at %v, %v, want 15", r, ok)
	}
	// What is refused, and how it is said, is rates.InIterations's (its
	// tests); NewMeasured passes the error on.
	s, p := measuredTables(batch)
	s.Rows[4].BatchSize = 0
	if _, err := NewMeasured(s, p); err == nil || !strings.Contains(err.Error(), "solo row 5: workload C has no batch size") {
		t.Errorf("no batch size: error %v", err)
	}
}

// A two-GPU job on two one-GPU nodes runs spread, at the _unconsolidated
// rate: 120 steps at 12 it/s = 10 s (on one node it would be 18 it/s).
// A and C (suspect pair) never share under greedy-pack: C waits for A's
// GPU. A: 10 steps at 10 it/s = 1 s; C: 5 steps at 5 it/s from t=1: JCT 2.
func TestMeasuredInSimulation(t *testing.T) {
	m := measured(t)
	jobs := []TraceJob{{Workload: "A", Steps: 120, Scale: 2}}
	r := run(t, topo(t, "n v100 2 1"), jobs, m, NewFIFO(SoloOnly(m)), opts())
	checkJCT(t, r, map[int]float64{0: 10})

	jobs = []TraceJob{{Workload: "A", Steps: 10, Scale: 1}, {Workload: "C", Steps: 5, Scale: 1}}
	r = run(t, topo(t, "n v100 1 1"), jobs, m, NewGreedyPack(SoloOnly(m)), opts())
	checkJCT(t, r, map[int]float64{0: 1, 1: 2})
	if r.Shared != 0 {
		t.Errorf("a suspect pair shared a GPU")
	}
}

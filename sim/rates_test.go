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
		{"solo", func() (float64, bool) { return m.Solo("A", Shape{"v100", 1, false}) }, 10, true},
		{"one node", func() (float64, bool) { return m.Solo("A", Shape{"v100", 2, false}) }, 18, true},
		{"spread reads _unconsolidated", func() (float64, bool) { return m.Solo("A", Shape{"v100", 2, true}) }, 12, true},
		{"one GPU is never spread", func() (float64, bool) { return m.Solo("A", Shape{"v100", 1, true}) }, 10, true},
		{"no degree", func() (float64, bool) { return m.Solo("B", Shape{"v100", 2, false}) }, 0, false},
		{"no type", func() (float64, bool) { return m.Solo("A", Shape{"k80", 1, false}) }, 0, false},
		{"ok pair", func() (float64, bool) { return m.Colocated("A", "B", Shape{"v100", 1, false}) }, 6, true},
		{"suspect pair", func() (float64, bool) { return m.Colocated("A", "C", Shape{"v100", 1, false}) }, 0, false},
		{"infeasible pair", func() (float64, bool) { return m.Colocated("B", "C", Shape{"v100", 1, false}) }, 0, false},
		{"solo only", func() (float64, bool) { return SoloOnly(m).Colocated("A", "B", Shape{"v100", 1, false}) }, 0, false},
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
// batch size per workload, or in another unit, they are refused.
func TestMeasuredFromSamplesPerSecond(t *testing.T) {
	want := measured(t)
	batch := map[string]int{"A": 32, "B": 64, "C": 16}
	got, err := NewMeasured(measuredTables(batch))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range want.solo {
		if g := got.solo[k]; math.Abs(g-v) > 1e-12 {
			t.Errorf("solo %v: %v it/s, want %v", k, g, v)
		}
	}
	for k, v := range want.pairs {
		if g := got.pairs[k]; math.Abs(g-v) > 1e-12 {
			t.Errorf("pair %v: %v it/s, want %v", k, g, v)
		}
	}
	if len(got.solo) != len(want.solo) || len(got.pairs) != len(want.pairs) {
		t.Errorf("%d solo and %d pair rates, want %d and %d", len(got.solo), len(got.pairs), len(want.solo), len(want.pairs))
	}
	// solo in iterations/s, pairs in samples/s: the batch sizes still come
	// from the solo table.
	solo, _ := measuredTables(nil)
	for i := range solo.Rows {
		solo.Rows[i].BatchSize = batch[solo.Rows[i].Workload]
	}
	_, pairs := measuredTables(batch)
	if mixed, err := NewMeasured(solo, pairs); err != nil || math.Abs(mixed.pairs[pairKey{"B", "A", "v100", 1}]-15) > 1e-12 {
		t.Errorf("solo in it/s, pairs in samples/s: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*datasets.SoloTable, *datasets.Pairs)
		want string
	}{
		{"no batch size", func(s *datasets.SoloTable, _ *datasets.Pairs) { s.Rows[4].BatchSize = 0 },
			"solo row 5: workload C has no batch size"},
		{"two batch sizes", func(s *datasets.SoloTable, _ *datasets.Pairs) { s.Rows[2].BatchSize = 8 },
			"solo row 3: workload A has batch sizes 32 and 8"},
		{"a pair of a workload with no solo row", func(_ *datasets.SoloTable, p *datasets.Pairs) { p.Rows[1].Workload = "D" },
			"pairs row 2: workload D has no solo row"},
		{"another unit", func(s *datasets.SoloTable, _ *datasets.Pairs) { s.ThroughputUnit = "images/s" },
			"solo throughput is in images/s; the simulator needs iterations/s"},
	} {
		s, p := measuredTables(batch)
		tc.edit(s, p)
		if _, err := NewMeasured(s, p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
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

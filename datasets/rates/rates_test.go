package rates

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

// tables: A on one and two GPUs of v100 (on one node and spread), B on
// one; A and B measured ok on one GPU, A and C suspect, B and C
// infeasible. In samples/s, each workload's iterations/s times its batch.
func tables(unit string) (*datasets.SoloTable, *datasets.Pairs) {
	nan := math.NaN()
	batch := map[string]int{"A": 32, "B": 64, "C": 16}
	per := func(w string) float64 {
		if unit == datasets.UnitSamplesPerS {
			return float64(batch[w])
		}
		return 1
	}
	solo := &datasets.SoloTable{ThroughputUnit: unit}
	for _, r := range []struct {
		w, d string
		g    int
		v    float64
	}{{"A", "v100", 1, 10}, {"B", "v100", 1, 20}, {"A", "v100", 2, 18}, {"A", datasets.SpreadType("v100"), 2, 12}, {"C", "v100", 1, 5}} {
		solo.Rows = append(solo.Rows, datasets.Solo{Workload: r.w, DeviceType: r.d, Degree: r.g, BatchSize: batch[r.w],
			Throughput: r.v * per(r.w), PeakMemory: 2e9, Source: "test"})
	}
	pair := func(w, p, status string, co, y float64) datasets.Pair {
		return datasets.Pair{Workload: w, Partner: p, DeviceType: "v100", Degree: 1, Colocated: co * per(w), Normalized: y, Status: status}
	}
	pairs := &datasets.Pairs{ThroughputUnit: unit, Rows: []datasets.Pair{
		pair("A", "B", datasets.StatusOK, 6, 0.6), pair("B", "A", datasets.StatusOK, 15, 0.75),
		pair("A", "C", datasets.StatusSuspect, 10, 1), pair("B", "C", datasets.StatusInfeasible, nan, nan),
	}}
	return solo, pairs
}

func TestDevice(t *testing.T) {
	for _, c := range []struct {
		gpus   int
		spread bool
		want   string
	}{{1, false, "v100"}, {2, false, "v100"}, {2, true, datasets.SpreadType("v100")}, {1, true, "v100"}} {
		if got := Device("v100", c.gpus, c.spread); got != c.want {
			t.Errorf("Device(v100, %d, %v) = %q, want %q", c.gpus, c.spread, got, c.want)
		}
	}
}

// In the data's unit: the rows as they are, the first dataset's row of a
// key kept, a table in another unit left out whole.
func TestAdd(t *testing.T) {
	solo, pairs := tables(datasets.UnitSamplesPerS)
	tb := New(datasets.UnitSamplesPerS)
	if ok, dups := tb.AddSolo(solo); !ok || dups != 0 {
		t.Fatalf("AddSolo: %v, %d duplicates", ok, dups)
	}
	if ok, dups := tb.AddPairs(pairs); !ok || dups != 0 {
		t.Fatalf("AddPairs: %v, %d duplicates", ok, dups)
	}
	again, _ := tables(datasets.UnitSamplesPerS)
	again.Rows[0].Throughput = 1
	if ok, dups := tb.AddSolo(again); !ok || dups != len(again.Rows) {
		t.Errorf("a second table of the same keys: %v, %d duplicates, want %d", ok, dups, len(again.Rows))
	}
	if s, ok := tb.Solo(Key{"A", "v100", 1}); !ok || s.Rate != 320 || s.Batch != 32 || s.PeakMemory != 2e9 || s.Source != "test" {
		t.Errorf("A on one v100: %+v, %v; want the first table's row, 320 samples/s", s, ok)
	}
	if s, ok := tb.Solo(Key{"A", Device("v100", 2, true), 2}); !ok || s.Rate != 12*32 {
		t.Errorf("A spread on two v100: %+v, %v", s, ok)
	}
	if p, ok := tb.Pair(PairKey{"B", "C", "v100", 1}); !ok || p.OK() || p.Status != datasets.StatusInfeasible {
		t.Errorf("an infeasible pair is held with its status: %+v, %v", p, ok)
	}
	if p, ok := tb.Pair(PairKey{"A", "B", "v100", 1}); !ok || !p.OK() || p.Normalized != 0.6 || p.Colocated != 6*32 {
		t.Errorf("A next to B: %+v, %v", p, ok)
	}
	other, _ := tables(datasets.UnitItersPerS)
	if ok, _ := New(datasets.UnitSamplesPerS).AddSolo(other); ok {
		t.Error("a table in another unit was added")
	}
	if !tb.Knows("C") || tb.Knows("D") || !slices.Equal(tb.Workloads(), []string{"A", "B", "C"}) {
		t.Errorf("workloads %v", tb.Workloads())
	}
	// A spread device type is its own device, and of its GPU type.
	if !tb.HasDevice("v100") || tb.HasDevice("k80") || !tb.HasGPUType("v100") {
		t.Error("HasDevice or HasGPUType wrong")
	}
	spread := New(datasets.UnitSamplesPerS)
	s, _ := tables(datasets.UnitSamplesPerS)
	s.Rows = s.Rows[3:4]
	spread.AddSolo(s)
	if spread.HasDevice("v100") || !spread.HasGPUType("v100") {
		t.Error("spread rows only: HasDevice(v100) should be false, HasGPUType(v100) true")
	}
	if !tb.HasOKPairs("v100", 1) || tb.HasOKPairs("v100", 2) || !slices.Equal(tb.OKSlots(), []datasets.Shape{{GPUType: "v100", GPUs: 1}}) {
		t.Errorf("ok slots %v", tb.OKSlots())
	}
	n := 0
	for range tb.Pairs() {
		n++
	}
	if n != len(pairs.Rows) {
		t.Errorf("%d pairs, want %d (every status)", n, len(pairs.Rows))
	}
}

// In iterations/s: samples/s divided by each workload's batch size, the
// same rates as the tables in iterations/s; a workload without one batch
// size is refused by name.
func TestInIterations(t *testing.T) {
	want, err := InIterations(tables(datasets.UnitItersPerS))
	if err != nil {
		t.Fatal(err)
	}
	got, err := InIterations(tables(datasets.UnitSamplesPerS))
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range []*Table{want, got} {
		if tb.Unit != datasets.UnitItersPerS {
			t.Errorf("unit %q", tb.Unit)
		}
	}
	for k, w := range want.Solos() {
		if g, ok := got.Solo(k); !ok || math.Abs(g.Rate-w.Rate) > 1e-12 || g.Batch != w.Batch {
			t.Errorf("solo %v: %+v, want %+v", k, g, w)
		}
	}
	for k, w := range want.Pairs() {
		g, ok := got.Pair(k)
		if !ok || g.Status != w.Status || !(math.Abs(g.Colocated-w.Colocated) <= 1e-12 || math.IsNaN(g.Colocated) && math.IsNaN(w.Colocated)) {
			t.Errorf("pair %v: %+v, want %+v", k, g, w)
		}
	}
	solo, pairs := tables(datasets.UnitSamplesPerS)
	pairs.Rows[2].Workload = "D" // suspect: no batch size needed
	tb, err := InIterations(solo, pairs)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := tb.Pair(PairKey{"D", "C", "v100", 1}); !math.IsNaN(p.Colocated) {
		t.Errorf("a suspect pair of a workload without a batch size: co-located %v, want NaN", p.Colocated)
	}
	for _, c := range []struct {
		name string
		edit func(*datasets.SoloTable, *datasets.Pairs)
		want string
	}{
		{"no batch size", func(s *datasets.SoloTable, _ *datasets.Pairs) { s.Rows[4].BatchSize = 0 }, "solo row 5: workload C has no batch size"},
		{"two batch sizes", func(s *datasets.SoloTable, _ *datasets.Pairs) { s.Rows[2].BatchSize = 8 }, "solo row 3: workload A has batch sizes 32 and 8"},
		{"an ok pair without a solo row", func(_ *datasets.SoloTable, p *datasets.Pairs) { p.Rows[1].Workload = "D" }, "pairs row 2: workload D has no solo row"},
		{"another unit", func(s *datasets.SoloTable, _ *datasets.Pairs) { s.ThroughputUnit = "images/s" }, "solo throughput is in images/s"},
	} {
		s, p := tables(datasets.UnitSamplesPerS)
		c.edit(s, p)
		if _, err := InIterations(s, p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := InIterations(nil, nil); err == nil {
		t.Error("no solo table: no error")
	}
}

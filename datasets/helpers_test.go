package datasets

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// assertTablesEqual fails unless a and b have the same kind, metadata,
// columns (name, type, unit) and values, nulls included.
func assertTablesEqual(t *testing.T, a, b *Table) {
	t.Helper()
	if a.Kind != b.Kind {
		t.Fatalf("kind %s vs %s", a.Kind, b.Kind)
	}
	if len(a.Columns) != len(b.Columns) || a.Len() != b.Len() {
		t.Fatalf("%s: shape %dx%d vs %dx%d", a.Kind, a.Len(), len(a.Columns), b.Len(), len(b.Columns))
	}
	for k, v := range a.Meta {
		if b.Meta[k] != v {
			t.Errorf("%s: meta %s = %q vs %q", a.Kind, k, v, b.Meta[k])
		}
	}
	for j, ca := range a.Columns {
		cb := b.Columns[j]
		if ca.Name != cb.Name || ca.Type != cb.Type || ca.Unit != cb.Unit {
			t.Fatalf("%s: column %d is %s %s [%s] vs %s %s [%s]", a.Kind, j, ca.Name, ca.Type, ca.Unit, cb.Name, cb.Type, cb.Unit)
		}
	}
	if d := firstDiff(a, b); d != "" {
		t.Fatalf("%s: %s", a.Kind, d)
	}
}

func firstDiff(a, b *Table) string {
	for i := 0; i < a.Len(); i++ {
		if col := rowDiff(a, i, b, i, a); col != "" {
			return "row " + itoa(i+1) + " differs in " + col + ": " + a.Column(col).Format(i) + " vs " + b.Column(col).Format(i)
		}
	}
	return ""
}

func itoa(i int) string { return formatFloat(float64(i)) }

var nan = math.NaN()

// samplePairs is a small valid pairs table: A and B on v100, both orders,
// one infeasible self pair and one with a CI.
func samplePairs() *Pairs {
	return &Pairs{ThroughputUnit: UnitSamplesPerS, Rows: []Pair{
		{Workload: "A", Partner: "B", DeviceType: "v100", Degree: 1, Solo: 100, Colocated: 60, Normalized: 0.6, NormLow: 0.55, NormHigh: 0.65, Repeats: 3, Status: StatusOK, Source: "test"},
		{Workload: "B", Partner: "A", DeviceType: "v100", Degree: 1, Solo: 50, Colocated: 40, Normalized: 0.8, NormLow: nan, NormHigh: nan, Status: StatusOK, Source: "test"},
		{Workload: "A", Partner: "A", DeviceType: "v100", Degree: 1, Solo: 100, Colocated: nan, Normalized: nan, NormLow: nan, NormHigh: nan, Status: StatusInfeasible, Source: "test"},
		{Workload: "B", Partner: "B", DeviceType: "v100", Degree: 1, Solo: 50, Colocated: 55, Normalized: 1.1, NormLow: nan, NormHigh: nan, Status: StatusOK, Source: "test"},
	}}
}

func sampleSolo() *SoloTable {
	return &SoloTable{ThroughputUnit: UnitSamplesPerS, Features: []Feature{{"sm_util_mean", "%"}, {"power_mean", "W"}}, Rows: []Solo{
		{Workload: "A", DeviceType: "v100", Degree: 1, BatchSize: 64, Throughput: 100, CILow: 98, CIHigh: 102, Repeats: 3, PeakMemory: 8e9, Source: "test", Features: []float64{91.5, 250}},
		{Workload: "B", DeviceType: "v100", Degree: 1, Throughput: 50, CILow: nan, CIHigh: nan, PeakMemory: nan, Source: "test", Features: []float64{nan, 120}},
	}}
}

func sampleScaling() *ScalingTable {
	return &ScalingTable{ThroughputUnit: UnitSamplesPerS, Rows: []Scale{
		{Workload: "A", DeviceType: "v100", Degree: 1, Nodes: 1, BatchSize: 64, Placement: "1", Throughput: 100, StepTime: 0.64, SyncTime: 0, Source: "test"},
		{Workload: "A", DeviceType: "v100", Degree: 8, Nodes: 2, BatchSize: 64, Placement: "44", Throughput: 700, StepTime: 0.73, SyncTime: 0.1, Source: "test"},
		{Workload: "A", DeviceType: "v100", Degree: 8, Nodes: 2, BatchSize: 64, Throughput: 690, StepTime: nan, SyncTime: nan, Source: "test2"},
	}}
}

func sampleRuns() *RunsTable {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	return &RunsTable{ThroughputUnit: UnitSamplesPerS, Rows: []Run{
		{Campaign: "c1", RunID: "solo-A-r0", Mode: ModeSolo, Workload: "A", DeviceType: "v100", DeviceIDs: "0", Degree: 1, ShareMode: ShareExclusive, Start: t0, End: t0.Add(30 * time.Second), Steps: 300, Throughput: 100, WindowS: 20, PeakMemory: 8e9, Status: StatusOK, Settled: SettledYes, WindowStart: t0.Add(8 * time.Second), WindowEnd: t0.Add(28 * time.Second), Shared: "nvml: device 0: 4242 (python3) (in 3 of 9 ticks)"},
		{Campaign: "c1", RunID: "pair-A-B-r0", Mode: ModePair, Workload: "A", Partner: "B", DeviceType: "v100", DeviceIDs: "0", Degree: 1, ShareMode: ShareTimeSlice, Start: t0, End: t0.Add(time.Minute), Steps: 0, Throughput: nan, WindowS: nan, PeakMemory: nan, Status: StatusFailed, Error: "CUDA out of memory"},
		{Campaign: "c1", RunID: "scale-A-4-r0", Mode: ModeScale, Workload: "A", DeviceType: "v100", DeviceIDs: "0,1,2,3", Degree: 4, ShareMode: ShareExclusive, Repeat: 0, Start: t0, End: t0.Add(time.Minute), Steps: 600, Throughput: 380, WindowS: 40, PeakMemory: 8.1e9, Status: StatusOK, Settled: SettledNo},
	}}
}

func sampleSamples() *Table {
	s := NewSamples([]Counter{{"gpu_util", "%"}, {"power", "W"}, {"proc_sm_util", "%"}})
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 5; i++ {
		at := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		s.Append("solo-A-r0", 0, "", at, []float64{90 + float64(i), 250, nan})
		s.Append("solo-A-r0", 0, "A", at, []float64{nan, nan, 88})
	}
	return s.Table()
}

// sampleTables returns one valid table of every kind.
func sampleTables() []*Table {
	return []*Table{sampleRuns().Table(), sampleSamples(), sampleSolo().Table(), samplePairs().Table(), sampleScaling().Table()}
}

func fmtSprint(v any) string { return fmt.Sprintf("%+v", v) }

package sim

import (
	"math"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

// Measured at 1, 2 and 4 GPUs (1, 1.8, 3.2 it/s), the last doubling kept
// e = 3.2/1.8 x 2/4 = 0.889 of linear; 8 GPUs extrapolate to
// 3.2 x 2 x 0.889 = 5.689 it/s. A job of 8 GPUs is unrunnable on the
// measured rates and runs, labelled, on the extrapolated ones.
func TestExtrapolated(t *testing.T) {
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitItersPerS}
	for d, r := range map[int]float64{1: 1, 2: 1.8, 4: 3.2} {
		solo.Rows = append(solo.Rows, datasets.Solo{Workload: "W", DeviceType: "g", Degree: d, Throughput: r, Source: "test"})
	}
	m, err := NewMeasured(solo, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := m.Extrapolated()
	sh := Shape{GPUType: "g", GPUs: 8}
	want := 3.2 * 2 * (3.2 / 1.8 * 2 / 4)
	if r, ok := x.Solo("W", sh); !ok || math.Abs(r-want) > 1e-9 || !x.isExtrapolated("W", sh) {
		t.Errorf("rate at 8 = %v, %v (extrapolated %v), want %v", r, ok, x.isExtrapolated("W", sh), want)
	}
	if x.isExtrapolated("W", Shape{GPUType: "g", GPUs: 4}) {
		t.Error("a measured rate is labelled extrapolated")
	}
	jobs := []TraceJob{{Workload: "W", Steps: 100, Scale: 8}}
	r := run(t, topo(t, "n g 1 8"), jobs, m, NewBackfill(SoloOnly(m)), opts())
	if r.Unrunnable != 1 {
		t.Errorf("measured: %d unrunnable, want 1", r.Unrunnable)
	}
	r = run(t, topo(t, "n g 1 8"), jobs, x, NewBackfill(SoloOnly(x)), opts())
	if r.Unrunnable != 0 || r.Extrapolated != 1 || !r.Jobs[0].Extrapolated || math.Abs(r.Jobs[0].JCT-100/want) > 1e-9 {
		t.Errorf("extrapolated: %+v", r.Jobs[0])
	}
}

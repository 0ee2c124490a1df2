package place

import (
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

// TestScalingCurve: one node where a node ran the degree (even when a
// spread placement was faster), the fewest nodes where none did, at the
// batch size measured at the most degrees.
func TestScalingCurve(t *testing.T) {
	row := func(batch, degree, nodes int, tput float64) datasets.Scale {
		return datasets.Scale{Workload: "w", DeviceType: "t4", BatchSize: batch, Degree: degree, Nodes: nodes, Throughput: tput, Source: "test"}
	}
	rows := []datasets.Scale{
		row(32, 1, 1, 30),
		row(64, 1, 1, 50), row(64, 4, 1, 100), row(64, 4, 2, 120),
		row(64, 8, 2, 150), row(64, 8, 4, 180), row(64, 8, 2, 140),
		row(32, 2, 1, 55),
	}
	pts, batch := ScalingCurve(rows, 0)
	if batch != 64 {
		t.Fatalf("batch %d, want 64 (measured at 3 degrees, 32 at 2)", batch)
	}
	want := map[int]float64{1: 50, 4: 100, 8: 150}
	if len(pts) != len(want) {
		t.Fatalf("points %+v, want degrees 1, 4, 8", pts)
	}
	for i, p := range pts {
		if p.Throughput != want[p.Degree] || (i > 0 && p.Degree <= pts[i-1].Degree) {
			t.Errorf("point %+v, want throughput %v, in degree order", p, want[p.Degree])
		}
	}
	if e := pts[2].Efficiency; e != 150.0/8/50 {
		t.Errorf("efficiency at 8: %v, want %v", e, 150.0/8/50)
	}
	if _, b := ScalingCurve(rows, 32); b != 32 {
		t.Errorf("asked for batch 32, got %d", b)
	}
	if _, b := ScalingCurve(rows, 128); b != 64 {
		t.Errorf("asked for an unmeasured batch: got %d, want the default 64", b)
	}
}

package policies

import (
	"math"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim"
)

// pairOnOneGPU: W and Q measured solo on one and two GPUs of g, their
// pair on one GPU only (W at 0.6 of solo, Q at 0.75).
func pairOnOneGPU(t *testing.T) *sim.Measured {
	t.Helper()
	nan := math.NaN()
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitItersPerS}
	for _, r := range []struct {
		w string
		g int
		v float64
	}{{"W", 1, 10}, {"W", 2, 18}, {"Q", 1, 20}, {"Q", 2, 36}} {
		solo.Rows = append(solo.Rows, datasets.Solo{Workload: r.w, DeviceType: "g", Degree: r.g, Throughput: r.v, CILow: nan, CIHigh: nan, PeakMemory: nan})
	}
	pairs := &datasets.Pairs{ThroughputUnit: datasets.UnitItersPerS, Rows: []datasets.Pair{
		{Workload: "W", Partner: "Q", DeviceType: "g", Degree: 1, Colocated: 6, Status: datasets.StatusOK},
		{Workload: "Q", Partner: "W", DeviceType: "g", Degree: 1, Colocated: 15, Status: datasets.StatusOK},
	}}
	m, err := sim.NewMeasured(solo, pairs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Two 2-GPU jobs on one node of two GPUs, pair measured on one GPU only.
// In turn (W first, 10 s each) the completions sum to 10 + 20 = 30 s.
// Sharing under the assumption (W at 0.6 x 18 = 10.8 it/s, Q at 0.75 x 36
// = 27 it/s) Q's 360 steps end at 13.33 s and W's 180 at 13.33 + (180 -
// 144)/18 = 15.33 s: 28.67 s, so the rule shares, and both jobs are
// counted as assumed. Without the assumption they never share.
func TestRuleSharesAnAssumedPair(t *testing.T) {
	m := pairOnOneGPU(t)
	topo, err := sim.NewTopology(&cluster.Spec{Version: 1, Groups: []cluster.NodeGroup{{Name: "n", GPUType: "g", GPUs: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	js := []sim.TraceJob{{Workload: "W", Steps: 180, Scale: 2}, {Workload: "Q", Steps: 360, Scale: 2}}
	off := runRule(t, topo, js, m, OracleRule(m, Known, 0))
	if off.Shared != 0 || off.Assumed != 0 {
		t.Errorf("measured only: %d shared, %d assumed, want none", off.Shared, off.Assumed)
	}
	wantJCT(t, off, 10, 20)
	x := m.AssumedPairs()
	on := runRule(t, topo, js, x, OracleRule(x, Known, 0))
	if on.Shared != 2 || on.Assumed != 2 {
		t.Errorf("assumed: %d shared, %d assumed, want 2 and 2", on.Shared, on.Assumed)
	}
	wantJCT(t, on, 46.0/3, 40.0/3)
}

// The export under the assumption: two Transformer jobs that each need
// two GPUs on a node of two V100s, a pair Gavel measured on one GPU only
// (0.90 and 0.91 of solo there).
// Without the assumption one waits; with it they share, both decisions
// marked assumed, and the file validates (version 3).
func TestExportMarksAssumedPairs(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP, IAPP and the similarity model (seconds)")
	}
	models, data := gavelPlaceInputs(t)
	spec := &cluster.Spec{Version: 1, Name: "hand", Groups: []cluster.NodeGroup{
		{Name: "v", GPUType: "v100", GPUs: 2, MemoryGB: 16, Link: "nvlink", LinkGBs: 100, NetworkGB: 10}}}
	list := &jobs.List{Version: jobs.Version, Jobs: []jobs.Job{
		{ID: "a", Workload: "Transformer (batch size 16)", Degrees: []int{2}, Steps: 20000},
		{ID: "b", Workload: "Transformer (batch size 32)", Degrees: []int{2}, Steps: 20000},
	}}
	th := policy.DefaultThresholds
	th.MinNormalized = 0
	for _, assume := range []bool{false, true} {
		rx := RuleExport{Durations: Known, Order: OrderShortest, MaxPerGPU: 2, Efficiency: th.ScalingEfficiency, AssumeMultiGPUPairs: assume}
		f, err := place.Export(place.Input{Cluster: spec, Jobs: list, Data: data, Models: models}, place.ExportOptions{Thresholds: th, Decide: rx.Decider()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := policy.New(f, "export"); err != nil {
			t.Fatalf("assume %v: the exported file does not validate: %v", assume, err)
		}
		shared := 0
		for _, dec := range f.Decisions {
			if len(dec.ColocatedWith) > 0 {
				shared++
			}
			if dec.Assumed != (len(dec.ColocatedWith) > 0) {
				t.Errorf("assume %v: %s shares with %v, assumed %v", assume, dec.Job, dec.ColocatedWith, dec.Assumed)
			}
		}
		if !assume && shared > 0 {
			t.Errorf("without the assumption %d jobs share an unmeasured 2-GPU pair", shared)
		}
		if assume && shared != 2 {
			t.Errorf("with the assumption %d jobs share, want 2: %+v", shared, f.Decisions)
		}
	}
}

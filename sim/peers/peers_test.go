package peers

import (
	"math"
	"testing"

	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
)

// rates is a hand-written sim.Rates: solo by "workload|type", pairs by
// "workload|partner|type"; any number of GPUs, placement ignored.
type rates struct {
	solo map[string]float64
	co   map[string]float64
}

func (r rates) Solo(w string, s sim.Shape) (float64, bool) {
	v, ok := r.solo[w+"|"+s.GPUType]
	return v, ok
}

func (r rates) Colocated(w, p string, s sim.Shape) (float64, bool) {
	v, ok := r.co[w+"|"+p+"|"+s.GPUType]
	return v, ok
}

func oneNode(t *testing.T, typ string, gpus int) *sim.Topology {
	t.Helper()
	tp, err := sim.NewTopology(&cluster.Spec{Version: 1, Name: "t", Groups: []cluster.NodeGroup{{Name: "n", Count: 1, GPUType: typ, GPUs: gpus}}})
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func gavelOpts() sim.Options {
	o := sim.DefaultOptions
	o.Schedule, o.WholeSteps, o.Round, o.RestartPenalty = sim.ScheduleRounds, true, 360, 0
	return o
}

func jcts(t *testing.T, r *sim.Result) []float64 {
	t.Helper()
	var out []float64
	for _, j := range r.Jobs {
		out = append(out, j.JCT)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(1, math.Abs(b)) }

// TestGavelLASTakesTurns: two equal jobs of 720 iterations at 1/s on one
// GPU, in 360 s rounds. Both are allocated half the GPU; each round runs
// the one that has had the smaller part of its share: job 0 (first added)
// in [0, 360), job 1 in [360, 720), then they tie and job 0 finishes in
// [720, 1080), job 1 in [1080, 1440).
func TestGavelLASTakesTurns(t *testing.T) {
	tp := oneNode(t, "v100", 1)
	r := rates{solo: map[string]float64{"a|v100": 1}}
	jobs := []sim.TraceJob{{Workload: "a", Scale: 1, Steps: 720}, {Workload: "a", Scale: 1, Steps: 720}}
	res, err := sim.Run(tp, jobs, r, NewGavelLAS(r), gavelOpts())
	if err != nil {
		t.Fatal(err)
	}
	got := jcts(t, res)
	if !near(got[0], 1080) || !near(got[1], 1440) {
		t.Errorf("JCTs %v, want [1080 1440]", got)
	}
	// FIFO runs them one after the other.
	res, err = sim.Run(tp, jobs, r, NewGavelFIFO(r, 0), gavelOpts())
	if err != nil {
		t.Fatal(err)
	}
	if got := jcts(t, res); !near(got[0], 720) || !near(got[1], 1440) {
		t.Errorf("fifo JCTs %v, want [720 1440]", got)
	}
}

// TestTiresiasPreempts: a long job holds the only GPU; a short job
// arrives after the long one passed the one GPU-hour threshold, so it
// runs at once (first queue) and the long job resumes after it, paying
// the restart penalty.
func TestTiresiasPreempts(t *testing.T) {
	tp := oneNode(t, "v100", 1)
	r := rates{solo: map[string]float64{"a|v100": 1}}
	jobs := []sim.TraceJob{{Workload: "a", Scale: 1, Steps: 10000, Arrival: 0}, {Workload: "a", Scale: 1, Steps: 600, Arrival: 5000}}
	o := sim.DefaultOptions
	o.RestartPenalty = 30
	res, err := sim.Run(tp, jobs, r, NewTiresias(sim.SoloOnly(r)), o)
	if err != nil {
		t.Fatal(err)
	}
	got := jcts(t, res)
	// Job 1 runs [5000, 5600); job 0 resumes at 5600, restores 30 s and
	// finishes its last 5000 iterations at 10630.
	if !near(got[1], 600) || !near(got[0], 10630) {
		t.Errorf("JCTs %v, want [10630 600]", got)
	}
	// Arriving at 1000, job 1 waits behind job 0 in the first queue
	// (arrival order) until job 0 passes the threshold at 3600, the
	// round tick that demotes it: job 1 runs [3600, 4200).
	jobs[1].Arrival = 1000
	res, err = sim.Run(tp, jobs, r, NewTiresias(sim.SoloOnly(r)), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := jcts(t, res); !near(got[0], 10630) || !near(got[1], 3200) {
		t.Errorf("JCTs %v, want [10630 3200]", got)
	}
}

// TestSRTFKnownUsesTheTruth: the shorter remaining job runs first even
// when it arrives later.
func TestSRTFKnownUsesTheTruth(t *testing.T) {
	tp := oneNode(t, "v100", 1)
	r := rates{solo: map[string]float64{"a|v100": 1}}
	jobs := []sim.TraceJob{{Workload: "a", Scale: 1, Steps: 1000}, {Workload: "a", Scale: 1, Steps: 100, Arrival: 10}}
	o := sim.DefaultOptions
	o.RestartPenalty = 0
	res, err := sim.Run(tp, jobs, r, NewSRTFKnown(sim.SoloOnly(r)), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := jcts(t, res); !near(got[1], 100) || !near(got[0], 1100) {
		t.Errorf("JCTs %v, want [1100 100]", got)
	}
}

// TestGavelPackedShares: two jobs that keep 0.8 of their speed together
// share the GPU for the whole run under gavel-las-packed.
func TestGavelPackedShares(t *testing.T) {
	tp := oneNode(t, "v100", 1)
	r := rates{solo: map[string]float64{"a|v100": 1, "b|v100": 1}, co: map[string]float64{"a|b|v100": 0.8, "b|a|v100": 0.8}}
	jobs := []sim.TraceJob{{Workload: "a", Scale: 1, Steps: 720}, {Workload: "b", Scale: 1, Steps: 720}}
	res, err := sim.Run(tp, jobs, r, NewGavelLASPacked(sim.SoloOnly(r), r), gavelOpts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Shared != 2 {
		t.Errorf("%d jobs shared, want 2", res.Shared)
	}
	// 720 iterations at 0.8/s in whole rounds of 288: 3 rounds minus.
	if got := jcts(t, res); !(got[0] < 1080) || !(got[1] < 1080) {
		t.Errorf("JCTs %v, want both under 1080 (sharing beats taking turns)", got)
	}
}

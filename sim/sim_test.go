package sim

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// Two jobs share one GPU. A: 100 steps, B: 300 steps, both at t=0.
// Solo rates A=2, B=3 it/s; co-located A|B=1, B|A=2 it/s.
// greedy-pack gives A the free GPU and packs B next to it (no GPU is free).
//
//	0..100 s:  both share. A does 1*100 = 100 steps: done at t=100.
//	           B does 2*100 = 200 steps, 100 left.
//	100 s..:   B alone at 3 it/s: 100/3 s more, done at t=100+100/3=133.33 s.
//
// JCT A = 100 s, JCT B = 400/3 s; makespan 400/3 s; the GPU is busy all
// the time, so utilisation is 1. Effective utilisation counts work: for
// 100 s A runs at 1/2 and B at 2/3 of solo (7/6 of a GPU), then B alone
// for 100/3 s: (700/6 + 100/3) / (400/3) = 1.125.
func TestTwoJobsShareOneGPU(t *testing.T) {
	truth := fakeRates{
		solo: map[string]float64{"A|g": 2, "B|g": 3},
		co:   map[string]float64{"A|B|g": 1, "B|A|g": 2},
	}
	jobs := []TraceJob{{Workload: "A", Steps: 100, Scale: 1}, {Workload: "B", Steps: 300, Scale: 1}}
	for _, round := range []float64{0, 360, 7} { // rounds must not change the outcome
		o := opts()
		o.Round = round
		r := run(t, topo(t, "n g 1 1"), jobs, truth, NewGreedyPack(SoloOnly(truth)), o)
		checkJCT(t, r, map[int]float64{0: 100, 1: 400.0 / 3})
		if !near(r.Makespan, 400.0/3) || !near(r.GPUUtil, 1) || !near(r.AvgJCT, (100+400.0/3)/2) {
			t.Errorf("round %v: makespan %v util %v avg %v, want 133.33, 1, 116.67", round, r.Makespan, r.GPUUtil, r.AvgJCT)
		}
		if !near(r.EffectiveUtil, 1.125) || !near(r.Util[0].Effective, 1.125) {
			t.Errorf("round %v: effective util %v (%v by type), want 1.125", round, r.EffectiveUtil, r.Util[0].Effective)
		}
		if r.Shared != 2 || !near(r.Jobs[0].Shared, 100) || !near(r.Jobs[1].Shared, 100) {
			t.Errorf("round %v: shared jobs %d, shared time A %v B %v; want 2, 100 s, 100 s", round, r.Shared, r.Jobs[0].Shared, r.Jobs[1].Shared)
		}
	}
}

// A job arriving later waits under fifo for the only GPU.
// A: 100 steps at 2 it/s from t=0, done at 50. B arrives at 10 with 60
// steps at 3 it/s: it waits until 50 and is done at 50+20 = 70.
// JCT A = 50, B = 70-10 = 60; avg 55; p95 (nearest rank of two) = 60;
// makespan 70, utilisation 70/70 = 1. B never shares (fifo).
func TestFIFOLaterJobWaits(t *testing.T) {
	truth := fakeRates{
		solo: map[string]float64{"A|g": 2, "B|g": 3},
		co:   map[string]float64{"A|B|g": 1, "B|A|g": 1},
	}
	jobs := []TraceJob{{Workload: "A", Steps: 100, Scale: 1}, {Workload: "B", Steps: 60, Scale: 1, Arrival: 10}}
	r := run(t, topo(t, "n g 1 1"), jobs, truth, NewFIFO(SoloOnly(truth)), opts())
	checkJCT(t, r, map[int]float64{0: 50, 1: 60})
	if !near(r.Jobs[1].Start, 50) || !near(r.AvgJCT, 55) || !near(r.P95JCT, 60) || !near(r.Makespan, 70) || !near(r.GPUUtil, 1) {
		t.Errorf("B start %v, avg %v, p95 %v, makespan %v, util %v; want 50, 55, 60, 70, 1",
			r.Jobs[1].Start, r.AvgJCT, r.P95JCT, r.Makespan, r.GPUUtil)
	}
	if r.Shared != 0 {
		t.Errorf("fifo shared %d jobs, want 0", r.Shared)
	}
}

// Two GPUs on one node. A (100 steps) and B (50 steps) at t=0, 1 it/s
// each; C needs both GPUs, arrives at 20, 60 steps at 2 it/s on two GPUs.
// fifo: A on GPU 0 (0..100), B on GPU 1 (0..50); C waits for both, runs
// 100..130.
// JCT A 100, B 50, C 110; makespan 130.
// Busy GPU time: 100 + 50 + 2*30 = 210 of 2*130 = 260: util 210/260.
func TestMakespanAndUtilisationTwoGPUs(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"A|g": 1, "B|g": 1, "C|g": 2}}
	jobs := []TraceJob{
		{Workload: "A", Steps: 100, Scale: 1},
		{Workload: "B", Steps: 50, Scale: 1},
		{Workload: "C", Steps: 60, Scale: 2, Arrival: 20},
	}
	r := run(t, topo(t, "n g 1 2"), jobs, truth, NewFIFO(SoloOnly(truth)), opts())
	checkJCT(t, r, map[int]float64{0: 100, 1: 50, 2: 110})
	if !near(r.Makespan, 130) || !near(r.GPUUtil, 210.0/260) {
		t.Errorf("makespan %v util %v, want 130, %v", r.Makespan, r.GPUUtil, 210.0/260)
	}
}

// Utilisation per GPU type. Node a has one GPU of type a, node b one of
// type b. X and Y (100 steps each, t=0) run at 2 it/s on a and 1 it/s on
// b. fifo gives X the faster type a (done at 50) and Y, with a taken, b
// (done at 100). Makespan 100; util a = 50/100, b = 100/100, all 150/200.
func TestUtilisationPerType(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"X|a": 2, "X|b": 1, "Y|a": 2, "Y|b": 1}}
	jobs := []TraceJob{{Workload: "X", Steps: 100, Scale: 1}, {Workload: "Y", Steps: 100, Scale: 1}}
	r := run(t, topo(t, "na a 1 1", "nb b 1 1"), jobs, truth, NewFIFO(SoloOnly(truth)), opts())
	want := []TypeUtil{{GPUType: "a", GPUs: 1, Util: 0.5, Effective: 0.5}, {GPUType: "b", GPUs: 1, Util: 1, Effective: 1}}
	if !reflect.DeepEqual(r.Util, want) || !near(r.GPUUtil, 0.75) || !near(r.EffectiveUtil, 0.75) {
		t.Errorf("util %+v overall %v, want %+v and 0.75", r.Util, r.GPUUtil, want)
	}
	if r.Jobs[0].GPUType != "a" || r.Jobs[1].GPUType != "b" {
		t.Errorf("X on %s, Y on %s; want a, b", r.Jobs[0].GPUType, r.Jobs[1].GPUType)
	}
}

// A policy moves job A from GPU 0 to GPU 1 at the first round (t=100).
// A: 1000 steps at 1 it/s. By t=100 it did 100; the move costs the 30 s
// restart penalty (no progress 100..130), then 900 steps: done at 1030.
func TestMigrationPaysRestartPenalty(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"A|g": 1}}
	pol := &scripted{name: "mover", steps: []func(v *View) *Plan{
		func(v *View) *Plan { p := v.Plan(); p.Place(0, 0); return p },
		func(v *View) *Plan {
			if v.Events != Round || v.Now != 100 || v.Running[0].Done != 100 {
				t.Errorf("second call: events %v at %v, done %v; want a round at 100 with 100 steps done", v.Events, v.Now, v.Running[0].Done)
			}
			p := v.Plan()
			p.Place(0, 1)
			return p
		},
	}}
	o := opts()
	o.Round = 100
	o.RestartPenalty = 30
	r := run(t, topo(t, "n g 1 2"), []TraceJob{{Workload: "A", Steps: 1000, Scale: 1}}, truth, pol, o)
	checkJCT(t, r, map[int]float64{0: 1030})
	if r.Restarts != 1 || r.Jobs[0].Restarts != 1 {
		t.Errorf("restarts %d (job %d), want 1", r.Restarts, r.Jobs[0].Restarts)
	}
	// Called at the arrival and the rounds at 100, 200, ..., 1000; not at
	// the completion at 1030, which leaves no job to decide for.
	if n := len(pol.calls); n != 11 {
		t.Errorf("policy called %d times, want 11 (arrival, 10 rounds): %v", n, pol.calls)
	}
}

// The same inputs and seed give the same result; another seed draws
// other placements.
func TestDeterministicForSeed(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{}, co: map[string]float64{}}
	var jobs []TraceJob
	names := []string{"A", "B", "C"}
	for i, n := range names {
		for _, typ := range []string{"a", "b"} {
			truth.solo[n+"|"+typ] = float64(i + 1)
			for _, m := range names {
				truth.co[n+"|"+m+"|"+typ] = float64(i+1) / 2
			}
		}
	}
	for i := 0; i < 40; i++ {
		jobs = append(jobs, TraceJob{Workload: names[i%3], Steps: int64(50 + 7*i), Scale: 1, Arrival: float64(3 * i)})
	}
	tp := topo(t, "na a 2 2", "nb b 1 2")
	o := opts()
	o.Round = 60
	o.Timeline = true
	first := run(t, tp, jobs, truth, newRandomPack(7), o)
	again := run(t, tp, jobs, truth, newRandomPack(7), o)
	if !reflect.DeepEqual(first, again) {
		t.Fatal("two runs with seed 7 differ")
	}
	other := run(t, tp, jobs, truth, newRandomPack(8), o)
	if reflect.DeepEqual(first.Jobs, other.Jobs) {
		t.Error("seeds 7 and 8 gave the same placements; the seed is not used")
	}
}

// A job type the data do not know, and a scale no GPU type has a rate
// for, are reported, not simulated, and do not stop the run.
func TestUnknownJobTypeReported(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"A|g": 1}}
	jobs := []TraceJob{
		{Workload: "A", Steps: 10, Scale: 1},
		{Workload: "Nope", Steps: 10, Scale: 1, Line: 2},
		{Workload: "A", Steps: 10, Scale: 8, Line: 3},
	}
	r := run(t, topo(t, "n g 1 1"), jobs, truth, NewFIFO(SoloOnly(truth)), opts())
	if r.Completed != 1 || r.Unrunnable != 2 {
		t.Fatalf("completed %d unrunnable %d, want 1 and 2", r.Completed, r.Unrunnable)
	}
	if j := r.Jobs[1]; j.Status != StatusUnrunnable || !strings.Contains(j.Reason, `"Nope" is not in the data`) {
		t.Errorf("job 1: %s %q", j.Status, j.Reason)
	}
	if j := r.Jobs[2]; !strings.Contains(j.Reason, "needs 8 GPUs") || !math.IsNaN(j.JCT) {
		t.Errorf("job 2: %q, JCT %v", j.Reason, j.JCT)
	}
	if len(r.Warnings) != 2 {
		t.Errorf("warnings %q, want one per reason", r.Warnings)
	}
}

// Plans that break a placement rule stop the run with a placementError
// that names the job.
func TestPlacementRefused(t *testing.T) {
	truth := fakeRates{
		solo: map[string]float64{"A|g": 1, "B|g": 1, "A|h": 1, "W|g": 1},
		co:   map[string]float64{"A|B|g": 1}, // B|A missing: A and B cannot share
	}
	jobs := []TraceJob{{Workload: "A", Steps: 10, Scale: 1}, {Workload: "B", Steps: 10, Scale: 1}, {Workload: "W", Steps: 10, Scale: 2}}
	cases := []struct {
		name string
		plan func(v *View) *Plan
		want string
	}{
		{"unshareable pair", func(v *View) *Plan { p := v.Plan(); p.Place(0, 0); p.Place(1, 0); return p }, "no status-ok measurement"},
		{"wrong count", func(v *View) *Plan { p := v.Plan(); p.Place(2, 0); return p }, "may run on [2] GPU(s), the plan gives 1"},
		{"two types", func(v *View) *Plan { p := v.Plan(); p.Place(2, 0, 2); return p }, "GPUs of two types"},
		{"no rate", func(v *View) *Plan { p := v.Plan(); p.Place(1, 2); return p }, "cannot run on 1 h GPU(s)"},
		{"unknown GPU", func(v *View) *Plan { p := v.Plan(); p.Place(0, 9); return p }, "GPU 9 does not exist"},
		{"three on a GPU", func(v *View) *Plan { p := v.Plan(); p.Place(0, 0); p.Place(1, 0); p.Place(2, 0, 1); return p }, "would hold 3 jobs"},
		{"partial overlap", func(v *View) *Plan { p := v.Plan(); p.Place(0, 0); p.Place(2, 0, 1); return p }, "not all its GPUs"},
		{"unknown job", func(v *View) *Plan { p := v.Plan(); p.Place(7, 0); return p }, "not in the system"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol := &scripted{name: "bad", steps: []func(*View) *Plan{c.plan}}
			_, err := Run(topo(t, "n g 1 2", "m h 1 1"), jobs, truth, pol, opts())
			var pe *placementError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "policy bad at t=0 s: job ") {
				t.Errorf("error %v, want a PlacementError containing %q", err, c.want)
			}
		})
	}
}

// A policy that never places anything stalls the run.
func TestStallIsAnError(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"A|g": 1}}
	o := opts()
	o.Round = 60
	_, err := Run(topo(t, "n g 1 1"), []TraceJob{{Workload: "A", Steps: 10, Scale: 1}}, truth, &scripted{name: "idle"}, o)
	if !errors.Is(err, errStalled) {
		t.Errorf("error %v, want ErrStalled", err)
	}
}

func TestOptionsValidated(t *testing.T) {
	for _, o := range []Options{
		{Round: -1, MaxPerGPU: 2, MaxEvents: 1},
		{RestartPenalty: math.NaN(), MaxPerGPU: 2, MaxEvents: 1},
		{MaxPerGPU: 3, MaxEvents: 1},
		{MaxPerGPU: 2},
	} {
		if _, err := Run(topo(t, "n g 1 1"), nil, fakeRates{}, NewFIFO(fakeRates{}), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

func TestPercentile(t *testing.T) {
	cases := []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{5}, 0.95, 5},
		{[]float64{3, 1, 2}, 0.5, 2},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 0.95, 19},
		{[]float64{10, 20}, 0.95, 20},
		{[]float64{4, 1}, 0.01, 1},
	}
	for _, c := range cases {
		if got := percentile(c.xs, c.q); got != c.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", c.xs, c.q, got, c.want)
		}
	}
	if !math.IsNaN(percentile(nil, 0.5)) {
		t.Error("Percentile of nothing is not NaN")
	}
}

// TestRunProgress checks what a replay tells Options.Progress: it starts
// at nothing completed, never goes back, and ends once with every
// runnable job completed.
func TestRunProgress(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"A|g": 1}}
	jobs := []TraceJob{{Workload: "Nope", Steps: 10, Scale: 1, Line: 1}}
	for i := range 1500 { // more than 1,024 scheduling points
		jobs = append(jobs, TraceJob{Workload: "A", Steps: 2, Scale: 1, Arrival: float64(3 * i), Line: i + 2})
	}
	var seen []Progress
	opt := opts()
	opt.Progress = func(p Progress) { seen = append(seen, p) }
	res := run(t, topo(t, "n g 1 1"), jobs, truth, NewFIFO(SoloOnly(truth)), opt)
	if len(seen) < 3 || seen[0].Completed != 0 || seen[0].Ended {
		t.Fatalf("progress %+v", seen)
	}
	for i, p := range seen {
		if p.Policy != "fifo" || p.Jobs != len(jobs) || (i > 0 && p.Completed < seen[i-1].Completed) || p.Ended != (i == len(seen)-1) {
			t.Fatalf("progress %d: %+v (before: %+v)", i, p, seen[max(0, i-1)])
		}
	}
	if last := seen[len(seen)-1]; last.Completed != 1500 || res.Completed != 1500 || res.Unrunnable != 1 {
		t.Errorf("ended at %d completed; the result: %d completed, %d unrunnable", last.Completed, res.Completed, res.Unrunnable)
	}
}

package sim

import (
	"reflect"
	"testing"
)

// fifo does not backfill: B (2 GPUs) waits for A's GPU, and C (1 GPU),
// behind B, waits too although GPU 1 is free.
// A: 100 steps at 1 it/s on GPU 0, 0..100. B: 2 GPUs from 100, 50 steps at
// 1 it/s: 100..150. C: 10 steps at 1 it/s, 150..160.
func TestFIFONoBackfill(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"A|g": 1, "B|g": 1, "C|g": 1}}
	jobs := []TraceJob{
		{Workload: "A", Steps: 100, Scale: 1},
		{Workload: "B", Steps: 50, Scale: 2, Arrival: 1},
		{Workload: "C", Steps: 10, Scale: 1, Arrival: 2},
	}
	r := run(t, topo(t, "n g 1 2"), jobs, truth, NewFIFO(SoloOnly(truth)), opts())
	for id, start := range map[int]float64{0: 0, 1: 100, 2: 150} {
		if got := r.Jobs[id].Start; got != start {
			t.Errorf("job %d started at %v, want %v", id, got, start)
		}
	}
}

// greedy-pack takes free GPUs first and packs only when none is free;
// with PackFirst it packs as soon as a GPU holds one shareable job.
// Two GPUs, three jobs at t=0 that may all share. Free first: A on GPU 0,
// B on GPU 1, C packs next to A (GPU 0, the lowest with the best solo
// rate). Pack first: A on GPU 0 (nothing to pack with), B packs on GPU 0,
// C takes free GPU 1.
func TestGreedyPackOrder(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{}, co: map[string]float64{}}
	for _, a := range []string{"A", "B", "C"} {
		truth.solo[a+"|g"] = 1
		for _, b := range []string{"A", "B", "C"} {
			truth.co[a+"|"+b+"|g"] = 0.5
		}
	}
	jobs := []TraceJob{{Workload: "A", Steps: 100, Scale: 1}, {Workload: "B", Steps: 100, Scale: 1}, {Workload: "C", Steps: 100, Scale: 1}}
	for _, c := range []struct {
		packFirst bool
		want      [][]int
	}{
		{false, [][]int{{0, 2}, {1}}},
		{true, [][]int{{0, 1}, {2}}},
	} {
		g := NewGreedyPack(SoloOnly(truth))
		g.PackFirst = c.packFirst
		pol := &recorder{Policy: g}
		run(t, topo(t, "n g 1 2"), jobs, truth, pol, opts())
		if !reflect.DeepEqual(pol.first, c.want) {
			t.Errorf("pack first %v: GPUs hold %v, want %v", c.packFirst, pol.first, c.want)
		}
	}
}

// With one job per GPU allowed, greedy-pack never packs.
func TestGreedyPackRespectsMaxPerGPU(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"A|g": 1, "B|g": 1}, co: map[string]float64{"A|B|g": 1, "B|A|g": 1}}
	jobs := []TraceJob{{Workload: "A", Steps: 100, Scale: 1}, {Workload: "B", Steps: 100, Scale: 1}}
	o := opts()
	o.MaxPerGPU = 1
	r := run(t, topo(t, "n g 1 1"), jobs, truth, NewGreedyPack(SoloOnly(truth)), o)
	checkJCT(t, r, map[int]float64{0: 100, 1: 200})
}

// recorder wraps a policy and records the occupancy after its first plan.
type recorder struct {
	Policy
	first [][]int
}

func (r *recorder) Schedule(v *View) (*Plan, error) {
	p, err := r.Policy.Schedule(v)
	if r.first == nil && p != nil {
		for g := range v.Topology.GPUs {
			r.first = append(r.first, append([]int(nil), p.JobsOn(g)...))
		}
	}
	return p, err
}

// bestFree weighs one node against spread by estimated rate, and
// FreeOnNode fills the fullest node that fits.
func TestBestFree(t *testing.T) {
	tp := topo(t, "big g 1 4", "small g 2 2", "other h 1 4")
	truth := fakeRates{solo: map[string]float64{"J|g": 10, "J|g|spread": 4, "J|h": 5, "K|g": 1}}
	s := newSimulation(tp, []TraceJob{{Workload: "J", Scale: 2}, {Workload: "K", Scale: 4}}, truth, nil, opts())
	s.st[0].status, s.st[1].status = waiting, waiting
	v := &View{Topology: tp, sim: s}
	p := v.Plan()
	// Nodes: big (GPUs 0-3), small-0 (4-5), small-1 (6-7), other (8-11).
	gpus, rate, ok := bestFree(p, s.jobs[0], truth)
	if !ok || rate != 10 || !reflect.DeepEqual(gpus, []int{4, 5}) {
		t.Errorf("best fit: %v at %v (%v), want GPUs [4 5] at 10", gpus, rate, ok)
	}
	// Fill small-0 and small-1 halfway and big fully: two g GPUs are free
	// on two nodes, so J runs spread (4) or on h (5): h wins.
	for _, g := range []int{0, 1, 2, 3, 4, 6} {
		s.countGPU(g, -1)
		s.on[g] = []int{100 + g}
		s.countGPU(g, 1)
	}
	p = v.Plan()
	if p.FreeOf("g") != 2 || p.FreeOf("h") != 4 || p.lone != 6 || !p.Room() {
		t.Errorf("free g %d, h %d, lone %d; want 2, 4, 6", p.FreeOf("g"), p.FreeOf("h"), p.lone)
	}
	gpus, rate, ok = bestFree(p, s.jobs[0], truth)
	if !ok || rate != 5 || !reflect.DeepEqual(gpus, []int{8, 9}) {
		t.Errorf("spread vs other type: %v at %v (%v), want [8 9] at 5", gpus, rate, ok)
	}
	if g, ok := FreeSpread(p, "g", 2); !ok || !reflect.DeepEqual(g, []int{5, 7}) {
		t.Errorf("FreeSpread: %v %v, want [5 7]", g, ok)
	}
	// K has no rate on h and needs 4 g GPUs: none.
	if _, _, ok := bestFree(p, s.jobs[1], truth); ok {
		t.Error("K placed without room")
	}
}

// fifo blocks behind a job that does not fit, backfill skips it. Two
// GPUs; X (1 GPU, 100 steps at 1 it/s) runs from t=0; Y (2 GPUs, 10
// steps) arrives at 1 and cannot fit until X is done; Z (1 GPU, 10 steps)
// arrives at 2. fifo: Z waits behind Y: Y runs 100..110, Z 110..120.
// backfill: Z runs 2..12 on the free GPU, Y 100..110.
func TestBackfillSkipsAJobThatDoesNotFit(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"X|g": 1, "Y|g": 1, "Z|g": 1}}
	jobs := []TraceJob{
		{Workload: "X", Steps: 100, Scale: 1},
		{Workload: "Y", Steps: 10, Scale: 2, Arrival: 1},
		{Workload: "Z", Steps: 10, Scale: 1, Arrival: 2},
	}
	f := run(t, topo(t, "n g 1 2"), jobs, truth, NewFIFO(SoloOnly(truth)), opts())
	checkJCT(t, f, map[int]float64{0: 100, 1: 109, 2: 118})
	b := run(t, topo(t, "n g 1 2"), jobs, truth, NewBackfill(SoloOnly(truth)), opts())
	checkJCT(t, b, map[int]float64{0: 100, 1: 109, 2: 10})
	if b.Shared != 0 {
		t.Errorf("backfill shared %d jobs; it never shares", b.Shared)
	}
}

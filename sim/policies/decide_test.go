package policies

import (
	"math"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
)

func oneGPU(t *testing.T) *sim.Topology {
	t.Helper()
	topo, err := sim.NewTopology(&cluster.Spec{Version: 1, Groups: []cluster.NodeGroup{{Name: "n", GPUType: "g", GPUs: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func runRule(t *testing.T, topo *sim.Topology, jobs []sim.TraceJob, tr sim.Rates, p sim.Policy) *sim.Result {
	t.Helper()
	o := sim.DefaultOptions
	o.Round = 0
	res, err := sim.Run(topo, jobs, tr, p, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func wantJCT(t *testing.T, res *sim.Result, want ...float64) {
	t.Helper()
	for i, w := range want {
		if got := res.Jobs[i].JCT; math.Abs(got-w) > 1e-6 {
			t.Errorf("%s: job %d (%s) JCT %v, want %v", res.Policy, i, res.Jobs[i].Workload, got, w)
		}
	}
}

// Share beats wait. One GPU, 1 iteration/s solo. A (1000 steps) runs from
// t=0; B (100 steps) arrives at 0 too, after A took the GPU. Waiting, B
// starts at 1000 and ends at 1100: cost 1100. Sharing at 0.9 each, B ends
// at 100/0.9 = 111.1 and A, which did 100 steps in that time instead of
// 111.1, ends 11.1 s later: cost 111.1 + 11.1 = 122.2. The rule shares.
func TestRuleShareBeatsWait(t *testing.T) {
	ps := map[[2]string]float64{}
	both(ps, "A", "B", 0.9, 0.9)
	tr := truth(t, []string{"A", "B"}, ps)
	jobs := []sim.TraceJob{{Workload: "A", Steps: 1000, Scale: 1}, {Workload: "B", Steps: 100, Scale: 1}}
	res := runRule(t, oneGPU(t), jobs, tr, arrival(OracleRule(tr, Known, 0)))
	wantJCT(t, res, 100/0.9+900, 100/0.9)
	if res.Shared != 2 {
		t.Errorf("shared jobs %d, want 2", res.Shared)
	}
	// The floor refuses the pair: B waits for A.
	res = runRule(t, oneGPU(t), jobs, tr, arrival(OracleRule(tr, Known, 0.95)))
	wantJCT(t, res, 1000, 1100)
}

// Wait beats share. A (100 steps) runs; B (1000 steps) arrives at 0; the
// pair keeps 0.3 each. Waiting: B ends at 1100, cost 1100. Sharing: A
// ends at 100/0.3 = 333.3 (233.3 late), B does 100 steps meanwhile and
// the other 900 alone, ending at 1233.3: cost 1466.7. The rule waits.
func TestRuleWaitBeatsShare(t *testing.T) {
	ps := map[[2]string]float64{}
	both(ps, "A", "B", 0.3, 0.3)
	tr := truth(t, []string{"A", "B"}, ps)
	jobs := []sim.TraceJob{{Workload: "A", Steps: 100, Scale: 1}, {Workload: "B", Steps: 1000, Scale: 1}}
	res := runRule(t, oneGPU(t), jobs, tr, OracleRule(tr, Known, 0))
	wantJCT(t, res, 100, 1100)
	if res.Shared != 0 {
		t.Errorf("shared jobs %d, want 0", res.Shared)
	}
	// greedy-pack, blind to interference, shares: worse for both.
	g := runRule(t, oneGPU(t), jobs, tr, sim.NewGreedyPack(sim.SoloOnly(tr)))
	wantJCT(t, g, 100/0.3, 100/0.3+900)
}

// Coloc decides with its predictions, not the truth: predicted 0.3 it
// waits where the oracle, knowing 0.9, shares.
func TestRuleFollowsPredictions(t *testing.T) {
	ps := map[[2]string]float64{}
	both(ps, "A", "B", 0.9, 0.9)
	tr := truth(t, []string{"A", "B"}, ps)
	jobs := []sim.TraceJob{{Workload: "A", Steps: 1000, Scale: 1}, {Workload: "B", Steps: 100, Scale: 1}}
	pessimist := func(v *sim.View, w, q string, sh sim.Shape) (float64, bool) { return 0.05, v.CanShare(w, q, sh) }
	res := runRule(t, oneGPU(t), jobs, tr, arrival(NewRule("coloc", sim.SoloOnly(tr), pessimist, Known, 0)))
	wantJCT(t, res, 1000, 1100)
}

// Unknown durations: B's remaining work is the prior (PriorS = 3600 s of
// solo time) while A has run for 0 s, so both look alike; at 0.9 each,
// sharing costs about 2 x 3600/0.9 - 3600 = 4400 s against 7200 s for
// waiting, and the rule shares, as with known durations.
func TestRuleAttainedShares(t *testing.T) {
	ps := map[[2]string]float64{}
	both(ps, "A", "B", 0.9, 0.9)
	tr := truth(t, []string{"A", "B"}, ps)
	jobs := []sim.TraceJob{{Workload: "A", Steps: 1000, Scale: 1}, {Workload: "B", Steps: 100, Scale: 1}}
	res := runRule(t, oneGPU(t), jobs, tr, arrival(OracleRule(tr, Attained, 0)))
	if res.Shared != 2 {
		t.Errorf("attained: shared jobs %d, want 2", res.Shared)
	}
	wantJCT(t, res, 100/0.9+900, 100/0.9)
}

func TestOverlap(t *testing.T) {
	// a: 100 at 2/s x 0.5 = 1/s; b: 300 at 3/s x 2/3 = 2/s. a ends at 100;
	// b did 200, its last 100 at 3/s: 133.3.
	ta, tb := overlap(100, 2, 0.5, 300, 3, 2.0/3)
	if math.Abs(ta-100) > 1e-9 || math.Abs(tb-400.0/3) > 1e-9 {
		t.Errorf("overlap = %v, %v; want 100, 133.33", ta, tb)
	}
	tb, ta = overlap(300, 3, 2.0/3, 100, 2, 0.5)
	if math.Abs(ta-100) > 1e-9 || math.Abs(tb-400.0/3) > 1e-9 {
		t.Errorf("overlap swapped = %v, %v; want 133.33, 100", tb, ta)
	}
}

// A lower degree beats queueing (policy degree mode). One node of 4
// GPUs. X (1 GPU, 1000 steps at 1/s) runs from t=0; Y asks 4 GPUs for 700
// steps and was measured at 1, 2, 3 and 4 GPUs (1, 1.9, 2.7, 3.5 it/s).
// Waiting for 4 GPUs it would end at 1000 + 700/3.5 = 1200; on the 3 free
// GPUs now at 700/2.7 = 259.3: the rule takes 3. backfill, at the
// request, waits; in trace mode the rule has only 4 to choose from.
func TestRuleLowerDegreeBeatsQueueing(t *testing.T) {
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitItersPerS}
	solo.Rows = append(solo.Rows, datasets.Solo{Workload: "X", DeviceType: "g", Degree: 1, Throughput: 1, Source: "test"})
	for d, r := range []float64{1, 1.9, 2.7, 3.5} {
		solo.Rows = append(solo.Rows, datasets.Solo{Workload: "Y", DeviceType: "g", Degree: d + 1, Throughput: r, Source: "test"})
	}
	tr, err := sim.NewMeasured(solo, nil)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := sim.NewTopology(&cluster.Spec{Version: 1, Groups: []cluster.NodeGroup{{Name: "n", GPUType: "g", GPUs: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []sim.TraceJob{{Workload: "X", Steps: 1000, Scale: 1}, {Workload: "Y", Steps: 700, Scale: 4}}
	o := sim.DefaultOptions
	o.Round, o.Degree = 0, sim.DegreePolicy
	for _, c := range []struct {
		p      sim.Policy
		degree string
		jct    float64
		gpus   int
	}{
		{arrival(OracleRule(tr, Known, 0)), sim.DegreePolicy, 700 / 2.7, 3},
		{sim.NewBackfill(sim.SoloOnly(tr)), sim.DegreePolicy, 1200, 4},
		{arrival(OracleRule(tr, Known, 0)), sim.DegreeTrace, 1200, 4},
	} {
		o.Degree = c.degree
		res, err := sim.Run(topo, jobs, tr, c.p, o)
		if err != nil {
			t.Fatal(err)
		}
		if y := res.Jobs[1]; math.Abs(y.JCT-c.jct) > 1e-6 || y.Degree != c.gpus || y.Scale != 4 {
			t.Errorf("%s, degree %s: Y JCT %v on %d GPU(s) (request %d), want %v on %d", c.p.Name(), c.degree, y.JCT, y.Degree, y.Scale, c.jct, c.gpus)
		}
	}
}

// A move pays for its penalty, or does not. Two GPUs, one "slow" and one
// "fast". Y (1000 steps, 1 it/s, fast only) runs on the fast one from
// t=0. X (2000 steps; 1 it/s slow, 1.5 it/s fast) arrives with it: the
// slow GPU now (2000 s) beats waiting for the fast one (1000 + 1333 s).
// When Y ends at 1000, X has 1000 steps left: staying takes 1000 s,
// moving penalty + 666.7 s. With a 30 s penalty X moves and ends at
// 1696.7; with 500 s the move does not pay and X ends at 2000.
func TestRuleMoveThatPaysAndOneThatDoesNot(t *testing.T) {
	jobs := []sim.TraceJob{{Workload: "Y", Steps: 1000, Scale: 1}, {Workload: "X", Steps: 2000, Scale: 1}}
	fastSlowX(t, 1.5, jobs, sim.DefaultOptions.Round, []penaltyCase{{30, 1000 + 30 + 1000/1.5, 1}, {500, 2000, 0}})
}

// penaltyCase is X's completion time and number of restarts under one
// restart penalty.
type penaltyCase struct {
	penalty, jct float64
	restarts     int
}

// fastSlowX replays jobs of Y (1 it/s, fast GPUs only) and X (1 it/s on
// the slow GPU, xFast on the fast one) under the oracle on one "fast" and
// one "slow" GPU, once per case's restart penalty, and checks X.
func fastSlowX(t *testing.T, xFast float64, jobs []sim.TraceJob, round float64, cases []penaltyCase) {
	t.Helper()
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitItersPerS}
	for _, r := range []struct {
		w, dev string
		v      float64
	}{{"Y", "fast", 1}, {"X", "slow", 1}, {"X", "fast", xFast}} {
		solo.Rows = append(solo.Rows, datasets.Solo{Workload: r.w, DeviceType: r.dev, Degree: 1, Throughput: r.v, Source: "test"})
	}
	tr, err := sim.NewMeasured(solo, nil)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := sim.NewTopology(&cluster.Spec{Version: 1, Groups: []cluster.NodeGroup{
		{Name: "f", GPUType: "fast", GPUs: 1}, {Name: "s", GPUType: "slow", GPUs: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		o := sim.DefaultOptions
		o.Round, o.RestartPenalty = round, c.penalty
		res, err := sim.Run(topo, jobs, tr, OracleRule(tr, Known, 0), o)
		if err != nil {
			t.Fatal(err)
		}
		if x := res.Jobs[1]; math.Abs(x.JCT-c.jct) > 1e-6 || x.Restarts != c.restarts {
			t.Errorf("penalty %v: X JCT %v with %d restart(s), want %v with %d", c.penalty, x.JCT, x.Restarts, c.jct, c.restarts)
		}
	}
}

// arrival sets arrival order: the hand-built cases have jobs arrive in
// the order the story tells.
func arrival(r *Rule) *Rule {
	if err := r.SetOrder(OrderArrival); err != nil {
		panic(err)
	}
	return r
}

// Shortest first. A (1000 steps) and B (100 steps) arrive together on one
// GPU; the pair was never measured, so they cannot share. In arrival order A
// runs first and B waits: JCTs 1000 and 1100, sum 2100. Shortest first B
// runs first: 1100 and 100, sum 1200.
func TestRuleShortestFirst(t *testing.T) {
	tr := truth(t, []string{"A", "B"}, map[[2]string]float64{})
	jobs := []sim.TraceJob{{Workload: "A", Steps: 1000, Scale: 1}, {Workload: "B", Steps: 100, Scale: 1}}
	wantJCT(t, runRule(t, oneGPU(t), jobs, tr, OracleRule(tr, Known, 0)), 1100, 100)
	wantJCT(t, runRule(t, oneGPU(t), jobs, tr, arrival(OracleRule(tr, Known, 0))), 1000, 1100)
}

// The makespan guard lets the job that would end last choose first. A
// node of two "g" GPUs and one "h" GPU. A (100 s) and B (500 s) take the
// two g GPUs at t=0; L, which needs both g GPUs for 1000 s, waits. At
// t=100 A ends and S arrives (600 s on g, 666.7 s on h). Shortest first
// alone, S takes the free g GPU (ends 700) and L starts at 700, ending at
// 1700: the predicted makespan. Planned again with L first, L holds the g
// GPUs from t=500 (B's end), S takes h (ends 766.7, a g GPU it would hold
// past 500 is refused) and L ends at 1500: the predicted makespan ends
// sooner, so the rule takes that plan. The sum of completion times falls
// too (2766.7 against 2900).
func TestRuleMakespanGuard(t *testing.T) {
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitItersPerS}
	for _, r := range []struct {
		w, dev string
		d      int
		v      float64
	}{{"A", "g", 1, 1}, {"B", "g", 1, 1}, {"L", "g", 2, 1}, {"S", "g", 1, 1}, {"S", "h", 1, 0.9}} {
		solo.Rows = append(solo.Rows, datasets.Solo{Workload: r.w, DeviceType: r.dev, Degree: r.d, Throughput: r.v, Source: "test"})
	}
	tr, err := sim.NewMeasured(solo, nil)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := sim.NewTopology(&cluster.Spec{Version: 1, Groups: []cluster.NodeGroup{
		{Name: "n", GPUType: "g", GPUs: 2}, {Name: "m", GPUType: "h", GPUs: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []sim.TraceJob{{Workload: "A", Steps: 100, Scale: 1}, {Workload: "B", Steps: 500, Scale: 1},
		{Workload: "L", Steps: 1000, Scale: 2}, {Workload: "S", Steps: 600, Scale: 1, Arrival: 100}}
	res := runRule(t, topo, jobs, tr, OracleRule(tr, Known, 0))
	wantJCT(t, res, 100, 500, 1500, 600/0.9)
	if res.Jobs[3].GPUType != "h" || res.Makespan != 1500 {
		t.Errorf("S on %s, makespan %v; want S on h, makespan 1500", res.Jobs[3].GPUType, res.Makespan)
	}
}

// The perturbed oracle decides on perturbed rates and runs on the true
// ones. A (100 steps) and B (1000 steps) arrive together on one GPU; the
// pair's measured normalized throughputs are 0.5 each. Shortest first, A
// takes the GPU and B, sharing, would end at 100/yA + 1000 - 100·yB/yA and
// delay A by 100/yA - 100 (yA: A next to B, yB: B next to A), against
// 1100 waiting: it shares when yA > 1 - yB/2. When B waits, the makespan
// guard plans again with B first; A then shares (its cost 100/yA·(2-yB)
// is far below 1100), and that plan is kept when the predicted makespan
// plus completions, 2000 + (300 - 200·yB)/yA, is below 2300: when
// yA > 1 - 2·yB/3, which the first condition implies. The true oracle
// (0.5, 0.5) waits: JCTs 100 and 1100. A drawn pair that clears the line
// shares, and the jobs then run at 0.5: A ends at 200, B at 1100.
func TestPerturbedOracleDecidesOnDrawnRates(t *testing.T) {
	ps := map[[2]string]float64{}
	both(ps, "A", "B", 0.5, 0.5)
	tr := truth(t, []string{"A", "B"}, ps)
	jobs := []sim.TraceJob{{Workload: "A", Steps: 100, Scale: 1}, {Workload: "B", Steps: 1000, Scale: 1}}
	wantJCT(t, runRule(t, oneGPU(t), jobs, tr, PerturbedOracleRule(tr, Known, 0, 0, 7)), 100, 1100)
	const noise = 0.5
	sh := sim.Shape{GPUType: "g", GPUs: 1}
	shared, waited := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		yA := 0.5 * (1 + noise*pairDraw(seed, "A", "B", sh))
		yB := 0.5 * (1 + noise*pairDraw(seed, "B", "A", sh))
		margin := yA - (1 - 2*yB/3)
		if math.Abs(margin) < 0.02 {
			continue
		}
		res := runRule(t, oneGPU(t), jobs, tr, PerturbedOracleRule(tr, Known, 0, noise, seed))
		if margin > 0 {
			shared++
			wantJCT(t, res, 200, 1100)
		} else {
			waited++
			wantJCT(t, res, 100, 1100)
		}
	}
	if shared == 0 || waited == 0 {
		t.Fatalf("seeds 1 to 40: %d shared, %d waited; want some of each", shared, waited)
	}
}

// A pair's draw is the same for every question and in [-1, 1); another
// seed, order or shape draws anew.
func TestPairDraw(t *testing.T) {
	sh := sim.Shape{GPUType: "g", GPUs: 1}
	u := pairDraw(3, "A", "B", sh)
	if u != pairDraw(3, "A", "B", sh) || u < -1 || u >= 1 {
		t.Fatalf("draw %v: want one value in [-1, 1)", u)
	}
	for _, v := range []float64{pairDraw(4, "A", "B", sh), pairDraw(3, "B", "A", sh), pairDraw(3, "A", "B", sim.Shape{GPUType: "g", GPUs: 2})} {
		if v == u {
			t.Errorf("draw %v repeated for another seed, order or shape", v)
		}
	}
}

// Running now and moving later beats waiting. Y (200 steps, 1 it/s, fast
// GPUs only) takes the fast GPU; X (1000 steps) runs at 1 it/s on the slow
// one and 2 it/s on the fast one, free at 200. Waiting costs 200 + 500 =
// 700. Running now costs 1000 alone, but the rule moves X when the fast GPU
// frees: 200 s on the slow GPU (a fifth of the work), the 30 s penalty and
// the other four fifths at 2 it/s, 200 + 30 + 400 = 630. X runs now and
// moves at 200. With a 500 s penalty the move would cost 1100: X waits.
func TestRuleRunNowAndMoveBeatsWait(t *testing.T) {
	jobs := []sim.TraceJob{{Workload: "Y", Steps: 200, Scale: 1}, {Workload: "X", Steps: 1000, Scale: 1}}
	fastSlowX(t, 2, jobs, 0, []penaltyCase{{30, 630, 1}, {500, 700, 0}})
}

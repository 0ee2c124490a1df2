package policies

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/sim"
)

// TestRuleIndexesMatchScan replays an overloaded generated Gavel trace
// under the oracle rule twice, with its remembered shapes, partner
// lists, free times and queue order (the first plan's lists shared with
// the guard's second plan until one changes them) and replan's bound on
// a move's gain, and asking every question anew (Rule.plain: the
// partners from the lone list, the queue sorted whole, every running
// job's moves searched), and wants the same result for every job:
// start, finish, GPUs and partner. Known and attained durations,
// shortest-first and arrival order, trace and policy degrees, with and
// without assumed multi-GPU pairs; every case moves some job. At the end
// of every pass the latest GPU free time a plan keeps must be the one
// its GPUs give.
func TestRuleIndexesMatchScan(t *testing.T) {
	ds, err := datasets.Open(filepath.Join("..", "..", "datasets", "reference", "gavel"))
	if err != nil {
		t.Fatal(err)
	}
	truth, err := sim.NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		t.Fatal(err)
	}
	n := 600
	if testing.Short() {
		n = 250
	}
	jobs, err := sim.Generate(sim.GenOptions{Jobs: n, Seed: 3, Workloads: truth.Workloads(), Rates: truth, RefType: "v100", MeanGap: 60})
	if err != nil {
		t.Fatal(err)
	}
	topo := simTopo(t, "v v100 2 4", "p p100 2 4", "k k80 2 4")
	for _, c := range []struct {
		d        Durations
		order    string
		degree   string
		assume   bool
		minShare int
	}{
		{Known, OrderShortest, sim.DegreeTrace, false, 1},
		{Known, OrderShortest, sim.DegreePolicy, false, 1},
		{Known, OrderShortest, sim.DegreePolicy, true, 1},
		{Known, OrderArrival, sim.DegreeTrace, false, 1},
		{Attained, OrderShortest, sim.DegreeTrace, false, 1},
	} {
		t.Run(fmt.Sprintf("%s/%s/%s/assume=%v", c.d, c.order, c.degree, c.assume), func(t *testing.T) {
			o := simOpts()
			o.Degree = c.degree
			rates := sim.Rates(truth)
			if c.assume {
				rates = truth.AssumedPairs()
			}
			run := func(plain bool) *sim.Result {
				r := OracleRule(rates, c.d, 0)
				if err := r.SetOrder(c.order); err != nil {
					t.Fatal(err)
				}
				r.plain = plain
				r.passDone = func(ps *planState) {
					latest := ps.v.Now
					for _, f := range ps.freeAt {
						latest = max(latest, f)
					}
					if !plain && ps.latest != latest {
						t.Fatalf("at %.0f s the plan keeps %v as the latest GPU free time, the GPUs say %v", ps.v.Now, ps.latest, latest)
					}
				}
				return simRun(t, topo, jobs, rates, r, o)
			}
			fast, plain := run(false), run(true)
			if fast.Shared < c.minShare {
				t.Errorf("%d jobs shared, want at least %d: the case does not exercise the partner lists", fast.Shared, c.minShare)
			}
			if fast.Restarts < 1 {
				t.Errorf("no job moved: the case does not exercise replan's bound")
			}
			if fast.AvgJCT < 10*3600 {
				t.Errorf("average JCT %.0f s: the queue is too short to exercise the queue order", fast.AvgJCT)
			}
			for i := range fast.Jobs {
				if !reflect.DeepEqual(fast.Jobs[i], plain.Jobs[i]) {
					t.Fatalf("job %d: with indexes %+v, asking anew %+v", i, fast.Jobs[i], plain.Jobs[i])
				}
			}
			if !reflect.DeepEqual(fast, plain) {
				t.Errorf("results differ: %+v against %+v", fast, plain)
			}
		})
	}
}

// TestRuleQueueOrderTies: jobs of equal predicted remaining time (two
// workloads, two step counts, one a job every 10 s on two GPUs) choose in
// the order of the waiting list, as a stable sort gives it, whether the
// queue is kept between calls or sorted whole: ordering ties otherwise
// changes which job starts when.
func TestRuleQueueOrderTies(t *testing.T) {
	ps := map[[2]string]float64{}
	both(ps, "A", "B", 0.5, 0.5)
	tr := truth(t, []string{"A", "B"}, ps)
	var jobs []sim.TraceJob
	for i := range 40 {
		w, steps := "A", int64(500)
		if i%3 == 0 {
			w, steps = "B", 300
		}
		jobs = append(jobs, sim.TraceJob{Workload: w, Steps: steps, Scale: 1, Arrival: float64(10 * i)})
	}
	topo := simTopo(t, "n g 1 2")
	run := func(plain bool) *sim.Result {
		r := OracleRule(tr, Known, 0)
		r.plain = plain
		return runRule(t, topo, jobs, tr, r)
	}
	fast, plain := run(false), run(true)
	for i := range fast.Jobs {
		if !reflect.DeepEqual(fast.Jobs[i], plain.Jobs[i]) {
			t.Fatalf("job %d: with the kept queue %+v, sorted whole %+v", i, fast.Jobs[i], plain.Jobs[i])
		}
	}
}

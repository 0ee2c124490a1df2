package peers

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
)

// queueCheck runs a ranked policy and, after each scheduling point,
// requires its kept queues to list exactly the jobs the simulator lists
// as waiting, in the policy's order (key, then arrival, then ID).
type queueCheck struct {
	*ranked
	t                    *testing.T
	points, upper, again int // points seen; of them with a job of key above 0 waiting; jobs that waited again
	waitedBefore         map[int]bool
}

func (q *queueCheck) Schedule(v *sim.View) (*sim.Plan, error) {
	p, err := q.ranked.Schedule(v)
	if err != nil {
		return nil, err
	}
	q.points++
	var want []rankedJob
	for _, j := range v.Waiting {
		want = append(want, rankedJob{j, q.key(v, j, q.attainedOf(j.ID)), -1})
	}
	slices.SortStableFunc(want, compareRanked)
	var got []rankedJob
	for w := range q.queues.jobs(func(*sim.Job) bool { return true }, func() bool { return false }) {
		got = append(got, w)
	}
	if !slices.Equal(got, want) {
		q.t.Fatalf("at %g s: the queues hold %v, the simulator lists %v waiting", v.Now, ids(got), ids(want))
	}
	if len(want) > 0 && want[len(want)-1].key > 0 {
		q.upper++
	}
	for _, j := range v.Waiting {
		if q.waitedBefore[j.ID] && j.Done > 0 {
			q.again++
		}
		q.waitedBefore[j.ID] = true
	}
	return p, nil
}

func ids(js []rankedJob) []int {
	var out []int
	for _, x := range js {
		out = append(out, x.j.ID)
	}
	return out
}

// TestWaitQueuesFollowWaiting replays a loaded cluster of two types (one
// workload runs on one of them only) with jobs of three scales, arrivals
// that tie, preemptions and jobs that start and complete between two
// points, and checks the kept queues of Tiresias and srtf-known at every
// point.
func TestWaitQueuesFollowWaiting(t *testing.T) {
	tp, err := sim.NewTopology(&cluster.Spec{Version: 1, Name: "t", Groups: []cluster.NodeGroup{
		{Name: "k", Count: 2, GPUType: "k80", GPUs: 4},
		{Name: "v", Count: 1, GPUType: "v100", GPUs: 4},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := rates{solo: map[string]float64{"a|k80": 1, "a|v100": 3, "b|k80": 2, "b|v100": 2.5, "c|k80": 1}}
	rng := rand.New(rand.NewPCG(11, 12))
	var jobs []sim.TraceJob
	at := 0.0
	for range 400 {
		if rng.IntN(4) > 0 {
			at += 400 * rng.ExpFloat64()
		}
		jobs = append(jobs, sim.TraceJob{
			Workload: []string{"a", "b", "c"}[rng.IntN(3)],
			Scale:    []int{1, 1, 1, 2, 4}[rng.IntN(5)],
			Steps:    int64(60 * (1 << rng.IntN(9))),
			Arrival:  at,
		})
	}
	for _, p := range []sim.Policy{NewTiresias(r), NewSRTFKnown(r)} {
		q := &queueCheck{ranked: p.(*ranked), t: t, waitedBefore: map[int]bool{}}
		res, err := sim.Run(tp, jobs, r, q, sim.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		if q.upper == 0 || q.again == 0 {
			t.Fatalf("%s: %d points, %d with a job of key above 0 waiting, %d waits after a run: the replay does not try the queues", p.Name(), q.points, q.upper, q.again)
		}
		if res.Restarts == 0 {
			t.Fatalf("%s: no job restarted: the replay has no preemption", p.Name())
		}
		t.Logf("%s: %d points, %d with a job of key above 0 waiting, %d waits after a run, %d restarts", p.Name(), q.points, q.upper, q.again, res.Restarts)
	}
}

// typeWatch records the GPU type a job runs on at each scheduling point.
type typeWatch struct {
	sim.Policy
	id    int
	types []string
}

func (w *typeWatch) Schedule(v *sim.View) (*sim.Plan, error) {
	if j := v.Job(w.id); j != nil && len(j.GPUs) > 0 {
		w.types = append(w.types, v.Topology.GPUs[j.GPUs[0]].Type)
	}
	return w.Policy.Schedule(v)
}

// TestDisplacedJobTakesFastest: one GPU each of k80, p100 and v100. Job
// 0 runs on the v100 past Tiresias's threshold; job 1 arrives, comes
// first (it has attained nothing) and takes the v100; job 0 must move to
// the fastest type left, the p100, not to the k80 that comes first by
// name.
func TestDisplacedJobTakesFastest(t *testing.T) {
	tp, err := sim.NewTopology(&cluster.Spec{Version: 1, Name: "t", Groups: []cluster.NodeGroup{
		{Name: "k", Count: 1, GPUType: "k80", GPUs: 1},
		{Name: "p", Count: 1, GPUType: "p100", GPUs: 1},
		{Name: "v", Count: 1, GPUType: "v100", GPUs: 1},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := rates{solo: map[string]float64{"a|k80": 1, "a|p100": 2, "a|v100": 3}}
	jobs := []sim.TraceJob{
		{Workload: "a", Scale: 1, Steps: 100000},
		{Workload: "a", Scale: 1, Steps: 100000, Arrival: 2 * TiresiasThreshold},
	}
	w := &typeWatch{Policy: NewTiresias(r), id: 0}
	if _, err := sim.Run(tp, jobs, r, w, sim.DefaultOptions); err != nil {
		t.Fatal(err)
	}
	at := slices.Index(w.types, "p100")
	if len(w.types) == 0 || w.types[0] != "v100" || at < 0 || slices.Contains(w.types[:at], "k80") {
		t.Fatalf("job 0 ran on %v at the points it ran: want v100, then p100 once job 1 took the v100", w.types)
	}
}

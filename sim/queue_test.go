package sim

import (
	"slices"
	"testing"
)

// queueChecked runs a policy and, before each of its Schedule calls,
// checks the waiting list against a scan of all jobs, the waiting jobs
// kept by class against a scan of the waiting list, and that Plan.Untried tries the same jobs as a walk of the
// waiting list that skips the jobs Missed reports, under a rule that
// places the jobs that fit, misses the others, leaves some undecided and
// now and then stops a running job;
// and, for each job whose class found no room earlier in the plan
// (PlacedOnFreeSince), that no GPUs are free for it and that the jobs
// placed since are all its possible partners.
type queueChecked struct {
	Policy
	t      *testing.T
	est    Rates
	checks int
	since  int  // jobs whose class PlacedOnFreeSince answered
	shares bool // the policy shares GPUs
}

func (c *queueChecked) Schedule(v *View) (*Plan, error) {
	s := v.sim
	var inQueue []*Job
	for _, j := range s.jobs {
		if s.st[j.ID].status == waiting {
			inQueue = append(inQueue, j)
		}
	}
	slices.SortFunc(inQueue, func(a, b *Job) int { return s.seq[a.ID] - s.seq[b.ID] })
	if !slices.Equal(inQueue, v.Waiting) {
		c.t.Fatalf("t=%g: the waiting list has %d jobs, %d jobs wait", v.Now, len(v.Waiting), len(inQueue))
	}
	want := map[[2]int32][]int{}
	for _, j := range v.Waiting {
		k := [2]int32{s.rules.wid[j.ID], int32(j.Scale)}
		want[k] = append(want[k], j.ID)
	}
	n := 0
	for k, c2 := range s.classIdx {
		var got []int
		for _, j := range s.queues[c2].jobs {
			got = append(got, j.ID)
		}
		if !slices.Equal(got, want[k]) {
			c.t.Fatalf("t=%g class %v: queue %v, the waiting list has %v", v.Now, k, got, want[k])
		}
		if len(got) > 0 {
			n++
		}
	}
	if n != len(want) || n != s.nClasses {
		c.t.Fatalf("t=%g: %d classes wait, %d queued, nClasses %d", v.Now, len(want), n, s.nClasses)
	}
	walk := c.tried(v, func(p *Plan, yield func(*Job) bool) {
		for _, j := range v.Waiting {
			if p.missed(j) {
				continue
			}
			if !yield(j) {
				return
			}
		}
	})
	merged := c.tried(v, func(p *Plan, yield func(*Job) bool) {
		for j := range p.Untried() {
			if !yield(j) {
				return
			}
		}
	})
	if !slices.Equal(walk, merged) {
		c.t.Fatalf("t=%g: Untried tried %v, the walk %v", v.Now, merged, walk)
	}
	c.checks += len(walk)
	return c.Policy.Schedule(v)
}

// tried applies the test's rule to the jobs each gives, on a plan of its
// own, and returns their IDs in order.
func (c *queueChecked) tried(v *View, each func(*Plan, func(*Job) bool)) []int {
	p := v.Plan()
	var ids []int
	each(p, func(j *Job) bool {
		ids = append(ids, j.ID)
		if news, ok := p.PlacedOnFreeSince(j); ok {
			// The class found no room since the plan last freed GPUs:
			// none is free now, and only jobs placed since may be
			// partners.
			if _, _, free := bestFree(p, j, c.est); free {
				c.t.Fatalf("t=%g job %d: free GPUs after its class found none", v.Now, j.ID)
			}
			// A class missed by the last committed plan claims what that
			// policy looks for: backfill never shares.
			if got, want := PartnersAmong(p, j, news), Partners(p, j); c.shares && !slices.Equal(got, want) {
				c.t.Fatalf("t=%g job %d: partners among %v are %v, of all %v", v.Now, j.ID, news, got, want)
			}
			c.since++
		}
		if k := len(ids); k%11 == 0 && k/11 <= len(v.Running) {
			p.Stop(v.Running[k/11-1].ID) // free some GPUs
		}
		switch {
		case j.ID%7 == 0: // undecided: neither placed nor missed
		default:
			if gpus, _, ok := bestFree(p, j, c.est); ok {
				p.Place(j.ID, gpus...)
			} else if ps := Partners(p, j); len(ps) > 0 {
				p.Place(j.ID, p.GPUsOf(ps[0])...)
			} else {
				p.Miss(j)
			}
		}
		return len(ids) < 400
	})
	return ids
}

func TestUntriedMatchesWalk(t *testing.T) {
	types := []string{"v100", "k80"}
	truth := fakeRates{solo: map[string]float64{}, co: map[string]float64{}}
	ws := []string{"a", "b", "c", "d"}
	for i, w := range ws {
		for k, typ := range types {
			truth.solo[w+"|"+typ] = float64(10 + i + 5*k)
			truth.solo[w+"|"+typ+"|spread"] = float64(5 + i + 5*k)
			for _, o := range ws[:3] {
				truth.co[w+"|"+o+"|"+typ] = float64(4 + i + k)
			}
		}
	}
	jobs, err := Generate(GenOptions{Jobs: 600, Seed: 4, Workloads: ws, Rates: truth, RefType: "v100", MeanGap: 20})
	if err != nil {
		t.Fatal(err)
	}
	scales := map[int]bool{}
	for _, j := range jobs {
		scales[j.Scale] = true
	}
	if len(scales) < 2 {
		t.Fatalf("the trace has one job size %v: the classes are not exercised", scales)
	}
	tp := topo(t, "v v100 4 4", "k k80 4 4")
	o := DefaultOptions
	o.Round = 600 // the round policy stops and restarts jobs: they wait again
	for _, p := range []Policy{NewGreedyPack(truth), NewBackfill(truth), &stopper{greedyPack: NewGreedyPack(truth)}} {
		t.Run(p.Name(), func(t *testing.T) {
			c := &queueChecked{Policy: p, t: t, est: truth, shares: p.Name() != "backfill"}
			if r := run(t, tp, jobs, truth, c, o); c.checks < 5000 || c.since < 500 || r == nil {
				t.Fatalf("%d jobs tried, %d after their class found no room: the trace did not exercise the queues", c.checks, c.since)
			}
		})
	}
}

// stopper is greedy-pack that, at each round, stops the running job with
// the lowest ID when another runs, so jobs go back to the waiting list,
// and else places waiting jobs.
type stopper struct{ *greedyPack }

func (s *stopper) Name() string { return "stopper" }

func (s *stopper) Schedule(v *View) (*Plan, error) {
	if v.Events&Round == 0 {
		return s.greedyPack.Schedule(v)
	}
	if len(v.Running) > 1 {
		p := v.Plan()
		p.Stop(v.Running[0].ID)
		return p, nil
	}
	w := *v
	w.Events |= Arrived
	return s.greedyPack.Schedule(&w)
}

// nested checks, at every call, that a Plan.Untried loop inside another
// (which finds the simulation's buffers held) yields what a loop alone
// does: every waiting job in arrival order on a plan left unchanged.
type nested struct {
	Policy
	t     *testing.T
	calls int
}

func (n *nested) Schedule(v *View) (*Plan, error) {
	var want []int
	for _, j := range v.Waiting {
		want = append(want, j.ID)
	}
	var outer, inner []int
	for j := range v.Plan().Untried() {
		if outer == nil {
			for k := range v.Plan().Untried() {
				inner = append(inner, k.ID)
			}
		}
		outer = append(outer, j.ID)
	}
	var again []int // after both loops gave the buffers back
	for j := range v.Plan().Untried() {
		again = append(again, j.ID)
	}
	if !slices.Equal(outer, want) || (len(want) > 0 && !slices.Equal(inner, want)) || !slices.Equal(again, want) {
		n.t.Fatalf("t=%g: waiting %v; outer loop %v, inner %v, after %v", v.Now, want, outer, inner, again)
	}
	if len(want) > 1 {
		n.calls++
	}
	return n.Policy.Schedule(v)
}

func TestUntriedNested(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"a|v100": 10, "b|v100": 12}}
	jobs, err := Generate(GenOptions{Jobs: 120, Seed: 9, Workloads: []string{"a", "b"}, Rates: truth, RefType: "v100", MeanGap: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := &nested{Policy: NewBackfill(truth), t: t}
	if r := run(t, topo(t, "v v100 2 2"), jobs, truth, n, DefaultOptions); r == nil || n.calls < 20 {
		t.Fatalf("%d calls with two or more jobs waiting: the queue never built up", n.calls)
	}
}

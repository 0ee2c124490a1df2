package policies

import (
	"math"

	"github.com/coloc-dev/coloc/sim"
)

// The makespan guard. The rule minimises the sum of completion times, and
// shortest-first serves the longest job last: a long job on many GPUs can
// then wait while shorter jobs keep taking the GPUs as they free, and end
// long after everything else, setting the makespan. The rule predicts
// every job's completion anyway (the chosen option's end; for a job that
// waits, its predicted start plus its run time), so it can see this:
//
//   - it first plans the waiting jobs in its order (shortest first) and
//     takes the predicted makespan M1 (the latest predicted completion of
//     any job, running or waiting);
//   - when the job with the latest predicted completion waits, it plans
//     again with that job first. That job's GPUs are then held for it:
//     when it waits for GPUs of a type, a job behind it may take GPUs of
//     that type (run there, share there, move there) only if it leaves
//     them by the time it is predicted to start (backfilling that does not
//     delay it). This gives a predicted makespan M2;
//   - it keeps the second plan only when M2 < M1 (the makespan is
//     predicted to end sooner) and M2 + S2 < M1 + S1, S the sum of the
//     costs of the options taken (predicted completion times and
//     partners' delays): the makespan counts as one more completion
//     time, so a plan that shortens it by delaying the other jobs more
//     in sum is not taken. Otherwise the first plan stands.
//
// And no job shares with a running job when that would push the pair's
// later end past the predicted makespan's lower bound, the larger of the
// latest predicted free time of a running job's GPUs and now plus all
// predicted GPU time (running and waiting) over the cluster's GPUs:
// slowing the job that ends last delays the makespan one for one.
//
// Both follow from the predictions the rule already makes; there is no
// constant.

// horizon sets ps.horizon, the lower bound of the makespan above.
func (r *Rule) horizon(ps *planState) {
	v := ps.v
	n := float64(len(ps.freeAt))
	latest, work := v.Now, 0.0
	for _, t := range ps.freeAt {
		latest = max(latest, t)
		work += t - v.Now
	}
	for _, j := range v.Waiting {
		if least := r.leastWork(v, j); !math.IsInf(least, 1) {
			work += least
		}
	}
	ps.horizon = max(latest, v.Now+work/n)
	ps.latest, ps.latest0 = latest, latest
}

// leastWork is the least predicted GPU time of waiting job j over its
// degrees and GPU types (+Inf: none). It depends on the job's work done
// and, for the Attained estimate, the completions seen, so it is
// remembered by job ID with both (Rule.plain: found anew).
func (r *Rule) leastWork(v *sim.View, j *sim.Job) float64 {
	var m *leastAt
	if !r.plain && j.ID >= 0 {
		if j.ID >= len(r.least) {
			r.least = append(r.least, make([]leastAt, j.ID+1-len(r.least))...)
		}
		m = &r.least[j.ID]
		if m.set && m.done == j.Done && m.doneJobs == r.doneJobs {
			return m.v
		}
	}
	least := math.Inf(1)
	for _, d := range r.degreesOf(j) {
		for _, s := range r.shapes(v, j, d).least {
			least = min(least, r.remaining(j, s)/s*float64(d))
		}
	}
	if m != nil {
		*m = leastAt{set: true, done: j.Done, doneJobs: r.doneJobs, v: least}
	}
	return least
}

// leastAt is leastWork's answer v for a job that had done done
// iterations when doneJobs jobs had completed.
type leastAt struct {
	set      bool
	done     float64
	doneJobs int
	v        float64
}

// holdFor records that the first job waits for GPUs of type t (its index
// in Topology.Types) from time start on.
func (ps *planState) holdFor(t int, start float64) {
	if !ps.isHeld[t] || start < ps.held[t] {
		ps.held[t], ps.isHeld[t] = start, true
	}
}

// fitsHold reports whether a use of GPUs of type t ending at end leaves
// them by the time the held-for job starts.
func (ps *planState) fitsHold(t int, end float64) bool {
	return !ps.isHeld[t] || end <= ps.held[t]
}

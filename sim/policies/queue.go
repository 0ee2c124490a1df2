package policies

import (
	"cmp"
	"math"
	"slices"

	"github.com/coloc-dev/coloc/sim"
)

// queue returns the waiting jobs in the order they choose: arrival order,
// or with ShortestFirst the shortest predicted remaining solo time on
// their best GPU type first (arrival order on ties).
//
// With known durations a waiting job's key does not change while it
// waits (its remaining work is its steps less what it has done), so the
// order is kept between calls (queueOrder) rather than sorted anew: the
// jobs that started leave it, the new ones are sorted and merged in. It
// is the order a stable sort of the waiting list by key gives.
func (r *Rule) queue(v *sim.View) []*sim.Job {
	if !r.shortestFirst {
		return v.Waiting
	}
	if r.durations == Known && !r.plain {
		return r.order.update(r, v)
	}
	ks := make([]queued, len(v.Waiting))
	for i, j := range v.Waiting {
		ks[i] = queued{j: j, key: r.queueKey(v, j)}
	}
	slices.SortStableFunc(ks, func(a, b queued) int { return cmp.Compare(a.key, b.key) })
	out := make([]*sim.Job, len(ks))
	for i, k := range ks {
		out[i] = k.j
	}
	return out
}

// queueKey is j's predicted remaining solo time on its best GPU type
// times its GPUs.
func (r *Rule) queueKey(v *sim.View, j *sim.Job) float64 {
	best := math.Inf(1)
	for _, t := range v.Topology.Types() {
		if s := r.soloOn(j, sim.Shape{GPUType: t, GPUs: j.Scale}); s > 0 {
			best = min(best, r.remaining(j, s)/s*float64(j.Scale))
		}
	}
	return best
}

// queueOrder is the waiting queue kept in order between calls: jobs by
// key, then by their place in the waiting list (arrival order).
type queueOrder struct {
	jobs []queued
	in   []bool // by job ID: in jobs
	pos  []int  // by job ID: place in the waiting list of this call
	// waits, by job ID: the last call (numbered by call) whose waiting
	// list held the job.
	waits []uint64
	call  uint64
	fresh []queued
	out   []*sim.Job
}

// queued is a waiting job with its key and the work it had done when the
// key was taken.
type queued struct {
	j    *sim.Job
	key  float64
	done float64
}

// update brings the order up to date with the waiting list of v and
// returns it. The slice is reused by the next call.
func (o *queueOrder) update(r *Rule, v *sim.View) []*sim.Job {
	o.call++
	for i, j := range v.Waiting {
		if j.ID >= len(o.pos) {
			n := j.ID + 1 - len(o.pos)
			o.pos = append(o.pos, make([]int, n)...)
			o.in = append(o.in, make([]bool, n)...)
			o.waits = append(o.waits, make([]uint64, n)...)
		}
		o.pos[j.ID] = i
		o.waits[j.ID] = o.call
	}
	// Drop the jobs that no longer wait (or whose work changed). The
	// waiting list holds every job that waits, the same *Job for an ID.
	kept := o.jobs[:0]
	for _, q := range o.jobs {
		if id := q.j.ID; id < len(o.waits) && o.waits[id] == o.call && q.j.Done == q.done {
			kept = append(kept, q)
		} else {
			o.in[q.j.ID] = false
		}
	}
	clear(o.jobs[len(kept):])
	o.jobs = kept
	o.fresh = o.fresh[:0]
	for _, j := range v.Waiting {
		if !o.in[j.ID] {
			o.fresh = append(o.fresh, queued{j: j, key: r.queueKey(v, j), done: j.Done})
			o.in[j.ID] = true
		}
	}
	slices.SortFunc(o.fresh, o.compare)
	o.jobs = o.merge(o.jobs, o.fresh)
	if len(o.jobs) != len(v.Waiting) || !slices.IsSortedFunc(o.jobs, o.compare) {
		// Not the waiting list in order (the list's order changed between
		// calls): sort it whole.
		for _, q := range o.jobs {
			o.in[q.j.ID] = false
		}
		o.jobs = o.jobs[:0]
		for _, j := range v.Waiting {
			o.jobs = append(o.jobs, queued{j: j, key: r.queueKey(v, j), done: j.Done})
			o.in[j.ID] = true
		}
		slices.SortFunc(o.jobs, o.compare)
	}
	o.out = o.out[:0]
	for _, q := range o.jobs {
		o.out = append(o.out, q.j)
	}
	return o.out
}

// compare orders jobs by key, then by place in the waiting list.
func (o *queueOrder) compare(a, b queued) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	return o.pos[a.j.ID] - o.pos[b.j.ID]
}

// merge returns the sorted a and b merged, reusing a's array.
func (o *queueOrder) merge(a, b []queued) []queued {
	if len(b) == 0 {
		return a
	}
	n := len(a)
	a = append(a, b...)
	// Merge from the back so a's array can hold the result.
	i, k := n-1, len(a)-1
	for j := len(b) - 1; j >= 0; k-- {
		if i >= 0 && o.compare(a[i], b[j]) > 0 {
			a[k] = a[i]
			i--
		} else {
			a[k] = b[j]
			j--
		}
	}
	return a
}

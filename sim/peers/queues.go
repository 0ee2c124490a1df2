package peers

import (
	"cmp"
	"fmt"
	"iter"
	"slices"

	"github.com/coloc-dev/coloc/sim"
)

// waitQueues keeps a ranked policy's waiting jobs from one scheduling
// point to the next, by class (workload and scale), each class in the
// policy's order (key, then arrival, then ID), so that a point costs
// what changed since the last one and the jobs it tries, not a pass over
// every waiting job: behind a backlog that grows with the trace
// (Tiresias's on a loaded cluster) that pass made a policy quadratic in
// jobs.
//
// A waiting job's key is fixed while it waits (it depends on what the
// job has done), so a job is keyed once, when it comes to wait, and keeps
// its place until it starts. Between points the queues learn what
// changed from the running jobs (those that stopped wait again; those
// that started, or started and completed, leave) and from the end of the
// waiting list (jobs admitted since come last in arrival order); a count
// checks that they hold exactly the jobs the simulator lists as waiting.
//
// A job fits the GPUs left exactly when every job of its class does (the
// fit depends on the workload, the scale and the GPUs left), and the GPUs
// left only shrink while a point's jobs are tried, so a class whose first
// job does not fit is passed over whole.
type waitQueues struct {
	classes []*waitClass
	byKey   map[classKey]*waitClass
	entries map[int]*queued // the waiting jobs' entries, by job ID
	running []int           // the IDs running at the last point, ascending
	heads   []classHead
	fresh   []*sim.Job
}

// classKey names a class: the workload and scale its jobs share.
type classKey struct {
	workload string
	scale    int
}

// waitClass holds one class's waiting jobs in order, with the entries of
// jobs that started since left in place until enough gather to compact
// them away.
type waitClass struct {
	q    []*queued
	dead int
	head int // no live entry before it (jobs start mostly from the front)
}

// queued is a waiting job, its key and its class; live turns false when
// it starts.
type queued struct {
	rankedJob
	live bool
	c    *waitClass
}

// classHead is a class and the place of its first job not yet tried.
type classHead struct {
	c  *waitClass
	at int
}

// sync brings the queues up to the point v: jobs that stopped running
// wait again, jobs that started leave, jobs admitted since join, each
// keyed by key as it comes.
func (wq *waitQueues) sync(v *sim.View, key func(*sim.Job) float64) error {
	if wq.entries == nil {
		wq.entries, wq.byKey = map[int]*queued{}, map[classKey]*waitClass{}
	}
	for _, j := range v.Finished {
		wq.started(j.ID)
	}
	// The running jobs then and now, both by ID.
	prev, i := wq.running, 0
	for _, j := range v.Running {
		for ; i < len(prev) && prev[i] < j.ID; i++ {
			wq.stopped(v, prev[i], key)
		}
		if i < len(prev) && prev[i] == j.ID {
			i++
			continue
		}
		wq.started(j.ID)
	}
	for ; i < len(prev); i++ {
		wq.stopped(v, prev[i], key)
	}
	wq.running = wq.running[:0]
	for _, j := range v.Running {
		wq.running = append(wq.running, j.ID)
	}
	// The jobs admitted since the last point come last in arrival order:
	// up to the first job known, from the end.
	fresh := wq.fresh[:0]
	for k := len(v.Waiting) - 1; k >= 0 && wq.entries[v.Waiting[k].ID] == nil; k-- {
		fresh = append(fresh, v.Waiting[k])
	}
	wq.fresh = fresh
	for k := len(fresh) - 1; k >= 0; k-- {
		wq.add(fresh[k], key)
	}
	if len(wq.entries) != len(v.Waiting) {
		return fmt.Errorf("waiting queues: %d jobs kept, the simulator lists %d waiting", len(wq.entries), len(v.Waiting))
	}
	return nil
}

// started takes note that job id no longer waits.
func (wq *waitQueues) started(id int) {
	if e := wq.entries[id]; e != nil {
		e.live = false
		e.c.dead++
		delete(wq.entries, id)
	}
}

// stopped takes note that job id no longer runs: it waits again, unless
// it left the system (it completed).
func (wq *waitQueues) stopped(v *sim.View, id int, key func(*sim.Job) float64) {
	if j := v.Job(id); j != nil && len(j.GPUs) == 0 {
		wq.add(j, key)
	}
}

// add puts a waiting job in its class at its place in order.
func (wq *waitQueues) add(j *sim.Job, key func(*sim.Job) float64) {
	k := classKey{j.Workload, j.Scale}
	c := wq.byKey[k]
	if c == nil {
		c = &waitClass{}
		wq.byKey[k] = c
		wq.classes = append(wq.classes, c)
	}
	if c.dead > len(c.q)/2 {
		c.q = slices.DeleteFunc(c.q, func(e *queued) bool { return !e.live })
		c.dead, c.head = 0, 0
	}
	e := &queued{rankedJob: rankedJob{j, key(j), -1}, live: true, c: c}
	at, _ := slices.BinarySearchFunc(c.q, e, func(x, e *queued) int { return compareRanked(x.rankedJob, e.rankedJob) })
	c.q = slices.Insert(c.q, at, e)
	c.head = min(c.head, at)
	wq.entries[j.ID] = e
}

// next returns the place of the first live job of c from at on.
func (c *waitClass) next(at int) int {
	for at < len(c.q) && !c.q[at].live {
		at++
	}
	return at
}

// jobs yields the waiting jobs in order, leaving out each class from the
// first of its jobs that fits reports cannot run, and ends once full
// reports that no GPU is left: then no job fits, and asking each class
// (on a full cluster behind a backlog, some seventy a point, every one
// refused) is work for nothing.
func (wq *waitQueues) jobs(fits func(*sim.Job) bool, full func() bool) iter.Seq[rankedJob] {
	return func(yield func(rankedJob) bool) {
		h := wq.heads[:0]
		for _, c := range wq.classes {
			c.head = c.next(c.head)
			if c.head < len(c.q) {
				h = append(h, classHead{c, c.head})
			}
		}
		for i := len(h)/2 - 1; i >= 0; i-- {
			downHeads(h, i)
		}
		defer func() { wq.heads = h[:0] }()
		for len(h) > 0 && !full() {
			x := &h[0]
			w := x.c.q[x.at].rankedJob
			if fits(w.j) {
				if !yield(w) {
					return
				}
				x.at = x.c.next(x.at + 1)
				if x.at < len(x.c.q) {
					downHeads(h, 0)
					continue
				}
			}
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
			downHeads(h, 0)
		}
	}
}

// downHeads restores the heap of class heads below i, ordered as their
// jobs are.
func downHeads(h []classHead, i int) {
	less := func(a, b classHead) bool {
		return compareRanked(a.c.q[a.at].rankedJob, b.c.q[b.at].rankedJob) < 0
	}
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && less(h[r], h[l]) {
			m = r
		}
		if !less(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// compareRanked orders jobs by key, then arrival, then ID.
func compareRanked(a, b rankedJob) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := cmp.Compare(a.j.Arrival, b.j.Arrival); c != 0 {
		return c
	}
	return cmp.Compare(a.j.ID, b.j.ID)
}

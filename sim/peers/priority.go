package peers

import (
	"fmt"
	"iter"
	"slices"

	"github.com/coloc-dev/coloc/sim"
)

// ranked is a preemptive priority scheduler, one job per GPU: at every
// scheduling point the jobs in the system, in the order key gives (lower
// first; ties by arrival), take GPUs while any type has room for them,
// each on the fastest type by solo rate with room (a running job keeps its
// type and GPUs while its type has room; one whose type has none moves to
// the fastest with room, as a waiting job starts there); a job that does
// not fit is skipped, so later jobs backfill; running jobs left out stop.
// Tiresias and the foresight reference are instances.
type ranked struct {
	name string
	solo sim.Rates
	// key orders the jobs; attained is the job's attained service in
	// GPU-seconds (GPUs held times time held, as the scheduler counted it).
	key func(v *sim.View, j *sim.Job, attained float64) float64
	// The key of a waiting job must not change while it waits (it
	// depends on what the job has done, not on time): the waiting jobs
	// are kept in order from one point to the next (waitQueues).
	queues waitQueues
	// attained holds each job's attained service by ID (the trace's
	// index, so a slice: a map's lookups, twice per running job at
	// every point, were a sixth of Tiresias's time).
	attained []float64
	last     float64
	buf      []rankedJob
	left     []int
	order    []taken
	kept     []bool
}

// taken is a job given GPUs of a type.
type taken struct {
	j *sim.Job
	t string
}

// rankedJob is a job and its key, and a running job's place in
// View.Running (-1 for a waiting job).
type rankedJob struct {
	j   *sim.Job
	key float64
	run int
}

// Name returns the policy's name.
func (r *ranked) Name() string { return r.name }

// Schedule orders the jobs and places them.
func (r *ranked) Schedule(v *sim.View) (*sim.Plan, error) {
	for _, j := range v.Running {
		if n := j.ID + 1; n > len(r.attained) {
			r.attained = append(r.attained, make([]float64, n-len(r.attained))...)
		}
		r.attained[j.ID] += (v.Now - r.last) * float64(len(j.GPUs))
	}
	r.last = v.Now
	types := v.Topology.Types()
	left := r.left[:0] // GPUs left by type, in the order of types
	for _, t := range types {
		left = append(left, v.Topology.Count(t))
	}
	r.left = left
	if err := r.queues.sync(v, func(j *sim.Job) float64 { return r.key(v, j, r.attainedOf(j.ID)) }); err != nil {
		return nil, fmt.Errorf("policy %s: %w", r.name, err)
	}
	// The jobs taken, in order, with their types; a running job stays
	// where it is when it is taken on the type it runs on (kept, by its
	// place in v.Running, which lists the running jobs by ID).
	order := r.order[:0]
	kept := append(r.kept[:0], make([]bool, len(v.Running))...)
	fits := func(j *sim.Job) bool { return r.fastest(v, j, types, left) >= 0 }
	full := func() bool { return !slices.ContainsFunc(left, func(n int) bool { return n > 0 }) }
	for x := range r.ordered(v, fits, full) {
		j := x.j
		best := -1
		if x.run >= 0 {
			// A running job keeps its type while it has room there.
			if t := slices.Index(types, v.Topology.GPUs[j.GPUs[0]].Type); left[t] >= j.Scale {
				best = t
				kept[x.run] = true
			}
		}
		if best < 0 {
			// Again for a waiting job: the queues checked its class
			// before the running jobs ahead of it took their GPUs.
			best = r.fastest(v, j, types, left)
		}
		if best < 0 {
			continue
		}
		left[best] -= j.Scale
		order = append(order, taken{j, types[best]})
	}
	r.order, r.kept = order, kept
	p := v.Plan()
	for i, j := range v.Running {
		if !kept[i] {
			p.Stop(j.ID)
		}
	}
	for _, x := range order {
		if len(x.j.GPUs) > 0 && v.Topology.GPUs[x.j.GPUs[0]].Type == x.t {
			continue // kept
		}
		if gpus, ok := freeFor(p, v, x.j, x.t); ok {
			p.Place(x.j.ID, gpus...)
		}
	}
	return p, nil
}

// attainedOf returns job id's attained service (0 before it first ran).
func (r *ranked) attainedOf(id int) float64 {
	if id < len(r.attained) {
		return r.attained[id]
	}
	return 0
}

// ordered yields the jobs in the system by key, then arrival, then ID, as
// far as the caller reads: the running jobs keyed and sorted, the waiting
// ones from the queues kept (as far as fits says one can still be taken,
// and none once full says no GPU is left), merged.
func (r *ranked) ordered(v *sim.View, fits func(*sim.Job) bool, full func() bool) iter.Seq[rankedJob] {
	return func(yield func(rankedJob) bool) {
		js := r.buf[:0]
		for i, j := range v.Running {
			js = append(js, rankedJob{j, r.key(v, j, r.attained[j.ID]), i})
		}
		slices.SortStableFunc(js, compareRanked)
		r.buf = js
		run := 0
		for w := range r.queues.jobs(fits, full) {
			for run < len(js) && compareRanked(js[run], w) < 0 {
				if !yield(js[run]) {
					return
				}
				run++
			}
			if !yield(w) {
				return
			}
		}
		for ; run < len(js); run++ {
			if !yield(js[run]) {
				return
			}
		}
	}
}

// fastest returns the place in types of the type of highest solo rate
// among those with room for j (left: GPUs left by type) on which it can
// run; -1 when none has.
func (r *ranked) fastest(v *sim.View, j *sim.Job, types []string, left []int) int {
	best, bestRate := -1, 0.0
	for i, t := range types {
		if left[i] < j.Scale || !placeable(v, j, t) {
			continue
		}
		rate, ok := r.solo.Solo(j.Workload, sim.Shape{GPUType: t, GPUs: j.Scale})
		if ok && rate > bestRate {
			best, bestRate = i, rate
		}
	}
	return best
}

// placeable reports whether job j can run on type t at its scale in the
// simulator: on one node of the type, or spread where that is allowed.
func placeable(v *sim.View, j *sim.Job, t string) bool {
	spread := v.Topology.LargestNode(t) < j.Scale
	return v.CanRun(j.Workload, sim.Shape{GPUType: t, GPUs: j.Scale, Spread: spread})
}

// freeFor returns free GPUs of type t for job j: on one node when one has
// room, else spread over nodes when j may run spread.
func freeFor(p *sim.Plan, v *sim.View, j *sim.Job, t string) ([]int, bool) {
	if g, ok := sim.FreeOnNode(p, t, j.Scale); ok && v.CanRun(j.Workload, sim.Shape{GPUType: t, GPUs: j.Scale}) {
		return g, true
	}
	if j.Scale < 2 {
		return nil, false
	}
	g, ok := sim.FreeSpread(p, t, j.Scale)
	if !ok {
		return nil, false
	}
	sh, err := v.Topology.ShapeOf(g)
	if err != nil || !v.CanRun(j.Workload, sh) {
		return nil, false
	}
	return g, true
}

// Tiresias's defaults (its simulator, dlas-gpu): two queues split at one
// GPU-hour of attained service.
const TiresiasThreshold = 3600

// NewTiresias returns Tiresias's discretized two-dimensional LAS
// (Gu et al., NSDI 2019; its simulator's dlas-gpu schedule): a job's
// attained service is its GPUs times the time it ran; jobs below
// TiresiasThreshold GPU-seconds are in the first queue, the others in the
// second; the first queue goes first, each queue in arrival order;
// preemptive, no durations. Tiresias does not know GPU types; here each
// job takes the fastest type with room by its measured solo rate, which
// only makes the peer stronger. Its starvation guard (promotion after
// waiting too long) is off, as in its simulator's default.
func NewTiresias(solo sim.Rates) sim.Policy {
	return &ranked{name: "tiresias", solo: solo, key: func(_ *sim.View, _ *sim.Job, attained float64) float64 {
		if attained < TiresiasThreshold {
			return 0
		}
		return 1
	}}
}

// NewSRTFKnown returns the foresight reference: preemptive shortest
// remaining time first, with the true remaining work (a scheduler cannot
// know it), a job's remaining time counted on its fastest GPU type at its
// scale. It is a reference for what knowing durations is worth, not a
// peer.
func NewSRTFKnown(solo sim.Rates) sim.Policy {
	return &ranked{name: "srtf-known", solo: solo, key: func(v *sim.View, j *sim.Job, _ float64) float64 {
		best := 0.0
		for _, t := range v.Topology.Types() {
			if r, ok := solo.Solo(j.Workload, sim.Shape{GPUType: t, GPUs: j.Scale}); ok {
				best = max(best, r)
			}
		}
		if best == 0 {
			return 1e300
		}
		return (float64(j.Steps) - j.Done) / best
	}}
}

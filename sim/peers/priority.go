package peers

import (
	"cmp"
	"iter"
	"slices"

	"github.com/coloc-dev/coloc/sim"
)

// ranked is a preemptive priority scheduler, one job per GPU: at every
// scheduling point the jobs in the system, in the order key gives (lower
// first; ties by arrival), take GPUs while any type has room for them,
// each on the fastest type by solo rate with room (a running job keeps its
// type and GPUs when they are still its best with room); a job that does
// not fit is skipped, so later jobs backfill; running jobs left out stop.
// Tiresias and the foresight reference are instances.
type ranked struct {
	name string
	solo sim.Rates
	// key orders the jobs; attained is the job's attained service in
	// GPU-seconds (GPUs held times time held, as the scheduler counted it).
	key func(v *sim.View, j *sim.Job, attained float64) float64
	// levels, when set, are every value key takes, ascending: the waiting
	// jobs (which the simulator lists by arrival, then ID) are then taken
	// level by level in that order, as far as any job can still fit,
	// instead of all of them sorted at every scheduling point.
	levels []float64
	// waitFixed, when set, says that a waiting job's key does not change
	// while it waits (it depends on what the job has done, not on time):
	// the waiting jobs' order is then kept from one scheduling point to
	// the next, the jobs that came to wait keyed and merged into it.
	waitFixed bool
	waits     []waitKeyed // the waiting jobs in order at the last point
	waitsAlt  []waitKeyed // the buffer the next order is built in
	waitOf    map[int]*waitEntry
	calls     int // scheduling points so far
	fresh     []waitKeyed
	attained  map[int]float64
	last      float64
	buf       []rankedJob
	scales    []int
	order     []taken
	kept      []bool
}

// waitEntry is what a waitFixed policy keeps of a waiting job: its key,
// the work it had done when keyed, and the last scheduling point that
// saw it waiting.
type waitEntry struct {
	key, done   float64
	seen, keyed int // the last point that saw it waiting, and that keyed it
}

// waitKeyed is a waiting job in a waitFixed policy's order.
type waitKeyed struct {
	rankedJob
	e *waitEntry
}

// taken is a job given GPUs of a type.
type taken struct {
	j *sim.Job
	t string
}

// rankedJob is a job and its key.
type rankedJob struct {
	j   *sim.Job
	key float64
}

func compareRanked(a, b rankedJob) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := cmp.Compare(a.j.Arrival, b.j.Arrival); c != 0 {
		return c
	}
	return cmp.Compare(a.j.ID, b.j.ID)
}

// Name returns the policy's name.
func (r *ranked) Name() string { return r.name }

// Schedule orders the jobs and places them.
func (r *ranked) Schedule(v *sim.View) (*sim.Plan, error) {
	if r.attained == nil {
		r.attained = map[int]float64{}
	}
	for _, j := range v.Running {
		r.attained[j.ID] += (v.Now - r.last) * float64(len(j.GPUs))
	}
	r.last = v.Now
	types := v.Topology.Types()
	left := make(map[string]int, len(types))
	room := 0 // the most GPUs left of one type
	for _, t := range types {
		left[t] = v.Topology.Count(t)
		room = max(room, left[t])
	}
	// The jobs not yet taken, by scale: once none fits the most GPUs left
	// of a type, every later one would be skipped.
	var byScale []int // by scale, up to the most GPUs of a type
	if r.levels != nil || r.waitFixed {
		byScale = r.scales[:0]
		for range room + 1 {
			byScale = append(byScale, 0)
		}
		r.scales = byScale
		for _, set := range [][]*sim.Job{v.Running, v.Waiting} {
			for _, j := range set {
				if j.Scale < len(byScale) {
					byScale[j.Scale]++
				}
			}
		}
	}
	fits := func() bool {
		for s := range min(room+1, len(byScale)) {
			if byScale[s] > 0 {
				return true
			}
		}
		return false
	}
	// The jobs taken, in order, with their types; a running job stays
	// where it is when it is taken on the type it runs on (kept, by its
	// place in v.Running, which lists the running jobs by ID).
	order := r.order[:0]
	kept := append(r.kept[:0], make([]bool, len(v.Running))...)
	for x := range r.ordered(v) {
		j := x.j
		if byScale != nil {
			if !fits() {
				break
			}
			if j.Scale < len(byScale) {
				byScale[j.Scale]--
			}
		}
		best, bestRate := "", 0.0
		if len(j.GPUs) > 0 {
			// A running job keeps its type while it has room there.
			if t := v.Topology.GPUs[j.GPUs[0]].Type; left[t] >= j.Scale {
				best, bestRate = t, 1
			}
		}
		for _, t := range types {
			if bestRate > 0 && len(j.GPUs) > 0 {
				break
			}
			if left[t] < j.Scale || !placeable(v, j, t) {
				continue
			}
			rate, ok := r.solo.Solo(j.Workload, sim.Shape{GPUType: t, GPUs: j.Scale})
			if ok && rate > bestRate {
				best, bestRate = t, rate
			}
		}
		if best == "" {
			continue
		}
		left[best] -= j.Scale
		if left[best]+j.Scale == room {
			room = 0
			for _, n := range left {
				room = max(room, n)
			}
		}
		order = append(order, taken{j, best})
		if len(j.GPUs) > 0 && v.Topology.GPUs[j.GPUs[0]].Type == best {
			if i, ok := slices.BinarySearchFunc(v.Running, j.ID, func(x *sim.Job, id int) int { return cmp.Compare(x.ID, id) }); ok {
				kept[i] = true
			}
		}
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
	for _, j := range v.Finished {
		delete(r.attained, j.ID)
	}
	return p, nil
}

// ordered yields the jobs in the system by key, then arrival, then ID, as
// far as the caller reads. Without levels or waitFixed every job is keyed
// and sorted; with either only the running jobs are, and the waiting ones
// (waiting) are merged in.
func (r *ranked) ordered(v *sim.View) iter.Seq[rankedJob] {
	return func(yield func(rankedJob) bool) {
		js := r.buf[:0]
		set := v.Running
		if r.levels == nil && !r.waitFixed {
			set = append(slices.Clip(v.Running), v.Waiting...)
		}
		for _, j := range set {
			js = append(js, rankedJob{j, r.key(v, j, r.attained[j.ID])})
		}
		slices.SortStableFunc(js, compareRanked)
		r.buf = js
		// The waiting jobs in order (none apart when js holds them),
		// each preceded by the running jobs that come before it.
		run := 0
		for w := range r.waiting(v) {
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

// waiting yields the waiting jobs in order apart from the running ones:
// with waitFixed the order kept from the last point (waitOrder); with
// levels level by level in the simulator's order; otherwise none (ordered
// sorts them with the running jobs).
func (r *ranked) waiting(v *sim.View) iter.Seq[rankedJob] {
	return func(yield func(rankedJob) bool) {
		switch {
		case r.waitFixed:
			for _, w := range r.waitOrder(v) {
				if !yield(w.rankedJob) {
					return
				}
			}
		case r.levels != nil:
			for _, level := range r.levels {
				for _, j := range v.Waiting {
					if w := (rankedJob{j, r.key(v, j, r.attained[j.ID])}); w.key == level && !yield(w) {
						return
					}
				}
			}
		}
	}
}

// waitOrder returns the waiting jobs by key, then arrival, then ID: the
// last scheduling point's order less the jobs that no longer wait (or
// ran since, and so may have a new key), merged with the jobs that came
// to wait, keyed and sorted.
func (r *ranked) waitOrder(v *sim.View) []waitKeyed {
	if r.waitOf == nil {
		r.waitOf = map[int]*waitEntry{}
	}
	r.calls++
	fresh := r.fresh[:0]
	for _, j := range v.Waiting {
		e := r.waitOf[j.ID]
		if e != nil && e.seen == r.calls-1 && e.done == j.Done {
			e.seen = r.calls // in the last order, with the same key
			continue
		}
		if e == nil {
			e = &waitEntry{}
			r.waitOf[j.ID] = e
		}
		*e = waitEntry{key: r.key(v, j, r.attained[j.ID]), done: j.Done, seen: r.calls, keyed: r.calls}
		fresh = append(fresh, waitKeyed{rankedJob{j, e.key}, e})
	}
	slices.SortFunc(fresh, func(a, b waitKeyed) int { return compareRanked(a.rankedJob, b.rankedJob) })
	r.fresh = fresh
	// The last order, kept where its jobs still wait unchanged (fresh
	// entries were rekeyed this call: their old places go), merged with
	// the fresh ones.
	out := r.waitsAlt[:0]
	f := 0
	for _, w := range r.waits {
		if w.e.seen != r.calls {
			delete(r.waitOf, w.j.ID) // it no longer waits
			continue
		}
		if w.e.keyed == r.calls {
			continue // rekeyed this call: it is among the fresh
		}
		for f < len(fresh) && compareRanked(fresh[f].rankedJob, w.rankedJob) < 0 {
			out = append(out, fresh[f])
			f++
		}
		out = append(out, w)
	}
	out = append(out, fresh[f:]...)
	r.waits, r.waitsAlt = out, r.waits
	return out
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
	return &ranked{name: "tiresias", solo: solo, levels: []float64{0, 1}, key: func(_ *sim.View, _ *sim.Job, attained float64) float64 {
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
	return &ranked{name: "srtf-known", solo: solo, waitFixed: true, key: func(v *sim.View, j *sim.Job, _ float64) float64 {
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

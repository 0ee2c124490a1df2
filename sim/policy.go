package sim

import (
	"slices"
)

// Policy decides where jobs run. The simulator calls Schedule after every
// batch of events (arrivals, completions, round ticks) that leaves jobs in
// the system. A nil plan changes nothing. An error stops the simulation.
//
// A policy sees only what a scheduler may see: the job descriptors and
// their progress, the cluster and its occupancy (View), the placement
// rules of View.CanRun and View.CanShare, and the estimator it was built
// with. It never sees the simulator's ground-truth rates unless it was
// given them (the oracle).
type Policy interface {
	Name() string
	Schedule(v *View) (*Plan, error)
}

// A warner is a Policy with something to say about a run that its results
// cannot show, such as jobs it had no information to decide on. Run adds
// what Warnings returns after the run to Result.Warnings; each message
// names the policy.
type warner interface {
	Warnings() []string
}

// Events says what happened since the policy was last called; more than
// one bit may be set.
type Events uint8

// Event kinds.
const (
	Arrived  Events = 1 << iota // one or more jobs arrived
	Finished                    // one or more jobs completed
	Round                       // a round boundary was reached
	// Idle: with Options.Schedule rounds, the cluster holds no job, jobs
	// wait and none is left to arrive; the policy is asked once more at
	// the same instant (Gavel's simulator recomputes its allocation then)
	// before the run is declared stalled.
	Idle
)

// Job is a job as a policy sees it. The simulator owns it: a policy reads
// it and never changes it.
type Job struct {
	ID       int // index of the job in the trace
	Workload string
	Scale    int // GPUs it runs on when a policy does not choose (see Degrees)
	// Request is the trace's scale factor. Degrees are the numbers of GPUs
	// it may run on, ascending: {Request} in trace mode; in policy mode
	// every degree with a measured rate up to Request (or
	// Options.MaxDegree), and Scale is the largest of them, the degree
	// the baselines use (the request, capped at the largest measured).
	Request int
	Degrees []int
	Steps   int64
	Arrival float64
	Done    float64 // iterations done so far
	GPUs    []int   // where it runs now (sorted), nil while it waits
	Starts  int     // times it was started; a start after the first pays the restart penalty
}

// View is what a policy sees at a scheduling point. It is valid only
// during the call to Schedule.
type View struct {
	Now      float64 // seconds since the start of the trace
	Events   Events
	Topology *Topology
	// Waiting are the jobs that arrived and are not running, in arrival
	// order; Running the running jobs, by ID.
	Waiting []*Job
	Running []*Job
	// Finished are the jobs that completed since the policy was last
	// asked, by completion time (Done equals Steps): what a scheduler
	// learns of a job's size when it ends.
	Finished []*Job
	sim      *simulation
}

// EmptyView is the view of topo with no job in it, at time 0, on truth
// under opt: its rate questions (CanRun, CanShare, Assumed, MaxPerGPU,
// RestartPenalty, Round) answer as a replay's would. It serves a caller
// that decides as a replay's first scheduling point would without
// replaying (with PolicyAdmission); having no jobs, it plans nothing.
func EmptyView(topo *Topology, truth Rates, opt Options) (*View, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	return &View{Topology: topo, sim: newSimulation(topo, nil, truth, nil, opt)}, nil
}

// Job returns the job with the given ID (nil when it is not in the system).
func (v *View) Job(id int) *Job { return v.sim.lookup(id) }

// JobsOn returns the IDs of the jobs on a GPU now. The slice belongs to
// the simulator.
func (v *View) JobsOn(gpu int) []int { return v.sim.on[gpu] }

// MaxPerGPU is the most jobs one GPU may hold.
func (v *View) MaxPerGPU() int { return v.sim.opt.MaxPerGPU }

// CanRun reports whether the workload can run on a placement of shape s:
// the data hold a rate for it. Like a job's memory footprint, this is
// known to a scheduler from profiling.
func (v *View) CanRun(workload string, s Shape) bool {
	if ok, known := v.sim.canRunNamed(workload, s); known {
		return ok
	}
	r, ok := v.sim.truth.Solo(workload, s)
	return ok && r > 0
}

// CanShare reports whether two workloads may share the GPUs of a placement
// of shape s: both orders of the pair were measured with status ok. It
// says nothing about how fast they run together.
func (v *View) CanShare(a, b string, s Shape) bool {
	ra, oka := v.sim.truth.Colocated(a, b, s)
	rb, okb := v.sim.truth.Colocated(b, a, s)
	return oka && okb && ra > 0 && rb > 0
}

// Plan starts a plan from the current placement. A plan is valid only
// during the call to Schedule that made it (as the view).
func (v *View) Plan() *Plan {
	s := v.sim
	if s.nbuf == len(s.bufs) {
		s.bufs = append(s.bufs, &planBuf{on: make([][]int, len(s.on)), stamp: make([]uint64, len(s.on))})
	}
	b := s.bufs[s.nbuf]
	s.nbuf++
	s.epoch++
	p := &Plan{view: v, buf: b, epoch: s.epoch, base: s.on, moved: map[int][]int{}, free: slices.Clone(s.freeOf), avail: slices.Clone(s.avail), lone: s.lone}
	if c := s.carry; c != nil {
		// What the last committed plan learned still holds: no job has
		// finished since. Its classes are tried again (generation -1 is
		// no generation of this plan) against the jobs it placed on free
		// GPUs since they found no room.
		p.miss = make([][]missAt, len(c.miss))
		for w, ms := range c.miss {
			p.miss[w] = slices.Clone(ms)
		}
		p.onFree = slices.Clone(c.onFree)
	}
	return p
}

// missCarry is the miss table (generation -1, freed 0) and the jobs placed
// on free GPUs of the last committed plan, kept while only arrivals
// happen: they change no placement.
type missCarry struct {
	miss   [][]missAt
	onFree []int
}

// carryFrom keeps what committed plan p learned for the next plans.
func (s *simulation) carryFrom(p *Plan) {
	c := &missCarry{miss: make([][]missAt, len(p.miss))}
	kept := false
	for w, ms := range p.miss {
		for _, m := range ms {
			if m.freed == p.freed {
				c.miss[w] = append(c.miss[w], missAt{m.scale, -1, m.free, 0})
				kept = true
			}
		}
	}
	if !kept {
		// Nothing learned: a policy that never records misses (or stops
		// jobs) carries nothing, and its list of jobs placed on free
		// GPUs does not grow from plan to plan.
		s.carry = nil
		return
	}
	c.onFree = slices.Clone(p.onFree)
	s.carry = c
}

// planBuf holds the GPUs a plan changed: the occupancy of GPU g is
// on[g] when stamp[g] is the plan's epoch, else the simulator's. The
// simulator reuses the buffers of the plans of one Schedule call in the
// next, so a plan costs the GPUs it changes, not the cluster's size.
type planBuf struct {
	on    [][]int
	stamp []uint64
}

// Plan is a set of changes to the placement: jobs started, moved or
// stopped. Jobs it does not name keep their GPUs. It keeps its own copy of
// the occupancy, so a policy can place several jobs in one call and see
// the effect of earlier ones. The simulator checks the plan when it is
// applied; the plan itself only keeps the books.
type Plan struct {
	view  *View
	buf   *planBuf
	epoch uint64
	base  [][]int       // the simulator's occupancy
	moved map[int][]int // job -> GPUs (nil: stopped)
	order []int         // jobs in the order they were first named
	free  []int         // free GPUs by type index
	avail []int         // free GPUs by node index
	lone  int           // GPUs holding exactly one job
	gen   int           // changes made so far
	miss  [][]missAt    // by workload index
	// missN classes of waiting jobs missed at generation missGen.
	missN, missGen int
	// loneMemo remembers Lone by size; touched and touchedJobs log the
	// GPUs and jobs the plan's changes touched, to revise it.
	loneMemo    map[int]loneAt
	touched     []int
	touchedJobs []int
	// onFree are the jobs placed on GPUs that were all free, in order;
	// freed counts the changes that took a job off GPUs (Stop, or Place
	// of a job that had GPUs).
	onFree []int
	freed  int
}

// missAt records that a job of some size found no room at generation gen,
// when onFree had free entries and freed was freed.
type missAt struct{ scale, gen, free, freed int }

// missed reports whether a job of the same workload and size as j found
// no room in this plan since its last change: it would find none either.
func (p *Plan) missed(j *Job) bool {
	w := p.view.sim.rules.wid[j.ID]
	if int(w) >= len(p.miss) {
		return false
	}
	for _, m := range p.miss[w] {
		if m.scale == j.Scale {
			return m.gen == p.gen
		}
	}
	return false
}

// Miss records that j found no room in the plan as it is now.
func (p *Plan) Miss(j *Job) {
	w := int(p.view.sim.rules.wid[j.ID])
	for len(p.miss) <= w {
		p.miss = append(p.miss, nil)
	}
	for i, m := range p.miss[w] {
		if m.scale == j.Scale {
			if m.gen != p.gen {
				p.missedClass(j)
			}
			p.miss[w][i] = missAt{j.Scale, p.gen, len(p.onFree), p.freed}
			return
		}
	}
	p.miss[w] = append(p.miss[w], missAt{j.Scale, p.gen, len(p.onFree), p.freed})
	p.missedClass(j)
}

// PlacedOnFreeSince reports, when a job of j's workload and size found no
// room in this plan and no job has left GPUs since (Stop, or Place of a
// job that had GPUs), the jobs placed on free GPUs since then; ok is
// false otherwise. Changes since then only took free GPUs, made jobs
// share, or started the returned jobs, each alone on its GPUs: a policy
// that takes free GPUs or shares with a job running alone finds no room
// for j either, unless one of those jobs is a partner for it.
func (p *Plan) PlacedOnFreeSince(j *Job) (ids []int, ok bool) {
	w := p.view.sim.rules.wid[j.ID]
	if int(w) >= len(p.miss) {
		return nil, false
	}
	for _, m := range p.miss[w] {
		if m.scale == j.Scale {
			if m.freed != p.freed {
				return nil, false
			}
			return p.onFree[m.free:], true
		}
	}
	return nil, false
}

// missedClass counts j's class as missed at the current generation when
// jobs of it wait.
func (p *Plan) missedClass(j *Job) {
	s := p.view.sim
	if s.classWaiting(j) == 0 {
		return
	}
	if p.missGen != p.gen {
		p.missN, p.missGen = 0, p.gen
	}
	p.missN++
}

// AllMissed reports whether every waiting job's workload and size found
// no room since the plan's last change (Missed would hold for each): a
// policy that tries the waiting jobs in turn can stop.
func (p *Plan) AllMissed() bool {
	return p.missGen == p.gen && p.missN >= p.view.sim.nClasses
}

// jobsOn returns the jobs the plan puts on GPU g.
func (p *Plan) jobsOn(g int) []int {
	if p.buf != nil && p.buf.stamp[g] == p.epoch {
		return p.buf.on[g]
	}
	return p.base[g]
}

// own returns the plan's own copy of GPU g's jobs, to change.
func (p *Plan) own(g int) *[]int {
	b := p.buf
	if b.stamp[g] != p.epoch {
		b.on[g] = append(b.on[g][:0], p.base[g]...)
		b.stamp[g] = p.epoch
	}
	return &b.on[g]
}

// count adds sign times GPU g's contribution to the free and lone counts.
func (p *Plan) count(g, sign int) {
	switch len(p.jobsOn(g)) {
	case 0:
		p.free[p.view.sim.typeOf[g]] += sign
		p.avail[p.view.Topology.GPUs[g].Node] += sign
	case 1:
		p.lone += sign
	}
}

// Room reports whether the plan leaves any GPU free, or any GPU holding a
// single job while two may share: when it does not, no waiting job fits.
func (p *Plan) Room() bool {
	if p.lone > 0 && p.view.MaxPerGPU() >= 2 {
		return true
	}
	for _, n := range p.free {
		if n > 0 {
			return true
		}
	}
	return false
}

// FreeOf returns the number of GPUs of type gpuType the plan leaves free.
func (p *Plan) FreeOf(gpuType string) int {
	if i := slices.Index(p.view.Topology.Types(), gpuType); i >= 0 {
		return p.free[i]
	}
	return 0
}

// Place puts job id on gpus (replacing wherever the plan had it). The
// GPUs are kept sorted.
func (p *Plan) Place(id int, gpus ...int) {
	p.gen++
	if len(p.GPUsOf(id)) > 0 {
		p.freed++
	}
	p.touch(id, p.GPUsOf(id))
	p.remove(id)
	gs := slices.Clone(gpus)
	slices.Sort(gs)
	p.touch(-1, gs)
	p.note(id, gs)
	onFree := len(gs) > 0
	for _, g := range gs {
		if g < 0 || g >= len(p.base) || !p.isFree(g) {
			onFree = false
		}
	}
	if onFree {
		p.onFree = append(p.onFree, id)
	}
	for _, g := range gs {
		if g >= 0 && g < len(p.base) {
			p.count(g, -1)
			on := p.own(g)
			*on = append(*on, id)
			p.count(g, 1)
		}
	}
}

// Stop takes job id off its GPUs; it waits until placed again.
func (p *Plan) Stop(id int) {
	p.gen++
	p.freed++
	p.touch(id, p.GPUsOf(id))
	p.remove(id)
	p.note(id, nil)
}

// touch logs that a change moved job id (none when negative) and changed
// the occupancy of gpus, for loneOf to revise its answers.
func (p *Plan) touch(id int, gpus []int) {
	if id >= 0 {
		p.touchedJobs = append(p.touchedJobs, id)
	}
	for _, g := range gpus {
		if g >= 0 && g < len(p.base) {
			p.touched = append(p.touched, g)
		}
	}
}

func (p *Plan) note(id int, gpus []int) {
	if _, seen := p.moved[id]; !seen {
		p.order = append(p.order, id)
	}
	p.moved[id] = gpus
}

func (p *Plan) remove(id int) {
	for _, g := range p.GPUsOf(id) {
		if g >= 0 && g < len(p.base) {
			p.count(g, -1)
			on := p.own(g)
			*on = slices.DeleteFunc(*on, func(j int) bool { return j == id })
			p.count(g, 1)
		}
	}
}

// GPUsOf returns where the plan puts job id (nil: waiting).
func (p *Plan) GPUsOf(id int) []int {
	if gs, ok := p.moved[id]; ok {
		return gs
	}
	if j := p.view.Job(id); j != nil {
		return j.GPUs
	}
	return nil
}

// JobsOn returns the IDs of the jobs the plan puts on a GPU.
func (p *Plan) JobsOn(gpu int) []int { return p.jobsOn(gpu) }

// isFree reports whether the plan leaves a GPU empty.
func (p *Plan) isFree(gpu int) bool { return len(p.jobsOn(gpu)) == 0 }

// empty reports whether the plan changes nothing.
func (p *Plan) empty() bool { return len(p.order) == 0 }

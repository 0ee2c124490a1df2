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

// Events says what happened since the policy was last called; more than
// one bit may be set.
type Events uint8

// Event kinds.
const (
	Arrived  Events = 1 << iota // one or more jobs arrived
	Finished                    // one or more jobs completed
	Round                       // a round boundary was reached
)

// Job is a job as a policy sees it. The simulator owns it: a policy reads
// it and never changes it.
type Job struct {
	ID       int // index of the job in the trace
	Workload string
	Scale    int // GPUs it needs
	Steps    int64
	Arrival  float64
	Done     float64 // iterations done so far
	GPUs     []int   // where it runs now (sorted), nil while it waits
	Starts   int     // times it was started; a start after the first pays the restart penalty
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
	sim     *simulation
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
	_, ok := v.sim.truth.Solo(workload, s)
	return ok
}

// CanShare reports whether two workloads may share the GPUs of a placement
// of shape s: both orders of the pair were measured with status ok. It
// says nothing about how fast they run together.
func (v *View) CanShare(a, b string, s Shape) bool {
	_, ok1 := v.sim.truth.Colocated(a, b, s)
	_, ok2 := v.sim.truth.Colocated(b, a, s)
	return ok1 && ok2
}

// Plan starts a plan from the current placement.
func (v *View) Plan() *Plan {
	p := &Plan{view: v, on: make([][]int, len(v.sim.on)), moved: map[int][]int{}}
	for g, js := range v.sim.on {
		if len(js) > 0 {
			p.on[g] = slices.Clone(js)
		}
	}
	return p
}

// Plan is a set of changes to the placement: jobs started, moved or
// stopped. Jobs it does not name keep their GPUs. It keeps its own copy of
// the occupancy, so a policy can place several jobs in one call and see
// the effect of earlier ones. The simulator checks the plan when it is
// applied; the plan itself only keeps the books.
type Plan struct {
	view  *View
	on    [][]int
	moved map[int][]int // job -> GPUs (nil: stopped)
	order []int         // jobs in the order they were first named
}

// Place puts job id on gpus (replacing wherever the plan had it). The
// GPUs are kept sorted.
func (p *Plan) Place(id int, gpus ...int) {
	p.remove(id)
	gs := slices.Clone(gpus)
	slices.Sort(gs)
	p.note(id, gs)
	for _, g := range gs {
		if g >= 0 && g < len(p.on) {
			p.on[g] = append(p.on[g], id)
		}
	}
}

// Stop takes job id off its GPUs; it waits until placed again.
func (p *Plan) Stop(id int) {
	p.remove(id)
	p.note(id, nil)
}

func (p *Plan) note(id int, gpus []int) {
	if _, seen := p.moved[id]; !seen {
		p.order = append(p.order, id)
	}
	p.moved[id] = gpus
}

func (p *Plan) remove(id int) {
	for _, g := range p.GPUsOf(id) {
		if g >= 0 && g < len(p.on) {
			p.on[g] = slices.DeleteFunc(p.on[g], func(j int) bool { return j == id })
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
func (p *Plan) JobsOn(gpu int) []int { return p.on[gpu] }

// Free reports whether the plan leaves a GPU empty.
func (p *Plan) Free(gpu int) bool { return len(p.on[gpu]) == 0 }

// Placed reports whether the plan runs job id.
func (p *Plan) Placed(id int) bool { return len(p.GPUsOf(id)) > 0 }

// View returns the view the plan was made from.
func (p *Plan) View() *View { return p.view }

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.order) == 0 }

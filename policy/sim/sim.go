package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Options control a simulation.
type Options struct {
	// Round is the time between round events, in seconds, at which
	// round-based policies may revise their decisions; 0 turns rounds off.
	Round float64
	// RestartPenalty is the time, in seconds, a job makes no progress after
	// each start but its first (a move or a resume after a stop): the cost
	// of checkpoint, restore and warm-up. It holds its GPUs meanwhile.
	RestartPenalty float64
	// MaxPerGPU is the most jobs one GPU holds: 1 or 2 (the data measure
	// pairs, nothing larger).
	MaxPerGPU int
	// MaxEvents bounds the scheduling points of one run, a guard against a
	// policy that keeps moving jobs so that none finishes.
	MaxEvents int
	// Timeline records a Sample at every scheduling point.
	Timeline bool
}

// DefaultOptions are Gavel's round length (360 s), a 30 s restart penalty
// (our choice: the order of a checkpoint restore and warm-up of the
// measured workloads), two jobs per GPU.
var DefaultOptions = Options{Round: 360, RestartPenalty: 30, MaxPerGPU: 2, MaxEvents: 10_000_000}

func (o Options) validate() error {
	switch {
	case o.Round < 0 || math.IsNaN(o.Round) || math.IsInf(o.Round, 0):
		return fmt.Errorf("round %v s: want a finite length >= 0 (0: no rounds)", o.Round)
	case o.RestartPenalty < 0 || math.IsNaN(o.RestartPenalty) || math.IsInf(o.RestartPenalty, 0):
		return fmt.Errorf("restart penalty %v s: want a finite time >= 0", o.RestartPenalty)
	case o.MaxPerGPU != 1 && o.MaxPerGPU != 2:
		return fmt.Errorf("max jobs per GPU %d: want 1 or 2 (the data measure pairs only)", o.MaxPerGPU)
	case o.MaxEvents < 1:
		return fmt.Errorf("max events %d: want >= 1", o.MaxEvents)
	}
	return nil
}

// PlacementError is a plan the simulator refused: a policy bug.
type PlacementError struct {
	Policy   string
	Time     float64
	Job      int
	Workload string
	Msg      string
}

func (e *PlacementError) Error() string {
	return fmt.Sprintf("policy %s at t=%g s: job %d (%s): %s", e.Policy, e.Time, e.Job, e.Workload, e.Msg)
}

// ErrStalled is wrapped by the error of a run in which jobs wait on an idle
// cluster with nothing left to happen.
var ErrStalled = errors.New("stalled")

type jobStatus uint8

const (
	notArrived jobStatus = iota
	waiting
	running
	done
	unrunnable
)

// jobState is the simulator's side of a job.
type jobState struct {
	status   jobStatus
	shape    Shape
	partner  int // -1: alone
	rate     float64
	restore  float64 // no progress before this time
	eta      float64
	start    float64
	finish   float64
	restarts int
	shared   float64
	reason   string
}

type simulation struct {
	topo    *Topology
	truth   Rates
	pol     Policy
	opt     Options
	jobs    []*Job
	st      []jobState
	on      [][]int
	active  []int // waiting or running job IDs, in arrival order
	waiting []*Job
	running []*Job
	now     float64
	typeOf  []int // GPU -> index into topo.Types()
	busy    []float64
	res     *Result
	rules   rules
}

// Run replays jobs on the cluster under policy p, with truth as the rates
// jobs actually progress at, and returns the metrics. Jobs no GPU type of
// the cluster can run are reported in the result, not simulated. The run
// is deterministic: the same inputs (and a policy built with the same
// seed) give the same result.
func Run(topo *Topology, jobs []TraceJob, truth Rates, p Policy, opt Options) (*Result, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	s := newSimulation(topo, jobs, truth, p, opt)
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return jobs[order[a]].Arrival < jobs[order[b]].Arrival })
	s.warnTypes()
	if err := s.loop(jobs, order); err != nil {
		return nil, err
	}
	s.finishResult(jobs)
	return s.res, nil
}

func newSimulation(topo *Topology, jobs []TraceJob, truth Rates, p Policy, opt Options) *simulation {
	s := &simulation{topo: topo, truth: truth, pol: p, opt: opt, on: make([][]int, len(topo.GPUs))}
	name := ""
	if p != nil {
		name = p.Name()
	}
	s.res = &Result{Policy: name, Jobs: make([]JobResult, len(jobs))}
	s.jobs = make([]*Job, len(jobs))
	s.st = make([]jobState, len(jobs))
	for i, tj := range jobs {
		s.jobs[i] = &Job{ID: i, Workload: tj.Workload, Scale: tj.Scale, Steps: tj.Steps, Arrival: tj.Arrival}
		s.st[i] = jobState{partner: -1, start: math.NaN(), finish: math.NaN()}
	}
	s.rules = newRules(s.jobs)
	types := topo.Types()
	s.busy = make([]float64, len(types))
	s.typeOf = make([]int, len(topo.GPUs))
	for i, g := range topo.GPUs {
		s.typeOf[i] = slices.Index(types, g.Type)
	}
	return s
}

func (s *simulation) loop(jobs []TraceJob, order []int) error {
	next := 0
	if len(order) > 0 {
		s.now = jobs[order[0]].Arrival
	}
	var ev Events
	for events := 0; ; events++ {
		if events >= s.opt.MaxEvents {
			return fmt.Errorf("policy %s: more than %d scheduling points at t=%g s; is it moving jobs forever?", s.pol.Name(), s.opt.MaxEvents, s.now)
		}
		changed := false
		for next < len(order) && jobs[order[next]].Arrival <= s.now {
			if s.admit(order[next]) {
				ev |= Arrived
				changed = true
			}
			next++
		}
		if changed {
			s.rebuild()
		}
		if ev != 0 && len(s.active) > 0 {
			if err := s.schedule(ev); err != nil {
				return err
			}
		}
		if s.opt.Timeline {
			s.res.Timeline = append(s.res.Timeline, s.sample())
		}
		if len(s.running) == 0 && len(s.waiting) > 0 && next == len(order) && (s.opt.Round == 0 || ev&Round != 0) {
			return fmt.Errorf("policy %s at t=%g s: %w: %d job(s) wait (first: job %d, %s) on an idle cluster and no job is left to arrive",
				s.pol.Name(), s.now, ErrStalled, len(s.waiting), s.waiting[0].ID, s.waiting[0].Workload)
		}
		ev = 0
		t := math.Inf(1)
		if next < len(order) {
			t = jobs[order[next]].Arrival
		}
		for _, j := range s.running {
			t = math.Min(t, s.st[j.ID].eta)
		}
		tick := math.Inf(1)
		if s.opt.Round > 0 && len(s.active) > 0 {
			tick = (math.Floor(s.now/s.opt.Round) + 1) * s.opt.Round
			t = math.Min(t, tick)
		}
		if math.IsInf(t, 1) {
			return nil
		}
		fin, err := s.advance(t)
		if err != nil {
			return err
		}
		if fin {
			ev |= Finished
		}
		if t == tick {
			ev |= Round
		}
	}
}

// admit brings job id into the system, or records why it cannot run.
func (s *simulation) admit(id int) bool {
	j := s.jobs[id]
	if why := s.unrunnable(j); why != "" {
		s.st[id].status = unrunnable
		s.st[id].reason = why
		return false
	}
	s.st[id].status = waiting
	s.active = append(s.active, id)
	return true
}

// unrunnable says why no GPU type of the cluster can run j, or "".
func (s *simulation) unrunnable(j *Job) string {
	if k, ok := s.truth.(interface{ Knows(string) bool }); ok && !k.Knows(j.Workload) {
		return fmt.Sprintf("job type %q is not in the data", j.Workload)
	}
	most := 0
	for _, t := range s.topo.Types() {
		n := s.topo.Count(t)
		most = max(most, n)
		if n < j.Scale {
			continue
		}
		if s.topo.LargestNode(t) >= j.Scale {
			if _, ok := s.truth.Solo(j.Workload, Shape{GPUType: t, GPUs: j.Scale}); ok {
				return ""
			}
		}
		if j.Scale > 1 {
			if _, ok := s.truth.Solo(j.Workload, Shape{GPUType: t, GPUs: j.Scale, Spread: true}); ok {
				return ""
			}
		}
	}
	if most < j.Scale {
		return fmt.Sprintf("needs %d GPUs of one type; the cluster has at most %d", j.Scale, most)
	}
	return fmt.Sprintf("no measured rate at %d GPU(s) on any GPU type of the cluster that has that many", j.Scale)
}

func (s *simulation) warnTypes() {
	h, ok := s.truth.(interface{ HasType(string) bool })
	if !ok {
		return
	}
	for _, t := range s.topo.Types() {
		if !h.HasType(t) {
			s.res.Warnings = append(s.res.Warnings, fmt.Sprintf("GPU type %q of the cluster has no measured rate in the data: its %d GPUs stay idle", t, s.topo.Count(t)))
		}
	}
}

// lookup returns job id when it is waiting or running.
func (s *simulation) lookup(id int) *Job {
	if id < 0 || id >= len(s.jobs) {
		return nil
	}
	if st := s.st[id].status; st != waiting && st != running {
		return nil
	}
	return s.jobs[id]
}

// rebuild refreshes the waiting and running lists from the active set.
func (s *simulation) rebuild() {
	s.waiting = s.waiting[:0]
	s.running = s.running[:0]
	for _, id := range s.active {
		if s.st[id].status == running {
			s.running = append(s.running, s.jobs[id])
		} else {
			s.waiting = append(s.waiting, s.jobs[id])
		}
	}
	slices.SortFunc(s.running, func(a, b *Job) int { return a.ID - b.ID })
}

func (s *simulation) schedule(ev Events) error {
	v := &View{Now: s.now, Events: ev, Topology: s.topo, Waiting: s.waiting, Running: s.running, sim: s}
	plan, err := s.pol.Schedule(v)
	if err != nil {
		return fmt.Errorf("policy %s at t=%g s: %w", s.pol.Name(), s.now, err)
	}
	if plan == nil || plan.Empty() {
		return nil
	}
	if plan.view.sim != s {
		return fmt.Errorf("policy %s at t=%g s: plan made from another simulation's view", s.pol.Name(), s.now)
	}
	if err := s.check(plan); err != nil {
		return err
	}
	s.commit(plan)
	return s.rerate()
}

// advance moves time to t, progressing running jobs, and completes those
// that finish at t. It reports whether any finished.
func (s *simulation) advance(t float64) (bool, error) {
	dt := t - s.now
	for g, js := range s.on {
		if len(js) > 0 {
			s.busy[s.typeOf[g]] += dt
		}
	}
	tol := 1e-9 * math.Max(1, t)
	var finished []int
	for _, j := range s.running {
		st := &s.st[j.ID]
		if st.eta <= t+tol {
			finished = append(finished, j.ID)
			continue
		}
		if eff := t - math.Max(s.now, st.restore); eff > 0 {
			j.Done += st.rate * eff
		}
		if st.partner >= 0 {
			st.shared += dt
		}
	}
	s.now = t
	for _, id := range finished {
		j, st := s.jobs[id], &s.st[id]
		if st.partner >= 0 {
			st.shared += dt
		}
		j.Done = float64(j.Steps)
		st.status = done
		st.finish = t
		s.release(id)
		j.GPUs = nil
		s.active = slices.DeleteFunc(s.active, func(x int) bool { return x == id })
	}
	if len(finished) == 0 {
		return false, nil
	}
	s.rebuild()
	return true, s.rerate()
}

func (s *simulation) release(id int) {
	for _, g := range s.jobs[id].GPUs {
		s.on[g] = slices.DeleteFunc(s.on[g], func(x int) bool { return x == id })
	}
}

// rerate recomputes every running job's partner, rate and finish time.
func (s *simulation) rerate() error {
	for _, j := range s.running {
		st := &s.st[j.ID]
		st.partner = -1
		for _, o := range s.on[j.GPUs[0]] {
			if o != j.ID {
				st.partner = o
			}
		}
		var ok bool
		if st.partner >= 0 {
			st.rate, ok = s.truth.Colocated(j.Workload, s.jobs[st.partner].Workload, st.shape)
		} else {
			st.rate, ok = s.truth.Solo(j.Workload, st.shape)
		}
		if !ok || !(st.rate > 0) {
			// check() refuses such placements; reaching here is a bug.
			return fmt.Errorf("t=%g s: job %d (%s) runs on %v without a positive rate", s.now, j.ID, j.Workload, st.shape)
		}
		st.eta = math.Max(s.now, st.restore) + (float64(j.Steps)-j.Done)/st.rate
	}
	return nil
}

func (s *simulation) sample() Sample {
	busy := 0
	for _, js := range s.on {
		if len(js) > 0 {
			busy++
		}
	}
	return Sample{Time: s.now, BusyGPUs: busy, Running: len(s.running), Waiting: len(s.waiting)}
}

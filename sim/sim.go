package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

type jobStatus uint8

const (
	notArrived jobStatus = iota
	waiting
	running
	done
	unrunnable
)

// jobState is the simulator's side of a job: a job list of a million
// jobs holds a million of them, so the flags share a word and why a job
// cannot run is kept apart (simulation.reasons).
type jobState struct {
	status   jobStatus
	extrap   bool  // ran on an extrapolated solo rate
	assumed  bool  // shared on an assumed pair rate
	rated    bool  // rate and norm hold for shape and ratedPartner (apply clears it when the shape changes)
	restarts int32 // starts after the first
	shape    Shape
	partner  int // -1: alone
	// ratedPartner is the partner rate and norm were looked up for.
	ratedPartner int
	rate         float64
	norm         float64 // rate over the solo rate on the same placement
	restore      float64 // no progress before this time
	eta          float64
	// cap and hold: with Options.WholeSteps, the job stops progressing
	// this round once it has done cap iterations, at time hold (+Inf:
	// no cap).
	cap, hold float64
	start     float64
	finish    float64
	shared    float64
}

type simulation struct {
	topo      *Topology
	truth     Rates
	pol       Policy
	opt       Options
	jobs      []*Job
	st        []jobState
	reasons   map[int]string // why a job cannot run, by ID
	on        [][]int
	nActive   int   // jobs waiting or running
	completed int   // jobs completed (Options.Progress)
	seq       []int // job ID -> admission order (arrival order)
	nextSeq   int
	// waiting holds the waiting jobs by admission order, running the
	// running jobs by ID; both are kept up to date as jobs start, stop
	// and finish, never rebuilt from all jobs.
	waiting []*Job
	running []*Job
	now     float64
	minEta  float64 // the earliest finish time of a running job, as of the last rerate
	typeOf  []int   // GPU -> index into topo.Types()
	freeOf  []int   // GPUs holding no job, by type index
	avail   []int   // GPUs holding no job, by node index
	busyOf  []int   // GPUs holding a job, by type index
	lone    int     // GPUs holding exactly one job
	// queues hold the waiting jobs by class (workload index and size,
	// the classes Plan.missed knows), classIdx a class's index in
	// queues; nClasses counts the classes with waiting jobs (queue.go).
	queues   []classQueue
	classIdx map[[2]int32]int
	nClasses int
	bufs     []*planBuf
	nbuf     int    // plan buffers in use in the current Schedule call
	epoch    uint64 // plans made so far
	busy     []float64
	eff      []float64 // effective GPU time by type: GPUs x normalized throughput x time
	res      *Result
	rules    rules
	// touched and touchedJobs log the GPUs whose jobs changed and the
	// jobs that started, stopped or completed, in order, from the
	// touchedBase-th and touchedJobsBase-th entry on (trimTouched);
	// loneMemo is loneBase's answer by size and how much of the logs it
	// has seen.
	touched                      []int
	touchedJobs                  []int
	touchedBase, touchedJobsBase int
	loneMemo                     map[int]loneAt
	removeAt                     []int // removeWaiting's buffer
	// Plan.Untried's heap and missed classes, reused from call to call
	// (nil while an Untried loop holds them).
	untriedHeap, untriedMissed []untriedAt
	// carry is what the last committed plan learned about classes that
	// found no room (Plan.PlacedOnFreeSince), while no job finished.
	carry *missCarry
	// finished are the jobs completed since the policy was last asked.
	finished []*Job
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
	s.progress(true)
	s.finishResult(jobs)
	if w, ok := p.(warner); ok {
		s.res.Warnings = append(s.res.Warnings, w.Warnings()...)
	}
	return s.res, nil
}

func newSimulation(topo *Topology, jobs []TraceJob, truth Rates, p Policy, opt Options) *simulation {
	s := &simulation{topo: topo, truth: truth, pol: p, opt: opt, on: make([][]int, len(topo.GPUs)), reasons: map[int]string{}}
	name := ""
	if p != nil {
		name = p.Name()
	}
	s.res = &Result{Policy: name} // Jobs at the end (finishResult): a replay cut short never fills them
	s.jobs = make([]*Job, len(jobs))
	s.st = make([]jobState, len(jobs))
	s.seq = make([]int, len(jobs))
	for i, tj := range jobs {
		s.jobs[i] = &Job{ID: i, Workload: tj.Workload, Scale: tj.Scale, Request: tj.Scale, Degrees: []int{tj.Scale}, Steps: tj.Steps, Arrival: tj.Arrival}
		s.st[i] = jobState{partner: -1, start: math.NaN(), finish: math.NaN(), cap: math.Inf(1), hold: math.Inf(1)}
	}
	s.rules = newRules(s.jobs)
	types := topo.Types()
	s.rules.initDense(len(types))
	s.busy = make([]float64, len(types))
	s.eff = make([]float64, len(types))
	s.typeOf = make([]int, len(topo.GPUs))
	s.freeOf = make([]int, len(types))
	s.busyOf = make([]int, len(types))
	s.avail = make([]int, len(topo.Nodes))
	for i, g := range topo.GPUs {
		s.typeOf[i] = slices.Index(types, g.Type)
		s.freeOf[s.typeOf[i]]++
		s.avail[g.Node]++
	}
	return s
}

// progress tells Options.Progress, when set, where the replay stands.
func (s *simulation) progress(ended bool) {
	if s.opt.Progress != nil {
		s.opt.Progress(Progress{Policy: s.res.Policy, Completed: s.completed, Jobs: len(s.jobs), Now: s.now, Ended: ended})
	}
}

func (s *simulation) loop(jobs []TraceJob, order []int) error {
	next := 0
	if len(order) > 0 {
		s.now = jobs[order[0]].Arrival
	}
	rounds := s.opt.Schedule == ScheduleRounds
	roundStart, roundEnd := s.now, math.Inf(1)
	var ev Events
	if rounds {
		ev = Round // the first arrival opens the first round
	}
	for events := 0; ; events++ {
		if events%1024 == 0 {
			s.progress(false)
		}
		if events >= s.opt.MaxEvents {
			return fmt.Errorf("policy %s: more than %d scheduling points at t=%g s; is it moving jobs forever?", s.pol.Name(), s.opt.MaxEvents, s.now)
		}
		for next < len(order) && jobs[order[next]].Arrival <= s.now {
			if s.admit(order[next]) {
				ev |= Arrived
			}
			next++
		}
		ask := ev != 0
		if rounds {
			ask = ev&Round != 0
		}
		// With rounds the policy also hears of the round in which the
		// last job ended, as Gavel's mechanism does (it then revises its
		// books with no job left).
		if ask && (s.nActive > 0 || (rounds && ev&Finished != 0)) {
			if err := s.schedule(ev); err != nil {
				return err
			}
			roundStart = s.now
			if rounds && s.opt.WholeSteps {
				roundEnd = s.capRound()
			}
		}
		if s.opt.Timeline {
			s.res.Timeline = append(s.res.Timeline, s.sample())
		}
		if len(s.running) == 0 && len(s.waiting) > 0 && next == len(order) && (s.opt.Round == 0 || ev&Round != 0) {
			if rounds && ev&Idle == 0 {
				ev = Round | Idle
				continue
			}
			return fmt.Errorf("policy %s at t=%g s: %w: %d job(s) wait (first: job %d, %s) on an idle cluster and no job is left to arrive",
				s.pol.Name(), s.now, errStalled, len(s.waiting), s.waiting[0].ID, s.waiting[0].Workload)
		}
		if !rounds || ask {
			ev = 0
		}
		t := math.Inf(1)
		if next < len(order) {
			t = jobs[order[next]].Arrival
		}
		if len(s.running) > 0 {
			t = min(t, s.minEta)
		}
		tick := math.Inf(1)
		switch {
		case rounds && len(s.running) > 0 && s.opt.WholeSteps:
			// A round ends when its last job has done its steps.
			tick = roundEnd
		case rounds && len(s.running) > 0:
			// A round lasts Round seconds, or until its last job ends.
			tick = roundStart + s.opt.Round
		case rounds && next < len(order):
			// Nothing runs: the next round opens with the next arrival.
			tick = jobs[order[next]].Arrival
		case !rounds && s.opt.Round > 0 && s.nActive > 0:
			tick = (math.Floor(s.now/s.opt.Round) + 1) * s.opt.Round
		}
		t = min(t, tick)
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
		if t == tick || (rounds && fin && len(s.running) == 0) {
			ev |= Round
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

func (s *simulation) schedule(ev Events) error {
	s.nbuf = 0 // the plans of the previous call are gone
	v := &View{Now: s.now, Events: ev, Topology: s.topo, Waiting: s.waiting, Running: s.running, Finished: s.finished, sim: s}
	plan, err := s.pol.Schedule(v)
	s.finished = s.finished[:0]
	if err != nil {
		return fmt.Errorf("policy %s at t=%g s: %w", s.pol.Name(), s.now, err)
	}
	if plan == nil || plan.empty() {
		return nil
	}
	if plan.view.sim != s {
		return fmt.Errorf("policy %s at t=%g s: plan made from another simulation's view", s.pol.Name(), s.now)
	}
	if err := s.check(plan); err != nil {
		return err
	}
	s.commit(plan)
	s.carryFrom(plan)
	return s.rerate()
}

// advance moves time to t, progressing running jobs, and completes those
// that finish at t. It reports whether any finished.
func (s *simulation) advance(t float64) (bool, error) {
	dt := t - s.now
	for ti, n := range s.busyOf {
		// One addition per busy GPU, as a sum over the GPUs would make.
		for range n {
			s.busy[ti] += dt
		}
	}
	tol := 1e-9 * max(1, t)
	var finished []int
	for _, j := range s.running {
		st := &s.st[j.ID]
		eff := min(t, st.hold) - max(s.now, st.restore)
		if eff > 0 {
			s.eff[s.typeOf[j.GPUs[0]]] += eff * st.norm * float64(len(j.GPUs))
		}
		if st.eta <= t+tol {
			finished = append(finished, j.ID)
			continue
		}
		if st.hold <= t+tol {
			j.Done = st.cap // whole steps: exactly the cap
		} else if eff > 0 {
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
		s.finished = append(s.finished, j)
		s.completed++
		st.status = done
		st.finish = t
		s.release(id)
		s.running = removeByID(s.running, id)
		j.GPUs = nil
		s.nActive--
	}
	if len(finished) == 0 {
		return false, nil
	}
	s.carry = nil // GPUs were freed and partners left alone

	return true, s.rerate()
}

func (s *simulation) release(id int) {
	s.touch(id, s.jobs[id].GPUs)
	for _, g := range s.jobs[id].GPUs {
		s.countGPU(g, -1)
		s.on[g] = slices.DeleteFunc(s.on[g], func(x int) bool { return x == id })
		s.countGPU(g, 1)
	}
}

// touch logs that job id and gpus changed, for loneBase.
func (s *simulation) touch(id int, gpus []int) {
	s.touchedJobs = append(s.touchedJobs, id)
	s.touched = append(s.touched, gpus...)
	if len(s.touched) > 4*len(s.on)+64 {
		s.trimTouched()
	}
}

// trimTouched drops the part of the logs no memo of loneBase can read
// again, so that they do not grow with every start and stop of a long
// replay (preempting policies log millions). Offsets into the logs are
// absolute: touchedBase and touchedJobsBase count the entries dropped. A
// memo is revised only while fewer than len(s.on)/8 GPUs were touched
// since it; an older one would be answered by a scan, which a memo no
// longer kept gives too.
func (s *simulation) trimTouched() {
	abs := s.touchedBase + len(s.touched)
	keepT, keepJ := abs, s.touchedJobsBase+len(s.touchedJobs)
	for n, m := range s.loneMemo {
		if abs-m.touched >= len(s.on)/8 {
			delete(s.loneMemo, n)
			continue
		}
		keepT, keepJ = min(keepT, m.touched), min(keepJ, m.touchedJobs)
	}
	s.touched = append(s.touched[:0], s.touched[keepT-s.touchedBase:]...)
	s.touchedJobs = append(s.touchedJobs[:0], s.touchedJobs[keepJ-s.touchedJobsBase:]...)
	s.touchedBase, s.touchedJobsBase = keepT, keepJ
}

// countGPU adds sign times GPU g's contribution to the free, busy and
// lone counts.
func (s *simulation) countGPU(g, sign int) {
	switch len(s.on[g]) {
	case 0:
		s.freeOf[s.typeOf[g]] += sign
		s.avail[s.topo.GPUs[g].Node] += sign
		return
	case 1:
		s.lone += sign
	}
	s.busyOf[s.typeOf[g]] += sign
}

// removeByID removes job id from js, sorted by ID.
func removeByID(js []*Job, id int) []*Job {
	i, found := slices.BinarySearchFunc(js, id, func(j *Job, id int) int { return j.ID - id })
	if !found {
		return js
	}
	return slices.Delete(js, i, i+1)
}

// insertByID inserts j into js, sorted by ID.
func insertByID(js []*Job, j *Job) []*Job {
	i, _ := slices.BinarySearchFunc(js, j.ID, func(x *Job, id int) int { return x.ID - id })
	return slices.Insert(js, i, j)
}

// insertWaiting puts job j back in the waiting list at its arrival place.
func (s *simulation) insertWaiting(j *Job) {
	k := s.seq[j.ID]
	i, _ := slices.BinarySearchFunc(s.waiting, k, func(x *Job, k int) int { return s.seq[x.ID] - k })
	s.waiting = slices.Insert(s.waiting, i, j)
	s.classWaits(j, true)
}

// removeWaiting takes the jobs marked running out of the waiting list:
// given their admission numbers, ascending, it finds each by binary
// search and moves the runs of jobs between them down, touching only what
// lies after the first of them (nothing when they are the list's head).
func (s *simulation) removeWaiting(seqs []int) {
	if len(seqs) == 0 {
		return
	}
	pos := func(k int) (int, bool) {
		return slices.BinarySearchFunc(s.waiting, k, func(x *Job, k int) int { return s.seq[x.ID] - k })
	}
	first, _ := pos(seqs[0])
	if first == 0 && len(seqs) <= len(s.waiting) && s.seq[s.waiting[len(seqs)-1].ID] == seqs[len(seqs)-1] {
		clear(s.waiting[:len(seqs)])
		s.waiting = s.waiting[len(seqs):] // the head started
		return
	}
	at := s.removeAt[:0]
	for _, k := range seqs {
		i, found := pos(k)
		if !found {
			at = nil // not in the list: a bug; fall back to the scan
			break
		}
		at = append(at, i)
	}
	s.removeAt = at
	w := first
	if at == nil {
		for r := first; r < len(s.waiting); r++ {
			if s.st[s.waiting[r].ID].status != running {
				s.waiting[w] = s.waiting[r]
				w++
			}
		}
	} else {
		for n, i := range at {
			end := len(s.waiting)
			if n+1 < len(at) {
				end = at[n+1]
			}
			w += copy(s.waiting[w:], s.waiting[i+1:end])
		}
	}
	clear(s.waiting[w:])
	s.waiting = s.waiting[:w]
}

// rerate recomputes every running job's partner, rate and finish time,
// and the earliest finish time. Finish times change nowhere else: advance
// without completions and an empty plan leave them, and minEta, as they
// are.
func (s *simulation) rerate() error {
	s.minEta = math.Inf(1)
	for _, j := range s.running {
		st := &s.st[j.ID]
		st.partner = -1
		for _, o := range s.on[j.GPUs[0]] {
			if o != j.ID {
				st.partner = o
			}
		}
		if st.rated && st.ratedPartner == st.partner {
			// Same placement and partner as at the last rating: same rate.
			s.setEta(j, st)
			continue
		}
		var ok bool
		if st.partner >= 0 {
			st.rate, ok = s.truth.Colocated(j.Workload, s.jobs[st.partner].Workload, st.shape)
		} else {
			st.rate, ok = s.truth.Solo(j.Workload, st.shape)
		}
		if !ok || !(st.rate > 0) {
			// check() refuses such placements; reaching here is a bug.
			return fmt.Errorf("t=%g s: job %d (%s) runs on %s without a positive rate", s.now, j.ID, j.Workload, where(st.shape))
		}
		if x, ok := s.truth.(extrapolatedType); ok && x.isExtrapolated(j.Workload, st.shape) {
			st.extrap = true
		}
		if x, ok := s.truth.(assumedType); ok && st.partner >= 0 && x.IsAssumed(j.Workload, s.jobs[st.partner].Workload, st.shape) {
			st.assumed = true
		}
		st.norm = 1
		if st.partner >= 0 {
			if solo, ok := s.truth.Solo(j.Workload, st.shape); ok && solo > 0 {
				st.norm = st.rate / solo
			}
		}
		st.rated, st.ratedPartner = true, st.partner
		s.setEta(j, st)
	}
	return nil
}

// setEta sets a running job's completion time, and, under a cap of
// whole steps, the time it holds: a job whose cap is below its steps
// does not complete this round.
func (s *simulation) setEta(j *Job, st *jobState) {
	from := max(s.now, st.restore)
	st.eta = from + (float64(j.Steps)-j.Done)/st.rate
	st.hold = math.Inf(1)
	if st.cap < float64(j.Steps) {
		st.hold = from + max(0, st.cap-j.Done)/st.rate
		st.eta = math.Inf(1)
	}
	s.minEta = min(s.minEta, st.eta)
}

// capRound starts a round of whole steps (Options.WholeSteps): each
// running job may do the whole number of iterations its rate gives in a
// round, or what it has left, and returns when the last of them is done
// (the round's end).
func (s *simulation) capRound() float64 {
	end := math.Inf(-1)
	for _, j := range s.running {
		st := &s.st[j.ID]
		st.cap = min(float64(j.Steps), j.Done+math.Floor(st.rate*s.opt.Round))
		s.setEta(j, st)
		end = max(end, min(st.eta, st.hold))
	}
	s.minEta = math.Inf(1)
	for _, j := range s.running {
		s.minEta = min(s.minEta, s.st[j.ID].eta)
	}
	return end
}

func (s *simulation) sample() sample {
	busy := 0
	for _, n := range s.busyOf {
		busy += n
	}
	return sample{Time: s.now, BusyGPUs: busy, Running: len(s.running), Waiting: len(s.waiting)}
}

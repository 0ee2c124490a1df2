package sim

import (
	"fmt"
	"math"
	"slices"
)

// check refuses a plan that breaks a placement rule: a job not in the
// system, the wrong number of GPUs, GPUs of two types, a placement the
// data hold no rate for, too many jobs on a GPU, two jobs that share some
// but not all of their GPUs, or a pair without a status-ok measurement.
func (s *simulation) check(p *Plan) error {
	bad := func(id int, format string, args ...any) error {
		e := &placementError{Policy: s.pol.Name(), Time: s.now, Job: id, Msg: fmt.Sprintf(format, args...)}
		if id >= 0 && id < len(s.jobs) {
			e.Workload = s.jobs[id].Workload
		}
		return e
	}
	var touched []int
	for _, id := range p.order {
		j := s.lookup(id)
		if j == nil {
			return bad(id, "not in the system (not arrived, finished, unrunnable or unknown)")
		}
		gpus := p.moved[id]
		if len(gpus) == 0 {
			continue
		}
		if !slices.Contains(j.Degrees, len(gpus)) {
			return bad(id, "may run on %v GPU(s), the plan gives %d", j.Degrees, len(gpus))
		}
		sh, err := s.topo.ShapeOf(gpus)
		if err != nil {
			return bad(id, "%v", err)
		}
		if r, ok := s.truth.Solo(j.Workload, sh); !ok || !(r > 0) {
			return bad(id, "cannot run on %s: no measured rate", where(sh))
		}
		touched = append(touched, gpus...)
	}
	slices.Sort(touched)
	touched = slices.Compact(touched)
	for _, g := range touched {
		js := p.jobsOn(g)
		if len(js) > s.opt.MaxPerGPU {
			return bad(js[len(js)-1], "GPU %d would hold %d jobs %v; at most %d", g, len(js), js, s.opt.MaxPerGPU)
		}
		if len(js) < 2 {
			continue
		}
		a, b := js[0], js[1]
		if ga, gb := p.GPUsOf(a), p.GPUsOf(b); !slices.Equal(ga, gb) {
			return bad(b, "shares GPU %d with job %d but not all its GPUs (%v and %v); co-located jobs must share the same GPUs", g, a, gb, ga)
		}
		if g != p.GPUsOf(a)[0] {
			continue // the pair was checked at its first GPU
		}
		sh, _ := s.topo.ShapeOf(p.GPUsOf(a))
		wa, wb := s.jobs[a].Workload, s.jobs[b].Workload
		ra, oka := s.truth.Colocated(wa, wb, sh)
		rb, okb := s.truth.Colocated(wb, wa, sh)
		if !oka || !okb || !(ra > 0) || !(rb > 0) {
			return bad(b, "cannot share %s with job %d (%s): the pair has no status-ok measurement", where(sh), a, wa)
		}
	}
	return nil
}

// commit applies a checked plan: stops, moves and starts jobs.
func (s *simulation) commit(p *Plan) {
	var started []int // admission numbers of the jobs that were waiting
	var touched []int
	for _, id := range p.order {
		j, st := s.jobs[id], &s.st[id]
		gpus := p.moved[id]
		if slices.Equal(gpus, j.GPUs) {
			continue
		}
		wasRunning := st.status == running
		s.release(id)
		touched = append(touched, j.GPUs...)
		j.GPUs = nil
		st.status = waiting
		if len(gpus) == 0 {
			if wasRunning {
				s.running = removeByID(s.running, id)
				s.insertWaiting(j)
			}
			continue
		}
		j.GPUs = slices.Clone(gpus)
		s.touch(id, gpus)
		for _, g := range gpus {
			s.countGPU(g, -1)
			s.on[g] = append(s.on[g], id)
			s.countGPU(g, 1)
		}
		touched = append(touched, gpus...)
		st.shape, _ = s.topo.ShapeOf(gpus)
		st.rated = false
		st.status = running
		if !wasRunning {
			started = append(started, s.seq[id])
			s.classWaits(j, false)
			s.running = insertByID(s.running, j)
		}
		j.Starts++
		if j.Starts == 1 {
			st.start = s.now
			st.restore = math.Inf(-1)
		} else {
			st.restarts++
			st.restore = s.now + s.opt.RestartPenalty
		}
	}
	for _, g := range touched {
		slices.Sort(s.on[g])
	}
	slices.Sort(started)
	s.removeWaiting(started)
}

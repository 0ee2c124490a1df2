package sim

import "fmt"

// admit brings job id into the system, or records why it cannot run.
func (s *simulation) admit(id int) bool {
	j := s.jobs[id]
	if s.opt.Degree == DegreePolicy {
		s.degrees(j)
	}
	if why := s.unrunnable(j); why != "" {
		s.st[id].status = unrunnable
		s.reasons[id] = why
		return false
	}
	s.st[id].status = waiting
	s.seq[id] = s.nextSeq
	s.nextSeq++
	s.waiting = append(s.waiting, j)
	s.classWaits(j, true)
	s.nActive++
	return true
}

// degrees sets the degrees j may run on in policy mode: those up to its
// request (or MaxDegree) that some GPU type of the cluster can run it at;
// a request above every measured degree gets the largest measured one.
// Scale becomes the largest allowed degree. With none, j keeps its
// request and is reported unrunnable.
func (s *simulation) degrees(j *Job) { policyDegrees(s.topo, s.truth, j, s.opt.MaxDegree) }

func policyDegrees(topo *Topology, truth Rates, j *Job, maxDegree int) {
	limit := j.Request
	if maxDegree > 0 {
		limit = maxDegree
	}
	var ds []int
	for d := 1; d <= limit; d++ {
		if runnableAt(topo, truth, j.Workload, d) {
			ds = append(ds, d)
		}
	}
	if len(ds) > 0 {
		j.Degrees, j.Scale = ds, ds[len(ds)-1]
	}
}

// runnableAt reports whether some GPU type of the cluster can run
// workload w on d GPUs.
func runnableAt(topo *Topology, truth Rates, w string, d int) bool {
	for _, t := range topo.Types() {
		if topo.Count(t) < d {
			continue
		}
		if topo.LargestNode(t) >= d {
			if _, ok := truth.Solo(w, Shape{GPUType: t, GPUs: d}); ok {
				return true
			}
		}
		if d > 1 {
			if _, ok := truth.Solo(w, Shape{GPUType: t, GPUs: d, Spread: true}); ok {
				return true
			}
		}
	}
	return false
}

// unrunnable says why no GPU type of the cluster can run j, or "".
func (s *simulation) unrunnable(j *Job) string {
	return whyUnrunnable(s.topo, s.truth, j.Workload, j.Scale)
}

func whyUnrunnable(topo *Topology, truth Rates, w string, scale int) string {
	if k, ok := truth.(interface{ Knows(string) bool }); ok && !k.Knows(w) {
		return fmt.Sprintf("job type %q is not in the data", w)
	}
	if runnableAt(topo, truth, w, scale) {
		return ""
	}
	most := 0
	for _, t := range topo.Types() {
		most = max(most, topo.Count(t))
	}
	if most < scale {
		return fmt.Sprintf("needs %d GPUs of one type; the cluster has at most %d", scale, most)
	}
	return fmt.Sprintf("no measured rate at %d GPU(s) on any GPU type of the cluster that has that many", scale)
}

// PolicyAdmission is what the simulator makes of a job of workload w
// asking request GPUs when it arrives in policy mode (Options.Degree
// DegreePolicy, with Options.MaxDegree maxDegree): the degrees it may run
// on, and why it cannot run ("" when it can; its degrees are then
// {request}). It lets a caller decide as a replay's first scheduling
// point would without replaying: each job is admitted by the same code.
func PolicyAdmission(topo *Topology, truth Rates, w string, request, maxDegree int) (degrees []int, why string) {
	j := &Job{Workload: w, Scale: request, Request: request, Degrees: []int{request}}
	policyDegrees(topo, truth, j, maxDegree)
	return j.Degrees, whyUnrunnable(topo, truth, w, j.Scale)
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

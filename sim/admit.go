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
func (s *simulation) degrees(j *Job) {
	limit := j.Request
	if s.opt.MaxDegree > 0 {
		limit = s.opt.MaxDegree
	}
	var ds []int
	for d := 1; d <= limit; d++ {
		if s.runnableAt(j, d) {
			ds = append(ds, d)
		}
	}
	if len(ds) > 0 {
		j.Degrees, j.Scale = ds, ds[len(ds)-1]
	}
}

// runnableAt reports whether some GPU type of the cluster can run j on d
// GPUs.
func (s *simulation) runnableAt(j *Job, d int) bool {
	for _, t := range s.topo.Types() {
		if s.topo.Count(t) < d {
			continue
		}
		if s.topo.LargestNode(t) >= d {
			if _, ok := s.truth.Solo(j.Workload, Shape{GPUType: t, GPUs: d}); ok {
				return true
			}
		}
		if d > 1 {
			if _, ok := s.truth.Solo(j.Workload, Shape{GPUType: t, GPUs: d, Spread: true}); ok {
				return true
			}
		}
	}
	return false
}

// unrunnable says why no GPU type of the cluster can run j, or "".
func (s *simulation) unrunnable(j *Job) string {
	if k, ok := s.truth.(interface{ Knows(string) bool }); ok && !k.Knows(j.Workload) {
		return fmt.Sprintf("job type %q is not in the data", j.Workload)
	}
	if s.runnableAt(j, j.Scale) {
		return ""
	}
	most := 0
	for _, t := range s.topo.Types() {
		most = max(most, s.topo.Count(t))
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

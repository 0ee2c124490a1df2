package sim

import "fmt"

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

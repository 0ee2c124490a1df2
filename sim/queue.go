package sim

import (
	"iter"
	"slices"
)

// The waiting jobs are also kept by class (workload index and size, the
// classes Plan.missed knows), each class in admission order, so that a
// policy trying the waiting jobs in arrival order need not walk past the
// jobs of classes that found no room: Plan.Untried merges the classes'
// queues instead, at a cost per job tried, not per job waiting.

// classQueue holds the waiting jobs of one class by admission order.
type classQueue struct {
	jobs []*Job
}

// classOf returns the index of j's class in s.queues, adding the class
// when it is new.
func (s *simulation) classOf(j *Job) int {
	if s.classIdx == nil {
		s.classIdx = map[[2]int32]int{}
	}
	k := [2]int32{s.rules.wid[j.ID], int32(j.Scale)}
	c, ok := s.classIdx[k]
	if !ok {
		c = len(s.queues)
		s.classIdx[k] = c
		s.queues = append(s.queues, classQueue{})
	}
	return c
}

// classWaiting returns how many jobs of j's class wait.
func (s *simulation) classWaiting(j *Job) int {
	c, ok := s.classIdx[[2]int32{s.rules.wid[j.ID], int32(j.Scale)}]
	if !ok {
		return 0
	}
	return len(s.queues[c].jobs)
}

// classWaits adds j to (add) or removes it from the waiting jobs of its
// class.
func (s *simulation) classWaits(j *Job, add bool) {
	q := &s.queues[s.classOf(j)]
	k := s.seq[j.ID]
	i, found := slices.BinarySearchFunc(q.jobs, k, func(x *Job, k int) int { return s.seq[x.ID] - k })
	was := len(q.jobs)
	switch {
	case add && !found:
		q.jobs = slices.Insert(q.jobs, i, j)
	case !add && found:
		q.jobs = slices.Delete(q.jobs, i, i+1)
	}
	switch {
	case was == 0 && len(q.jobs) > 0:
		s.nClasses++
	case was > 0 && len(q.jobs) == 0:
		s.nClasses--
	}
}

// untriedAt is one class in Plan.Untried's merge: the admission number
// of its next job, the class and that job's place in the class's queue.
type untriedAt struct{ seq, class, at int }

// Untried yields the waiting jobs (View.Waiting) in arrival order, leaving
// out every job that Missed reports when its turn comes: what a loop over
// View.Waiting that skips the jobs Missed reports sees, without walking
// past the skipped jobs. It ends when no job is left that Missed does not
// report. The plan may change between jobs (Place, Stop, Miss), and a
// class that found no room comes back after the plan's next change.
func (p *Plan) Untried() iter.Seq[*Job] {
	return func(yield func(*Job) bool) {
		s := p.view.sim
		// A min-heap by seq, and the classes that found no room, in the
		// simulation's buffers (a loop inside another allocates its own).
		h, missed := s.untriedHeap[:0], s.untriedMissed[:0]
		s.untriedHeap, s.untriedMissed = nil, nil
		defer func() { s.untriedHeap, s.untriedMissed = h[:0], missed[:0] }()
		for c := range s.queues {
			if q := s.queues[c].jobs; len(q) > 0 {
				h = append(h, untriedAt{s.seq[q[0].ID], c, 0})
			}
		}
		for i := len(h)/2 - 1; i >= 0; i-- {
			downUntried(h, i)
		}
		for len(h) > 0 {
			var e untriedAt
			h, e = popUntried(h)
			q := s.queues[e.class].jobs
			j := q[e.at]
			if p.missed(j) {
				missed = append(missed, e)
				continue
			}
			gen := p.gen
			if !yield(j) {
				return
			}
			if p.gen != gen {
				// The plan changed: the classes that found no room try
				// again from the next job after this one.
				for _, m := range missed {
					mq := s.queues[m.class].jobs
					m.at += sortSearchSeq(s, mq[m.at:], e.seq)
					if m.at < len(mq) {
						m.seq = s.seq[mq[m.at].ID]
						h = pushUntried(h, m)
					}
				}
				missed = missed[:0]
			}
			if e.at+1 < len(q) {
				e.at++
				e.seq = s.seq[q[e.at].ID]
				h = pushUntried(h, e)
			}
		}
	}
}

// sortSearchSeq returns the number of jobs of q, by admission order,
// admitted at or before seq.
func sortSearchSeq(s *simulation, q []*Job, seq int) int {
	i, found := slices.BinarySearchFunc(q, seq, func(x *Job, k int) int { return s.seq[x.ID] - k })
	if found {
		i++
	}
	return i
}

func pushUntried(h []untriedAt, e untriedAt) []untriedAt {
	h = append(h, e)
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if h[up].seq <= h[i].seq {
			break
		}
		h[up], h[i] = h[i], h[up]
		i = up
	}
	return h
}

func popUntried(h []untriedAt) ([]untriedAt, untriedAt) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	downUntried(h, 0)
	return h, top
}

// downUntried restores the heap h below i.
func downUntried(h []untriedAt, i int) {
	n := len(h)
	for {
		l, m := 2*i+1, i
		if l < n && h[l].seq < h[m].seq {
			m = l
		}
		if l+1 < n && h[l+1].seq < h[m].seq {
			m = l + 1
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

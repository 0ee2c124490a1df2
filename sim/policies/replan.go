package policies

import (
	"slices"

	"github.com/coloc-dev/coloc/sim"
)

// replan moves running jobs onto the GPUs the plan leaves free when that
// pays: at every scheduling point, after the waiting jobs had their turn,
// a running job moves alone to free GPUs (any type, any allowed degree)
// when the predicted saving in completion times exceeds zero once the
// restart penalty is paid: its own (time left where it is, shared or
// not, minus penalty plus time left alone there) and, when it leaves a
// pair, its partner's (time left in the pair minus time left alone). A
// move splits a pair; stopping is never better than running here, so the
// rule does not stop jobs. Moves are made one at a time, largest saving
// first, until none pays.
func (r *Rule) replan(ps *planState) {
	v, p := ps.v, ps.p
	pen := v.RestartPenalty()
	for range v.Running {
		if !slices.ContainsFunc(ps.free, func(n int) bool { return n > 0 }) {
			return // no free GPU to move to
		}
		bestGain, bestJob := 0.0, -1
		var bestGPUs []int
		var bestEnd float64
		for _, j := range v.Running {
			cur := p.GPUsOf(j.ID)
			if len(cur) == 0 || !slices.Equal(cur, j.GPUs) {
				continue // stopped or moved in this plan
			}
			anyFree := false
			for _, n := range ps.free {
				anyFree = anyFree || n >= j.Degrees[0]
			}
			if !anyFree {
				continue
			}
			stay, partnerGain, ok := r.stay(v, p, j, cur)
			if !ok {
				continue
			}
			for _, d := range r.degreesOf(j) {
				for ti := range ps.types {
					gpus, ok := ps.freeGPUs(j, ti, d)
					if !ok {
						continue
					}
					sh, _ := shapeOf(v, gpus)
					s := r.soloOn(j, sh)
					if s == 0 {
						continue
					}
					move := pen + r.remaining(j, s)/s
					if !ps.fitsHold(ti, v.Now+move) {
						continue // the GPUs are held for a critical job
					}
					if gain := stay - move + partnerGain; gain > bestGain {
						bestGain, bestJob, bestGPUs, bestEnd = gain, j.ID, gpus, v.Now+move
					}
				}
			}
		}
		if bestJob < 0 {
			return
		}
		ps.place(r, bestJob, bestGPUs, -1)
		ps.freeUntil(bestGPUs, bestEnd)
	}
}

// stay returns the predicted time job j needs where it runs, and the time
// its partner (if any) would save were j to leave.
func (r *Rule) stay(v *sim.View, p *sim.Plan, j *sim.Job, gpus []int) (float64, float64, bool) {
	sh, ok := shapeOf(v, gpus)
	if !ok {
		return 0, 0, false
	}
	s := r.soloOn(j, sh)
	if s == 0 {
		return 0, 0, false
	}
	w := r.remaining(j, s)
	for _, q := range p.JobsOn(gpus[0]) {
		if q == j.ID {
			continue
		}
		qj := v.Job(q)
		if qj == nil {
			break
		}
		sq := r.soloOn(qj, sh)
		xj, ok1 := r.pairOf(v, j, qj, sh)
		xq, ok2 := r.pairOf(v, qj, j, sh)
		if sq == 0 || !ok1 || !ok2 || !(xj > 0) || !(xq > 0) {
			break
		}
		wq := r.remaining(qj, sq)
		tj, tq := overlap(w, s, xj, wq, sq, xq)
		return tj, tq - wq/sq, true
	}
	return w / s, 0, true
}

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
		most := slices.Max(ps.free) // free GPUs of the type with most
		for _, j := range v.Running {
			cur := j.GPUs
			if ps.plain || ps.movedJob(j.ID) {
				// Only the plan's own moves take a running job off its
				// GPUs (planState.place).
				cur = p.GPUsOf(j.ID)
				if len(cur) == 0 || !slices.Equal(cur, j.GPUs) {
					continue // stopped or moved in this plan
				}
			}
			if most < j.Degrees[0] {
				continue
			}
			stay, partnerGain, ok := r.stay(v, p, j, cur)
			if !ok {
				continue
			}
			if !ps.plain && !r.mayGain(ps.types, j, stay, partnerGain, pen, bestGain) {
				continue // no free GPUs make the move pay more than the best
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
	if len(gpus) == 0 {
		return 0, 0, false
	}
	var sh sim.Shape
	var s float64
	if len(j.GPUs) > 0 && &gpus[0] == &j.GPUs[0] && len(gpus) == len(j.GPUs) {
		sh, s, _ = r.runShapeOf(v, j) // where the simulator runs it
	} else {
		sh, _ = shapeOf(v, gpus)
		s = r.soloOn(j, sh)
	}
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

// mayGain reports whether moving j could save more than best: whether
// the gain with the shortest run time j could have anywhere (its
// fastest solo rate over every type, allowed degree and spread) exceeds
// best. A move's run time is at least that one, so a job for which the
// bound fails cannot be the best move, and replan skips searching free
// GPUs for it. The bound's run time is lowered by a relative 1e-9 so
// that rounding in the remaining-time estimate (which multiplies and
// divides by the rate) cannot make it exceed a real move's.
func (r *Rule) mayGain(types []string, j *sim.Job, stay, partnerGain, pen, best float64) bool {
	s := r.fastest(types, j)
	if s == 0 {
		return false // no shape has a rate: every move is skipped
	}
	lb := r.remaining(j, s) / s * (1 - 1e-9)
	gain := stay - (pen + lb) + partnerGain
	return !(gain <= best)
}

// fastest returns j's highest solo rate over the GPU types, its allowed
// degrees and both spreads, 0 when none is known, remembered by job ID:
// the rates of a job's shapes do not change (the memory is dropped if
// the GPU types do).
func (r *Rule) fastest(types []string, j *sim.Job) float64 {
	if len(types) != len(r.fastOf) || len(types) > 0 && &types[0] != &r.fastOf[0] {
		// Not the slice last seen (Topology.Types gives the same one
		// each call): compare the names.
		if !slices.Equal(types, r.fastTypes) {
			r.fast, r.fastTypes = nil, slices.Clone(types)
		}
		r.fastOf = types
	}
	if j.ID >= 0 && j.ID < len(r.fast) && r.fast[j.ID] != 0 {
		return max(r.fast[j.ID], 0)
	}
	best := 0.0
	for _, d := range r.degreesOf(j) {
		for _, t := range types {
			for _, spread := range []bool{false, true} {
				if spread && d < 2 {
					continue
				}
				if s := r.soloOn(j, sim.Shape{GPUType: t, GPUs: d, Spread: spread}); s > best {
					best = s
				}
			}
		}
	}
	if j.ID >= 0 {
		if j.ID >= len(r.fast) {
			r.fast = append(r.fast, make([]float64, j.ID+1-len(r.fast))...)
		}
		r.fast[j.ID] = best
		if best == 0 {
			r.fast[j.ID] = -1
		}
	}
	return best
}

// movedJob reports whether the plan took job id off GPUs it held.
func (ps *planState) movedJob(id int) bool {
	return slices.ContainsFunc(ps.log, func(pl placement) bool { return pl.moved && pl.id == id })
}

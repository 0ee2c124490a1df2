package sim

// backfill runs one job per GPU, first come first served, and skips a job
// that does not fit: waiting jobs are tried in arrival order and each takes
// free GPUs when some fit it (bestFree: the GPU type with the best
// estimated solo rate), so a later, smaller job may start before an
// earlier, larger one. It never shares, stops or moves a job. It is the
// fair reference for what co-location adds: fifo's head-of-line blocking
// is gone, no GPU is shared.
type backfill struct {
	Est Rates // solo rates are all it uses
}

// NewBackfill returns the backfill policy deciding with est.
func NewBackfill(est Rates) *backfill { return &backfill{Est: est} }

// Name returns "backfill".
func (*backfill) Name() string { return "backfill" }

// Schedule places every waiting job that fits on free GPUs.
func (b *backfill) Schedule(v *View) (*Plan, error) {
	if v.Events&(Arrived|Finished) == 0 || len(v.Waiting) == 0 {
		return nil, nil
	}
	p := v.Plan()
	for j := range p.Untried() {
		if !p.anyFree() || p.AllMissed() {
			break
		}
		if _, ok := p.PlacedOnFreeSince(j); ok {
			p.Miss(j) // free GPUs only went since its class found none
			continue
		}
		if gpus, _, ok := bestFree(p, j, b.Est); ok {
			p.Place(j.ID, gpus...)
		} else {
			p.Miss(j)
		}
	}
	return p, nil
}

// anyFree reports whether the plan leaves any GPU free.
func (p *Plan) anyFree() bool {
	for _, n := range p.free {
		if n > 0 {
			return true
		}
	}
	return false
}

package sim

// fifo runs one job per GPU, first come first served: jobs start in
// arrival order, and a job that does not fit blocks those behind it until
// enough GPUs of a type that can run it are free (no backfilling). Among
// the GPU types free for the head job it takes the one with the highest
// estimated solo rate (bestFree). It never stops or moves a job.
type fifo struct {
	Est Rates // solo rates are all it uses
}

// NewFIFO returns the fifo policy deciding with est.
func NewFIFO(est Rates) *fifo { return &fifo{Est: est} }

// Name returns "fifo".
func (*fifo) Name() string { return "fifo" }

// Schedule starts waiting jobs in arrival order until one does not fit.
func (f *fifo) Schedule(v *View) (*Plan, error) {
	if v.Events&(Arrived|Finished) == 0 || len(v.Waiting) == 0 {
		return nil, nil // a round tick frees nothing
	}
	p := v.Plan()
	for _, j := range v.Waiting {
		gpus, _, ok := bestFree(p, j, f.Est)
		if !ok {
			break
		}
		p.Place(j.ID, gpus...)
	}
	return p, nil
}

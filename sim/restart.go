package sim

// RestartPenalty is the time, in seconds, a job started again after it ran
// makes no progress (Options.RestartPenalty). A policy that moves jobs
// weighs a move against it.
func (v *View) RestartPenalty() float64 { return v.sim.opt.RestartPenalty }

// Round is the round length, in seconds (Options.Round; 0: no rounds).
func (v *View) Round() float64 { return v.sim.opt.Round }

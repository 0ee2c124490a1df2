package sim

import (
	"errors"
	"fmt"
	"math"
)

// Options control a simulation.
type Options struct {
	// Round is the time between round events, in seconds, at which
	// round-based policies may revise their decisions; 0 turns rounds off.
	Round float64
	// RestartPenalty is the time, in seconds, a job makes no progress after
	// each start but its first (a move or a resume after a stop): the cost
	// of checkpoint, restore and warm-up. It holds its GPUs meanwhile.
	RestartPenalty float64
	// MaxPerGPU is the most jobs one GPU holds: 1 or 2 (the data measure
	// pairs, nothing larger).
	MaxPerGPU int
	// MaxEvents bounds the scheduling points of one run, a guard against a
	// policy that keeps moving jobs so that none finishes.
	MaxEvents int
	// Timeline records a Sample at every scheduling point.
	Timeline bool
	// Degree says who picks a job's number of GPUs: DegreeTrace (the
	// trace's scale factor, the default) or DegreePolicy (any measured
	// degree up to the trace's request, or MaxDegree when set; see Job).
	Degree string
	// MaxDegree caps the degrees of DegreePolicy; 0: the trace's request.
	MaxDegree int
	// Schedule says when the policy is asked: scheduleEvents (at every
	// arrival, completion and round tick; the default when "") or
	// ScheduleRounds (only at round boundaries, as in Gavel's simulator:
	// see Run).
	Schedule string
	// WholeSteps, with ScheduleRounds, has each running job do a whole
	// number of iterations per round, its rate times the round length
	// rounded down (or what it has left), then hold its GPUs idle until
	// the round ends; a round ends when its last job is done: Gavel's
	// micro-tasks. Without it jobs progress continuously and rounds last
	// Round seconds.
	WholeSteps bool
	// Progress, when set, is told how a replay goes: at its first
	// scheduling point, every 1,024 after, and when it ends. It is how a
	// command reports on a long replay; it is not a setting of the replay
	// (it changes nothing of it and is never serialized).
	Progress func(Progress) `json:"-"`
}

// Progress is where a replay stands.
type Progress struct {
	Policy    string
	Completed int     // jobs completed so far
	Jobs      int     // jobs in the trace
	Now       float64 // seconds of trace time
	Ended     bool    // the replay is over
}

// Degree modes.
const (
	DegreeTrace  = "trace"
	DegreePolicy = "policy"
)

// Schedule modes.
const (
	scheduleEvents = "events"
	ScheduleRounds = "rounds"
)

// DefaultOptions are Gavel's round length (360 s), a 30 s restart penalty
// (our choice: the order of a checkpoint restore and warm-up of the
// measured workloads), two jobs per GPU.
var DefaultOptions = Options{Round: 360, RestartPenalty: 30, MaxPerGPU: 2, MaxEvents: 10_000_000}

func (o Options) validate() error {
	switch {
	case o.Round < 0 || math.IsNaN(o.Round) || math.IsInf(o.Round, 0):
		return fmt.Errorf("round %v s: want a finite length >= 0 (0: no rounds)", o.Round)
	case o.RestartPenalty < 0 || math.IsNaN(o.RestartPenalty) || math.IsInf(o.RestartPenalty, 0):
		return fmt.Errorf("restart penalty %v s: want a finite time >= 0", o.RestartPenalty)
	case o.MaxPerGPU != 1 && o.MaxPerGPU != 2:
		return fmt.Errorf("max jobs per GPU %d: want 1 or 2 (the data measure pairs only)", o.MaxPerGPU)
	case o.MaxEvents < 1:
		return fmt.Errorf("max events %d: want >= 1", o.MaxEvents)
	case o.Degree != "" && o.Degree != DegreeTrace && o.Degree != DegreePolicy:
		return fmt.Errorf("degree %q: want %s or %s", o.Degree, DegreeTrace, DegreePolicy)
	case o.Schedule != "" && o.Schedule != scheduleEvents && o.Schedule != ScheduleRounds:
		return fmt.Errorf("schedule %q: want %s or %s", o.Schedule, scheduleEvents, ScheduleRounds)
	case o.Schedule == ScheduleRounds && o.Round <= 0:
		return fmt.Errorf("schedule %s needs a round length > 0", ScheduleRounds)
	case o.MaxDegree < 0:
		return fmt.Errorf("max degree %d: want >= 0 (0: the trace's request)", o.MaxDegree)
	}
	return nil
}

// placementError is a plan the simulator refused: a policy bug.
type placementError struct {
	Policy   string
	Time     float64
	Job      int
	Workload string
	Msg      string
}

func (e *placementError) Error() string {
	return fmt.Sprintf("policy %s at t=%g s: job %d (%s): %s", e.Policy, e.Time, e.Job, e.Workload, e.Msg)
}

// errStalled is wrapped by the error of a run in which jobs wait on an idle
// cluster with nothing left to happen.
var errStalled = errors.New("stalled")

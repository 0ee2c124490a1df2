package profile

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// WindowOptions control warm-up detection and the steady window (the rule
// is in doc.go).
type WindowOptions struct {
	// MinWarmup is discarded after the first step in any case (--warmup).
	MinWarmup time.Duration
	// Span is the number of step times in each of the two running medians
	// compared.
	Span int
	// Tolerance is the largest relative difference of the two medians at
	// which the step time counts as settled.
	Tolerance float64
	// MinSteps is the fewest steps a window must hold to give a value.
	MinSteps int
}

// DefaultWindowOptions are the defaults of `coloc profile run`.
var DefaultWindowOptions = WindowOptions{
	MinWarmup: 5 * time.Second,
	Span:      5,
	Tolerance: 0.10,
	MinSteps:  5,
}

// warmup finds where the steady state of a step stream starts: the index of
// the first step at which at least MinWarmup has passed since the first step
// and the median of the last Span step times is within Tolerance of the
// median of the Span step times before them. settled is false when no step
// qualifies; the start is then the first step past both MinWarmup and half
// the stream's time span, and the caller says so in a warning. It returns -1
// when the stream has fewer than two steps.
func warmup(steps []step, o WindowOptions) (start int, settled bool) {
	if len(steps) < 2 {
		return -1, false
	}
	span := max(o.Span, 1)
	t0 := steps[0].Time
	minT := t0 + o.MinWarmup.Seconds()
	dur := make([]float64, len(steps)) // dur[i] = step i's time; dur[0] unknown
	for i := 1; i < len(steps); i++ {
		dur[i] = steps[i].Time - steps[i-1].Time
	}
	for k := 2 * span; k < len(steps); k++ {
		if steps[k].Time < minT {
			continue
		}
		m1 := median(dur[k-span+1 : k+1])
		m0 := median(dur[k-2*span+1 : k-span+1])
		if m0 > 0 && abs(m1-m0) <= o.Tolerance*m0 {
			return k, true
		}
	}
	half := t0 + (steps[len(steps)-1].Time-t0)/2
	from := max(minT, half)
	for i, st := range steps {
		if st.Time >= from {
			return i, false
		}
	}
	return len(steps) - 1, false
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// measurement is the throughput of one workload over a window.
type measurement struct {
	Throughput float64 // samples/s
	Steps      int64   // steps inside the window
	Samples    int64
	WindowS    float64 // seconds from the window's first to its last step
	StepTime   float64 // seconds per step
	// From and To are the window's first and last step on the run's clock
	// (seconds since the run started).
	From, To float64
}

// errShortWindow is wrapped by measure's error when a window holds too few
// steps.
var errShortWindow = errors.New("steady window too short")

// measure computes the throughput over the steps whose time, shifted by
// offset, lies in [from, to]: samples between the window's first and last
// step over the time between them. The window must hold at least minSteps
// steps.
func measure(steps []step, offset, from, to float64, minSteps int) (measurement, error) {
	a, b := -1, -1
	for i, st := range steps {
		t := st.Time + offset
		if t < from {
			continue
		}
		if t > to {
			break
		}
		if a < 0 {
			a = i
		}
		b = i
	}
	n := int64(0)
	if a >= 0 {
		n = steps[b].Step - steps[a].Step
	}
	if a < 0 || n < int64(max(minSteps, 1)) || steps[b].Time <= steps[a].Time {
		return measurement{}, fmt.Errorf("%w: %d steps in %.3gs (want at least %d; raise --duration or lower --warmup)",
			errShortWindow, n, max(to-from, 0), max(minSteps, 1))
	}
	m := measurement{
		Steps:   n,
		Samples: steps[b].Samples - steps[a].Samples,
		WindowS: steps[b].Time - steps[a].Time,
		From:    steps[a].Time + offset,
		To:      steps[b].Time + offset,
	}
	m.Throughput = float64(m.Samples) / m.WindowS
	m.StepTime = m.WindowS / float64(n)
	return m, nil
}

// span is the part of a workload's run, on the run's clock, over which it
// can be measured: from the end of its warm-up to its last step. A command
// measured by wall time spans its whole life.
type span struct {
	From, To float64
	Settled  bool
}

// steadySpan returns the steady span of a stream on the run's clock.
func steadySpan(s *lineStream, o WindowOptions) (span, bool) {
	k, settled := warmup(s.Steps, o)
	if k < 0 {
		return span{}, false
	}
	off := s.Offset()
	return span{From: s.Steps[k].Time + off, To: s.Steps[len(s.Steps)-1].Time + off, Settled: settled}, true
}

// overlap is the window where every span runs: the latest start to the
// earliest end. ok is false when they do not overlap.
func overlap(spans ...span) (from, to float64, ok bool) {
	if len(spans) == 0 {
		return 0, 0, false
	}
	from, to = spans[0].From, spans[0].To
	for _, s := range spans[1:] {
		from = max(from, s.From)
		to = min(to, s.To)
	}
	return from, to, to > from
}

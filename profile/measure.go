package profile

import (
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
)

// evaluate turns the exits of a run's processes into one sideRecord per
// workload: status, throughput over the steady window (for a pair, the
// window where both are steady), peak memory and error text. warns gathers
// what did not stop the measurement.
//
// A side fails only when its process crashed, timed out, gave fewer than
// two steps or reported impossible values. A step time that never settles,
// or a steady window too short to measure, is not a failure: the side is
// measured over the best window it has (from the end of its warm-up, else
// its whole stream of steps) and marked unsettled with a wider uncertainty
// (see unsettledSpread).
func evaluate(wls []workload, exits []*exit, pair bool, o WindowOptions, warns []string) ([]sideRecord, []string) {
	sides := make([]sideRecord, len(exits))
	spans := make([]span, len(exits))
	whole := make([]span, len(exits))
	for i, e := range exits {
		s, w := &sides[i], wls[i]
		s.Workload, s.Label, s.Meta, s.WallS = w.Name, e.Label, e.Stream.Meta, e.Wall
		if n := len(e.Stream.Steps); n > 0 {
			s.Steps = e.Stream.Steps[n-1].Step
		}
		if pm, ok := e.Stream.PeakMemory(); ok {
			s.PeakMemory = &pm
		}
		for _, msg := range e.Stream.Warnings() {
			warns = append(warns, e.Label+": "+msg)
		}
		if msg := failure(w, e); msg != "" {
			s.fail(msg)
			continue
		}
		if w.Protocol == protocolNone {
			s.Steps = int64(w.Steps)
			spans[i] = span{From: 0, To: e.Wall, Settled: true}
			whole[i] = spans[i]
			continue
		}
		spans[i], _ = steadySpan(e.Stream, o)
		off := e.Stream.Offset()
		whole[i] = span{From: e.Stream.Steps[0].Time + off, To: e.Stream.Steps[len(e.Stream.Steps)-1].Time + off}
	}
	if failPartners(sides) {
		return sides, warns
	}
	from, to := spans[0].From, spans[0].To
	wholeFrom, wholeTo := whole[0].From, whole[0].To
	steady := true
	if pair {
		var ok bool
		if wholeFrom, wholeTo, ok = overlap(whole...); !ok {
			for i := range sides {
				sides[i].fail("the two workloads never ran at the same time (one ended before the other's first step; raise --duration)")
			}
			return sides, warns
		}
		if from, to, ok = overlap(spans...); !ok {
			steady = false
		}
	}
	for i, e := range exits {
		s, w := &sides[i], wls[i]
		if w.Protocol == protocolNone {
			s.set(measurement{
				Throughput: float64(w.Steps*w.BatchSize) / e.Wall,
				Steps:      int64(w.Steps),
				Samples:    int64(w.Steps * w.BatchSize),
				WindowS:    e.Wall,
				StepTime:   e.Wall / float64(w.Steps),
				From:       0,
				To:         e.Wall,
			}, true, 0)
			if pair {
				warns = append(warns, fmt.Sprintf("%s: protocol none, measured by wall time over its whole run, start-up included", e.Label))
			}
			continue
		}
		settled := steady && spans[i].Settled
		var m measurement
		err := errShortWindow
		if steady {
			m, err = measure(e.Stream.Steps, e.Stream.Offset(), from, to, o.MinSteps)
		}
		if err != nil {
			settled = false
			m, err = measure(e.Stream.Steps, e.Stream.Offset(), wholeFrom, wholeTo, 1)
		}
		if err != nil && pair {
			s.fail("the two workloads did not run together for two of its steps (one ended first; raise --duration): " + err.Error())
			continue
		}
		if err != nil {
			s.fail(err.Error())
			continue
		}
		spread := 0.0
		if !settled {
			spread = unsettledSpread(e.Stream.Steps, e.Stream.Offset(), m, o.Tolerance)
		}
		s.set(m, settled, spread)
	}
	failPartners(sides)
	return sides, warns
}

// unsettledSpread is the relative uncertainty given to the value of an
// unsettled side: the relative difference between the throughputs of the
// two halves of its window (how far the rate still moved), and never less
// than the tolerance it failed to meet. A window whose halves cannot both
// be measured is fully uncertain (1).
func unsettledSpread(steps []step, offset float64, m measurement, tol float64) float64 {
	mid := (m.From + m.To) / 2
	a, errA := measure(steps, offset, m.From, mid, 1)
	b, errB := measure(steps, offset, mid, m.To, 1)
	if errA != nil || errB != nil {
		return 1
	}
	d := abs(a.Throughput-b.Throughput) / ((a.Throughput + b.Throughput) / 2)
	return min(max(d, tol), 1)
}

// failPartners marks every side failed when one is: a pair's value means
// nothing once one of its workloads stopped. It reports whether any failed.
func failPartners(sides []sideRecord) bool {
	var bad *sideRecord
	for i := range sides {
		if sides[i].Status == datasets.StatusFailed {
			bad = &sides[i]
			break
		}
	}
	if bad == nil {
		return false
	}
	for i := range sides {
		if sides[i].Status != datasets.StatusFailed {
			sides[i].fail(fmt.Sprintf("%s%s failed", partnerFailed, bad.Label))
		}
	}
	return true
}

// The errors of a side that failed only because its partner did.
const (
	partnerFailed     = "partner "
	stoppedForPartner = "stopped by the harness when its partner failed"
)

// failure says why a process's run cannot give a value, "" when it can.
func failure(w workload, e *exit) string {
	tail := ""
	if e.StderrTail != "" {
		tail = "; stderr:\n" + e.StderrTail
	}
	switch {
	case e.TimedOut:
		return fmt.Sprintf("timed out after %.0fs and was killed%s", e.Wall, tail)
	case e.Stopped:
		return stoppedForPartner
	case e.Err != nil && e.OOM:
		return fmt.Sprintf("out of memory (%v)%s", e.Err, tail)
	case e.Err != nil:
		return fmt.Sprintf("%v%s", e.Err, tail)
	case e.Stream.Err != nil:
		return e.Stream.Err.Error()
	case w.Protocol == protocolColoc && len(e.Stream.Steps) == 0:
		msg := "exited without a protocol step line on stdout"
		if e.Stream.Ignored > 0 {
			msg += fmt.Sprintf(" (%d other lines; a command that does not speak the protocol needs protocol: none and steps)", e.Stream.Ignored)
		}
		return msg + tail
	case w.Protocol == protocolColoc && len(e.Stream.Steps) == 1:
		return "exited after one protocol step line: no step time to measure (raise --duration)"
	}
	return ""
}

func (s *sideRecord) fail(msg string) {
	s.Status = datasets.StatusFailed
	s.Error = strings.TrimSpace(msg)
	s.Throughput, s.WindowS, s.StepTime = nil, nil, nil
	s.Settled, s.Spread, s.WindowFrom, s.WindowTo = nil, nil, nil, nil
}

// set records a measurement; an unsettled one carries its relative
// uncertainty spread.
func (s *sideRecord) set(m measurement, settled bool, spread float64) {
	s.Status = datasets.StatusOK
	s.Throughput, s.WindowS, s.StepTime = &m.Throughput, &m.WindowS, &m.StepTime
	s.WindowFrom, s.WindowTo = &m.From, &m.To
	s.Settled = &settled
	if !settled {
		s.Spread = &spread
	}
}

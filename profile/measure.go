package profile

import (
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
)

// evaluate turns the exits of a run's processes into one SideRecord per
// workload: status, throughput over the steady window (for a pair, the
// window where both are steady), peak memory and error text. warns gathers
// what did not stop the measurement.
func evaluate(wls []Workload, exits []*Exit, pair bool, o WindowOptions, warns []string) ([]SideRecord, []string) {
	sides := make([]SideRecord, len(exits))
	spans := make([]Span, len(exits))
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
		if w.Protocol == ProtocolNone {
			s.Steps = int64(w.Steps)
			spans[i] = Span{From: 0, To: e.Wall, Settled: true}
			continue
		}
		sp, _ := SteadySpan(e.Stream, o)
		if !sp.Settled {
			warns = append(warns, fmt.Sprintf("%s: step time never settled within ±%g%%; measured from %.1fs to %.1fs of the run",
				e.Label, 100*o.Tolerance, sp.From, sp.To))
		}
		spans[i] = sp
	}
	if failPartners(sides) {
		return sides, warns
	}
	from, to := spans[0].From, spans[0].To
	if pair {
		var ok bool
		if from, to, ok = Overlap(spans...); !ok {
			for i := range sides {
				sides[i].fail("the two workloads were never in steady state at the same time (raise --duration)")
			}
			return sides, warns
		}
	}
	for i, e := range exits {
		s, w := &sides[i], wls[i]
		if w.Protocol == ProtocolNone {
			s.set(Measurement{
				Throughput: float64(w.Steps*w.BatchSize) / e.Wall,
				Steps:      int64(w.Steps),
				Samples:    int64(w.Steps * w.BatchSize),
				WindowS:    e.Wall,
				StepTime:   e.Wall / float64(w.Steps),
			})
			if pair {
				warns = append(warns, fmt.Sprintf("%s: protocol none, measured by wall time over its whole run, start-up included", e.Label))
			}
			continue
		}
		m, err := Measure(e.Stream.Steps, e.Stream.Offset(), from, to, o.MinSteps)
		if err != nil {
			s.fail(err.Error())
			continue
		}
		s.set(m)
	}
	failPartners(sides)
	return sides, warns
}

// failPartners marks every side failed when one is: a pair's value means
// nothing once one of its workloads stopped. It reports whether any failed.
func failPartners(sides []SideRecord) bool {
	var bad *SideRecord
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
			sides[i].fail(fmt.Sprintf("partner %s failed", bad.Label))
		}
	}
	return true
}

// failure says why a process's run cannot give a value, "" when it can.
func failure(w Workload, e *Exit) string {
	tail := ""
	if e.StderrTail != "" {
		tail = "; stderr:\n" + e.StderrTail
	}
	switch {
	case e.TimedOut:
		return fmt.Sprintf("timed out after %.0fs and was killed%s", e.Wall, tail)
	case e.Stopped:
		return "stopped by the harness when its partner failed"
	case e.Err != nil && e.OOM:
		return fmt.Sprintf("out of memory (%v)%s", e.Err, tail)
	case e.Err != nil:
		return fmt.Sprintf("%v%s", e.Err, tail)
	case w.Protocol == ProtocolColoc && len(e.Stream.Steps) == 0:
		msg := "exited without a protocol step line on stdout"
		if e.Stream.Ignored > 0 {
			msg += fmt.Sprintf(" (%d other lines; a command that does not speak the protocol needs protocol: none and steps)", e.Stream.Ignored)
		}
		return msg + tail
	}
	return ""
}

func (s *SideRecord) fail(msg string) {
	s.Status = datasets.StatusFailed
	s.Error = strings.TrimSpace(msg)
	s.Throughput, s.WindowS, s.StepTime = nil, nil, nil
}

func (s *SideRecord) set(m Measurement) {
	s.Status = datasets.StatusOK
	s.Throughput, s.WindowS, s.StepTime = &m.Throughput, &m.WindowS, &m.StepTime
}

package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
)

// meta is the first protocol line of a workload: what it trains.
type meta struct {
	Model          string         `json:"model"`
	Class          string         `json:"class"`
	Params         int64          `json:"params"`
	FlopsPerSample *float64       `json:"flops_per_sample"`
	Layers         map[string]int `json:"layers,omitempty"`
	BatchSize      int            `json:"batch_size"`
	Precision      string         `json:"precision"`
	Device         string         `json:"device"`
	WorldSize      int            `json:"world_size"`
	Torch          string         `json:"torch"`
}

// step is one step line. Time is the workload's clock (time.monotonic()
// seconds); Recv is when the harness read the line, in seconds since the run
// started. Samples is cumulative over all ranks.
type step struct {
	Step    int64
	Samples int64
	Time    float64
	Recv    float64
}

// end is the last protocol line of a normal exit.
type end struct {
	Steps           int64    `json:"steps"`
	Samples         int64    `json:"samples"`
	Time            float64  `json:"time"`
	PeakMemoryBytes *float64 `json:"peak_memory_bytes"`
}

// maxKeptIgnored bounds the ignored lines quoted in warnings.
const maxKeptIgnored = 3

// lineStream collects the protocol lines of one workload process as they
// arrive. It is not safe for concurrent use: one goroutine feeds it, and it
// is read after that goroutine is done.
type lineStream struct {
	Meta  *meta
	Steps []step
	End   *end
	// Ignored counts lines that were not protocol lines (not JSON, unknown
	// type, malformed or out of order); the first few are kept for warnings.
	Ignored     int
	ignoredText []string
	// Err is the first impossible value a protocol line reported (a
	// negative count or memory, NaN or infinity) or an overlong line; the
	// run of a stream with Err fails with it as the reason.
	Err   error
	lines int
}

// maxLineBytes bounds one stdout line of a workload; a longer line fails
// the run (a protocol line is a few hundred bytes).
const maxLineBytes = 1 << 20

// nonFinite finds the NaN and infinity tokens Python's json module writes
// for non-finite floats, which are not JSON.
var nonFinite = regexp.MustCompile(`[:\[,]\s*-?(NaN|Infinity)\s*[,}\]]`)

// TooLong records that stdout line n+1 exceeded maxLineBytes.
func (s *lineStream) TooLong() {
	s.lines++
	s.bad(fmt.Errorf("stdout line %d is longer than %d bytes: not a protocol line (a workload must print one JSON object per line)", s.lines, maxLineBytes))
}

func (s *lineStream) bad(err error) {
	if s.Err == nil {
		s.Err = err
	}
}

// Line parses one stdout line read at recv seconds since the run started.
// Lines that are not protocol lines are counted, never fatal.
//
// A protocol line that reports an impossible value sets Err.
func (s *lineStream) Line(line []byte, recv float64) {
	s.lines++
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var head struct {
		Type string `json:"type"`
	}
	if line[0] != '{' || json.Unmarshal(line, &head) != nil {
		if line[0] == '{' && nonFinite.Match(line) {
			s.bad(fmt.Errorf("stdout line %d reports a non-finite value (NaN or Infinity): %s", s.lines, clip(line)))
			return
		}
		s.ignore(line, "not JSON")
		return
	}
	switch head.Type {
	case "meta":
		var m meta
		if err := json.Unmarshal(line, &m); err != nil {
			s.ignore(line, err.Error())
			return
		}
		if msg := m.check(); msg != "" {
			s.bad(fmt.Errorf("stdout line %d: meta line %s", s.lines, msg))
			return
		}
		if s.Meta == nil {
			s.Meta = &m
		}
	case "step":
		var v struct {
			Step    *int64   `json:"step"`
			Samples *int64   `json:"samples"`
			Time    *float64 `json:"time"`
		}
		if err := json.Unmarshal(line, &v); err != nil || v.Step == nil || v.Samples == nil || v.Time == nil {
			s.ignore(line, "step line needs step, samples and time")
			return
		}
		if *v.Step < 0 || *v.Samples < 0 {
			s.bad(fmt.Errorf("stdout line %d: step line with a negative step (%d) or samples (%d)", s.lines, *v.Step, *v.Samples))
			return
		}
		st := step{Step: *v.Step, Samples: *v.Samples, Time: *v.Time, Recv: recv}
		if n := len(s.Steps); n > 0 {
			prev := s.Steps[n-1]
			if st.Time < prev.Time || st.Samples < prev.Samples || st.Step <= prev.Step {
				s.ignore(line, "goes backwards")
				return
			}
		}
		s.Steps = append(s.Steps, st)
	case "end":
		var e end
		if err := json.Unmarshal(line, &e); err != nil {
			s.ignore(line, err.Error())
			return
		}
		if e.Steps < 0 || e.Samples < 0 || (e.PeakMemoryBytes != nil && *e.PeakMemoryBytes < 0) {
			pm := "null"
			if e.PeakMemoryBytes != nil {
				pm = fmt.Sprint(*e.PeakMemoryBytes)
			}
			s.bad(fmt.Errorf("stdout line %d: end line with a negative value (steps %d, samples %d, peak_memory_bytes %s)", s.lines, e.Steps, e.Samples, pm))
			return
		}
		s.End = &e
	default:
		s.ignore(line, fmt.Sprintf("unknown type %q", head.Type))
	}
}

// check says what is impossible in a meta line, "" when nothing.
func (m *meta) check() string {
	switch {
	case m.Params < 0:
		return fmt.Sprintf("has negative params (%d)", m.Params)
	case m.FlopsPerSample != nil && *m.FlopsPerSample < 0:
		return fmt.Sprintf("has negative flops_per_sample (%g)", *m.FlopsPerSample)
	case m.BatchSize < 0:
		return fmt.Sprintf("has a negative batch_size (%d)", m.BatchSize)
	case m.WorldSize < 0:
		return fmt.Sprintf("has a negative world_size (%d)", m.WorldSize)
	}
	for k, v := range m.Layers {
		if v < 0 {
			return fmt.Sprintf("has a negative count of %q layers (%d)", k, v)
		}
	}
	return ""
}

func (s *lineStream) ignore(line []byte, why string) {
	s.Ignored++
	if len(s.ignoredText) < maxKeptIgnored {
		s.ignoredText = append(s.ignoredText, fmt.Sprintf("%q (%s)", clip(line), why))
	}
}

// clip shortens a line for a message.
func clip(line []byte) []byte {
	if len(line) > 80 {
		return append(line[:77:77], "..."...)
	}
	return line
}

// Warnings describes the ignored lines and a missing end line.
func (s *lineStream) Warnings() []string {
	var out []string
	if s.Ignored > 0 {
		w := fmt.Sprintf("%d stdout lines ignored (not protocol lines), e.g. ", s.Ignored)
		for i, t := range s.ignoredText {
			if i > 0 {
				w += ", "
			}
			w += t
		}
		out = append(out, w)
	}
	if len(s.Steps) > 0 && s.Meta == nil {
		out = append(out, "no meta line")
	}
	return out
}

// PeakMemory returns the end line's peak device memory in bytes, or false.
func (s *lineStream) PeakMemory() (float64, bool) {
	if s.End == nil || s.End.PeakMemoryBytes == nil {
		return 0, false
	}
	return *s.End.PeakMemoryBytes, true
}

// Offset maps the workload's clock onto the run's: Time + Offset ≈ Recv.
// It is the smallest Recv - Time over the steps, the reading least delayed
// by pipes and scheduling, so two workloads on one host (whose clocks may
// have different origins) can be compared. It is 0 without steps.
func (s *lineStream) Offset() float64 {
	if len(s.Steps) == 0 {
		return 0
	}
	off := s.Steps[0].Recv - s.Steps[0].Time
	for _, st := range s.Steps[1:] {
		off = min(off, st.Recv-st.Time)
	}
	return off
}

package datasets

import "time"

// Counter names one counter column of a samples table and its unit, e.g.
// {"gpu_util", "%"} or {"power", "W"}.
type Counter struct {
	Name string
	Unit string
}

// Samples accumulates rows of a samples table: one row per sampling tick of
// a device (Workload "") or of one workload's processes on it. It owns its
// columns; Table returns them without copying, so a Samples must not be
// appended to after Table is called unless Reset is called first.
type Samples struct {
	t        *Table
	counters []*Column
	run      *Column
	dev      *Column
	wl       *Column
	ts       *Column
}

// NewSamples returns an empty samples buffer with the given counters, in
// that column order after run_id, device, workload and timestamp.
func NewSamples(counters []Counter) *Samples {
	s := &Samples{t: NewTable(KindSamples)}
	w := rowWriter{s.t}
	s.run = w.strs("run_id", UnitNone, 0)
	s.dev = w.ints("device", UnitIndex, 0)
	s.wl = w.strs("workload", UnitNone, 0)
	s.ts = w.times("timestamp", 0)
	for _, c := range counters {
		s.counters = append(s.counters, w.floats(c.Name, c.Unit, 0))
	}
	return s
}

// Append adds one row. values is aligned with the counters given to
// NewSamples; NaN means the counter was not read this tick. It panics if
// values has the wrong length (a programming error).
func (s *Samples) Append(runID string, device int, workload string, at time.Time, values []float64) {
	if len(values) != len(s.counters) {
		panic("datasets: Samples.Append: wrong number of values")
	}
	s.run.AppendString(runID, false)
	s.dev.AppendInt(int64(device), false)
	s.wl.AppendString(workload, workload == "")
	s.ts.AppendInt(at.UnixNano(), false)
	for i, c := range s.counters {
		c.AppendFloat(values[i])
	}
}

// Len returns the number of rows buffered.
func (s *Samples) Len() int { return s.t.Len() }

// Table returns the buffered rows as a table (sharing memory).
func (s *Samples) Table() *Table { return s.t }

// Reset drops the buffered rows, keeping the columns.
func (s *Samples) Reset() {
	for _, c := range s.t.Columns {
		c.Str, c.Int, c.Float, c.Null = c.Str[:0], c.Int[:0], c.Float[:0], nil
	}
}

package datasets

import (
	"fmt"
	"time"
)

// Run is one execution of a workload: solo, as one side of a pair, or at a
// parallel degree. Throughput, WindowS and PeakMemory are NaN when unknown;
// Throughput is known exactly when Status is ok.
//
// Settled is SettledYes when the step time settled before the measuring
// window, SettledNo when it never did (the value was measured over the best
// window available and is less certain), "" when unknown (a failed run, or
// a version-1 file). WindowStart and WindowEnd bound the measuring window
// on the wall clock; zero when unknown. Shared names what else ran on the
// run's GPUs (another tenant's processes), "" when nothing was seen or
// could be (a CPU run, a version-1 or version-2 file).
type Run struct {
	Campaign               string
	RunID                  string
	Mode                   string // ModeSolo, ModePair, ModeScale
	Workload               string
	Partner                string // pair runs only
	DeviceType             string
	DeviceIDs              string // comma-separated indices
	Degree                 int
	ShareMode              string
	Repeat                 int
	Start, End             time.Time
	Steps                  int64
	Throughput             float64
	WindowS                float64
	PeakMemory             float64
	Status                 string
	Error                  string
	Settled                string
	WindowStart, WindowEnd time.Time
	Shared                 string
}

// RunsTable is the typed view of a runs table.
type RunsTable struct {
	ThroughputUnit string
	Rows           []Run
}

// RunsFrom converts a valid runs table.
func RunsFrom(t *Table) (*RunsTable, error) {
	if t.Kind != KindRuns {
		return nil, fmt.Errorf("table is %s, want %s", t.Kind, KindRuns)
	}
	out := &RunsTable{ThroughputUnit: t.Column("throughput").Unit, Rows: make([]Run, t.Len())}
	r := rowReader{t}
	for i := range out.Rows {
		out.Rows[i] = Run{
			Campaign:   r.str("campaign", i),
			RunID:      r.str("run_id", i),
			Mode:       r.str("mode", i),
			Workload:   r.str("workload", i),
			Partner:    r.str("partner", i),
			DeviceType: r.str("device_type", i),
			DeviceIDs:  r.str("device_ids", i),
			Degree:     int(r.int("degree", i)),
			ShareMode:  r.str("share_mode", i),
			Repeat:     int(r.int("repeat", i)),
			Start:      time.Unix(0, r.int("start_time", i)).UTC(),
			End:        time.Unix(0, r.int("end_time", i)).UTC(),
			Steps:      r.int("steps", i),
			Throughput: r.float("throughput", i),
			WindowS:    r.float("window_s", i),
			PeakMemory: r.float("peak_memory", i),
			Status:     r.str("status", i),
			Error:      r.str("error", i),
			Settled:    r.str("settled", i),
			Shared:     r.str("shared", i),
		}
		if c := t.Column("window_start"); c != nil && !c.IsNull(i) {
			out.Rows[i].WindowStart = time.Unix(0, c.Int[i]).UTC()
		}
		if c := t.Column("window_end"); c != nil && !c.IsNull(i) {
			out.Rows[i].WindowEnd = time.Unix(0, c.Int[i]).UTC()
		}
	}
	return out, nil
}

// Table converts the runs to a table (all columns, nulls where unknown).
func (rt *RunsTable) Table() *Table {
	unit := rt.ThroughputUnit
	if unit == "" {
		unit = UnitSamplesPerS
	}
	n := len(rt.Rows)
	t := NewTable(KindRuns)
	w := rowWriter{t}
	cm := w.strs("campaign", UnitNone, n)
	id := w.strs("run_id", UnitNone, n)
	md := w.strs("mode", UnitNone, n)
	wl := w.strs("workload", UnitNone, n)
	pa := w.strs("partner", UnitNone, n)
	dt := w.strs("device_type", UnitNone, n)
	di := w.strs("device_ids", UnitNone, n)
	dg := w.ints("degree", UnitGPUs, n)
	sm := w.strs("share_mode", UnitNone, n)
	rp := w.ints("repeat", UnitIndex, n)
	st := w.times("start_time", n)
	en := w.times("end_time", n)
	sp := w.ints("steps", UnitSteps, n)
	tp := w.floats("throughput", unit, n)
	ws := w.floats("window_s", UnitSeconds, n)
	pm := w.floats("peak_memory", UnitBytes, n)
	ss := w.strs("status", UnitNone, n)
	er := w.strs("error", UnitNone, n)
	se := w.strs("settled", UnitNone, n)
	wa := w.times("window_start", n)
	wb := w.times("window_end", n)
	sh := w.strs("shared", UnitNone, n)
	for _, r := range rt.Rows {
		cm.AppendString(r.Campaign, false)
		id.AppendString(r.RunID, false)
		md.AppendString(r.Mode, false)
		wl.AppendString(r.Workload, false)
		pa.AppendString(r.Partner, r.Partner == "")
		dt.AppendString(r.DeviceType, false)
		di.AppendString(r.DeviceIDs, false)
		dg.AppendInt(int64(r.Degree), false)
		sm.AppendString(r.ShareMode, false)
		rp.AppendInt(int64(r.Repeat), false)
		st.AppendInt(r.Start.UnixNano(), false)
		en.AppendInt(r.End.UnixNano(), false)
		sp.AppendInt(r.Steps, false)
		tp.AppendFloat(r.Throughput)
		ws.AppendFloat(r.WindowS)
		pm.AppendFloat(r.PeakMemory)
		ss.AppendString(r.Status, false)
		er.AppendString(r.Error, r.Error == "")
		se.AppendString(r.Settled, r.Settled == "")
		wa.AppendInt(r.WindowStart.UnixNano(), r.WindowStart.IsZero())
		wb.AppendInt(r.WindowEnd.UnixNano(), r.WindowEnd.IsZero())
		sh.AppendString(r.Shared, r.Shared == "")
	}
	return t
}

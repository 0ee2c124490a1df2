package datasets

import (
	"fmt"
	"math"
)

// Scale is the throughput of a workload trained data-parallel over Degree
// GPUs on Nodes nodes with a per-GPU batch size. NaN float fields and zero
// BatchSize are unknown.
type Scale struct {
	Workload   string
	DeviceType string
	Degree     int
	Nodes      int
	BatchSize  int
	Placement  string // GPUs per node, one digit a node; "" if unknown
	Throughput float64
	StepTime   float64 // seconds per iteration
	SyncTime   float64 // seconds of gradient synchronisation per iteration
	Source     string
}

// ScalingTable is the typed view of a scaling table.
type ScalingTable struct {
	ThroughputUnit string
	Rows           []Scale
}

// ScalingFrom converts a valid scaling table.
func ScalingFrom(t *Table) (*ScalingTable, error) {
	if t.Kind != KindScaling {
		return nil, fmt.Errorf("table is %s, want %s", t.Kind, KindScaling)
	}
	out := &ScalingTable{ThroughputUnit: t.Column("throughput").Unit, Rows: make([]Scale, t.Len())}
	r := rowReader{t}
	for i := range out.Rows {
		out.Rows[i] = Scale{
			Workload:   r.str("workload", i),
			DeviceType: r.str("device_type", i),
			Degree:     int(r.int("degree", i)),
			Nodes:      int(r.int("nodes", i)),
			BatchSize:  int(r.int("batch_size", i)),
			Placement:  r.str("placement", i),
			Throughput: r.float("throughput", i),
			StepTime:   r.float("step_time", i),
			SyncTime:   r.float("sync_time", i),
			Source:     r.str("source", i),
		}
	}
	return out, nil
}

// Table converts the rows to a table.
func (s *ScalingTable) Table() *Table {
	unit := s.ThroughputUnit
	if unit == "" {
		unit = UnitSamplesPerS
	}
	n := len(s.Rows)
	var anyPl, anyStep, anySync bool
	for _, r := range s.Rows {
		anyPl = anyPl || r.Placement != ""
		anyStep = anyStep || !math.IsNaN(r.StepTime)
		anySync = anySync || !math.IsNaN(r.SyncTime)
	}
	t := NewTable(KindScaling)
	w := rowWriter{t}
	wl := w.strs("workload", UnitNone, n)
	dt := w.strs("device_type", UnitNone, n)
	dg := w.ints("degree", UnitGPUs, n)
	nd := w.ints("nodes", UnitNodes, n)
	bs := w.ints("batch_size", UnitSamples, n)
	var pl, st, sy *Column
	if anyPl {
		pl = w.strs("placement", UnitNone, n)
	}
	tp := w.floats("throughput", unit, n)
	if anyStep {
		st = w.floats("step_time", UnitSeconds, n)
	}
	if anySync {
		sy = w.floats("sync_time", UnitSeconds, n)
	}
	src := w.strs("source", UnitNone, n)
	for _, r := range s.Rows {
		wl.AppendString(r.Workload, false)
		dt.AppendString(r.DeviceType, false)
		dg.AppendInt(int64(r.Degree), false)
		nd.AppendInt(int64(r.Nodes), false)
		bs.AppendInt(int64(r.BatchSize), r.BatchSize <= 0)
		if anyPl {
			pl.AppendString(r.Placement, r.Placement == "")
		}
		tp.AppendFloat(r.Throughput)
		if anyStep {
			st.AppendFloat(r.StepTime)
		}
		if anySync {
			sy.AppendFloat(r.SyncTime)
		}
		src.AppendString(r.Source, false)
	}
	return t
}

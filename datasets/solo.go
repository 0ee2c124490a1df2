package datasets

import (
	"fmt"
	"math"
)

// Feature names an extra numeric column of the solo table (a counter
// summary such as sm_util_mean) and its unit.
type Feature struct {
	Name string
	Unit string
}

// Solo is the solo measurement of one workload on one device type at one
// degree. NaN float fields and zero int fields are unknown.
type Solo struct {
	Workload   string
	DeviceType string
	Degree     int
	BatchSize  int // per GPU; 0 if unknown
	Throughput float64
	CILow      float64 // 95% CI of Throughput over repeats
	CIHigh     float64
	Repeats    int
	PeakMemory float64 // bytes
	Source     string
	Features   []float64 // aligned with SoloTable.Features; NaN = missing
}

// SoloTable is the typed view of a solo table.
type SoloTable struct {
	ThroughputUnit string
	Features       []Feature
	Rows           []Solo
}

// SoloFrom converts a valid solo table.
func SoloFrom(t *Table) (*SoloTable, error) {
	if t.Kind != KindSolo {
		return nil, fmt.Errorf("table is %s, want %s", t.Kind, KindSolo)
	}
	spec, _ := SpecFor(KindSolo)
	out := &SoloTable{ThroughputUnit: t.Column("throughput").Unit, Rows: make([]Solo, t.Len())}
	var extra []*Column
	for _, c := range t.Columns {
		if _, ok := spec.Column(c.Name); !ok {
			extra = append(extra, c)
			out.Features = append(out.Features, Feature{Name: c.Name, Unit: c.Unit})
		}
	}
	r := rowReader{t}
	for i := range out.Rows {
		s := Solo{
			Workload:   r.str("workload", i),
			DeviceType: r.str("device_type", i),
			Degree:     int(r.int("degree", i)),
			BatchSize:  int(r.int("batch_size", i)),
			Throughput: r.float("throughput", i),
			CILow:      r.float("throughput_ci_low", i),
			CIHigh:     r.float("throughput_ci_high", i),
			Repeats:    int(r.int("repeats", i)),
			PeakMemory: r.float("peak_memory", i),
			Source:     r.str("source", i),
		}
		if len(extra) > 0 {
			s.Features = make([]float64, len(extra))
			for j, c := range extra {
				s.Features[j] = c.FloatAt(i)
			}
		}
		out.Rows[i] = s
	}
	return out, nil
}

// Feature returns the index of the named feature, or -1.
func (s *SoloTable) Feature(name string) int {
	for i, f := range s.Features {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Table converts the solo rows to a table. Optional columns are written
// only when some row has a value.
func (s *SoloTable) Table() *Table {
	unit := s.ThroughputUnit
	if unit == "" {
		unit = UnitSamplesPerS
	}
	n := len(s.Rows)
	var anyBS, anyCI, anyRep, anyMem bool
	for _, r := range s.Rows {
		anyBS = anyBS || r.BatchSize > 0
		anyCI = anyCI || !math.IsNaN(r.CILow) || !math.IsNaN(r.CIHigh)
		anyRep = anyRep || r.Repeats > 0
		anyMem = anyMem || !math.IsNaN(r.PeakMemory)
	}
	t := NewTable(KindSolo)
	w := rowWriter{t}
	wl := w.strs("workload", UnitNone, n)
	dt := w.strs("device_type", UnitNone, n)
	dg := w.ints("degree", UnitGPUs, n)
	var bs, lo, hi, rep, mem *Column
	if anyBS {
		bs = w.ints("batch_size", UnitSamples, n)
	}
	tp := w.floats("throughput", unit, n)
	if anyCI {
		lo = w.floats("throughput_ci_low", unit, n)
		hi = w.floats("throughput_ci_high", unit, n)
	}
	if anyRep {
		rep = w.ints("repeats", UnitCount, n)
	}
	if anyMem {
		mem = w.floats("peak_memory", UnitBytes, n)
	}
	src := w.strs("source", UnitNone, n)
	feats := make([]*Column, len(s.Features))
	for j, f := range s.Features {
		feats[j] = w.floats(f.Name, f.Unit, n)
	}
	for _, r := range s.Rows {
		wl.AppendString(r.Workload, false)
		dt.AppendString(r.DeviceType, false)
		dg.AppendInt(int64(r.Degree), false)
		if anyBS {
			bs.AppendInt(int64(r.BatchSize), r.BatchSize <= 0)
		}
		tp.AppendFloat(r.Throughput)
		if anyCI {
			lo.AppendFloat(r.CILow)
			hi.AppendFloat(r.CIHigh)
		}
		if anyRep {
			rep.AppendInt(int64(r.Repeats), r.Repeats <= 0)
		}
		if anyMem {
			mem.AppendFloat(r.PeakMemory)
		}
		src.AppendString(r.Source, false)
		for j := range feats {
			v := math.NaN()
			if j < len(r.Features) {
				v = r.Features[j]
			}
			feats[j].AppendFloat(v)
		}
	}
	return t
}

package datasets

import (
	"fmt"
	"math"
)

// Pair is one ordered pair: the throughput of Workload while it shares its
// GPU(s) with Partner. Normalized = Colocated / Solo; it is usually at most
// 1 but may exceed it (noise, clocks) and is never clipped. A float field
// that is NaN is absent (null in the file): the three throughputs of an
// infeasible pair, an unknown confidence interval.
type Pair struct {
	Workload   string
	Partner    string
	DeviceType string
	Degree     int
	Solo       float64
	Colocated  float64
	Normalized float64
	NormLow    float64 // 95% CI of Normalized over repeats; NaN if unknown
	NormHigh   float64
	Repeats    int // 0 if unknown
	Status     string
	Source     string
}

// Measured reports whether the pair carries a trustworthy value: status ok.
// Suspect and infeasible pairs are never used for training or scoring.
func (p Pair) Measured() bool { return p.Status == StatusOK }

// Pairs is the typed view of a pairs table.
type Pairs struct {
	ThroughputUnit string // unit of Solo and Colocated
	Rows           []Pair
}

// PairsFrom converts a valid pairs table.
func PairsFrom(t *Table) (*Pairs, error) {
	if t.Kind != KindPairs {
		return nil, fmt.Errorf("table is %s, want %s", t.Kind, KindPairs)
	}
	out := &Pairs{ThroughputUnit: t.Column("solo_throughput").Unit, Rows: make([]Pair, t.Len())}
	r := rowReader{t}
	for i := range out.Rows {
		out.Rows[i] = Pair{
			Workload:   r.str("workload", i),
			Partner:    r.str("partner", i),
			DeviceType: r.str("device_type", i),
			Degree:     int(r.int("degree", i)),
			Solo:       r.float("solo_throughput", i),
			Colocated:  r.float("colocated_throughput", i),
			Normalized: r.float("normalized_throughput", i),
			NormLow:    r.float("normalized_ci_low", i),
			NormHigh:   r.float("normalized_ci_high", i),
			Repeats:    int(r.int("repeats", i)),
			Status:     r.str("status", i),
			Source:     r.str("source", i),
		}
	}
	return out, nil
}

// Table converts the pairs to a table; optional columns are written only
// when some row has a value for them.
func (p *Pairs) Table() *Table {
	unit := p.ThroughputUnit
	if unit == "" {
		unit = UnitSamplesPerS
	}
	t := NewTable(KindPairs)
	w := rowWriter{t}
	anyCI, anyRep := false, false
	for _, r := range p.Rows {
		anyCI = anyCI || !math.IsNaN(r.NormLow) || !math.IsNaN(r.NormHigh)
		anyRep = anyRep || r.Repeats > 0
	}
	wl := w.strs("workload", UnitNone, len(p.Rows))
	pa := w.strs("partner", UnitNone, len(p.Rows))
	dt := w.strs("device_type", UnitNone, len(p.Rows))
	dg := w.ints("degree", UnitGPUs, len(p.Rows))
	so := w.floats("solo_throughput", unit, len(p.Rows))
	co := w.floats("colocated_throughput", unit, len(p.Rows))
	no := w.floats("normalized_throughput", UnitRatio, len(p.Rows))
	var lo, hi, rep *Column
	if anyCI {
		lo = w.floats("normalized_ci_low", UnitRatio, len(p.Rows))
		hi = w.floats("normalized_ci_high", UnitRatio, len(p.Rows))
	}
	if anyRep {
		rep = w.ints("repeats", UnitCount, len(p.Rows))
	}
	st := w.strs("status", UnitNone, len(p.Rows))
	src := w.strs("source", UnitNone, len(p.Rows))
	for _, r := range p.Rows {
		wl.AppendString(r.Workload, false)
		pa.AppendString(r.Partner, false)
		dt.AppendString(r.DeviceType, false)
		dg.AppendInt(int64(r.Degree), false)
		so.AppendFloat(r.Solo)
		co.AppendFloat(r.Colocated)
		no.AppendFloat(r.Normalized)
		if anyCI {
			lo.AppendFloat(r.NormLow)
			hi.AppendFloat(r.NormHigh)
		}
		if anyRep {
			rep.AppendInt(int64(r.Repeats), r.Repeats <= 0)
		}
		st.AppendString(r.Status, false)
		src.AppendString(r.Source, false)
	}
	return t
}

// rowReader reads typed values of a valid table by column name; a missing
// column or a null reads as "", 0 or NaN.
type rowReader struct{ t *Table }

func (r rowReader) str(name string, i int) string {
	c := r.t.Column(name)
	if c == nil || c.IsNull(i) {
		return ""
	}
	return c.Str[i]
}

func (r rowReader) int(name string, i int) int64 {
	c := r.t.Column(name)
	if c == nil || c.IsNull(i) {
		return 0
	}
	return c.Int[i]
}

func (r rowReader) float(name string, i int) float64 {
	c := r.t.Column(name)
	if c == nil {
		return math.NaN()
	}
	return c.FloatAt(i)
}

// rowWriter adds columns with room for n rows.
type rowWriter struct{ t *Table }

func (w rowWriter) strs(name, unit string, n int) *Column {
	c := w.t.AddColumn(name, String, unit)
	c.Str = make([]string, 0, n)
	return c
}

func (w rowWriter) ints(name, unit string, n int) *Column {
	c := w.t.AddColumn(name, Int, unit)
	c.Int = make([]int64, 0, n)
	return c
}

func (w rowWriter) times(name string, n int) *Column {
	c := w.t.AddColumn(name, Time, UnitNanoseconds)
	c.Int = make([]int64, 0, n)
	return c
}

func (w rowWriter) floats(name, unit string, n int) *Column {
	c := w.t.AddColumn(name, Float, unit)
	c.Float = make([]float64, 0, n)
	return c
}

package sampler

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

type metricKey struct{ section, metric string }

// ncuBuilder gathers kernels and metric values while reading.
type ncuBuilder struct {
	file        string
	format      string
	header      []string
	col         map[string]int
	kernels     []NCUKernel
	kernelIndex map[int64]int
	metrics     []*metricAcc
	metricIndex map[metricKey]int
	warnings    []string
}

// metricAcc accumulates one metric's values and unit.
type metricAcc struct {
	key      metricKey
	unit     string // normalised
	unitLine int
	values   map[int]float64 // kernel index -> value
	text     bool            // a text value was seen: the metric is dropped
}

// kernel returns the index of the kernel of this record, adding it on its
// first record.
func (b *ncuBuilder) kernel(rec []string, r *ncuReader) (int, error) {
	i := b.col[ncuID]
	id, err := strconv.ParseInt(strings.TrimSpace(rec[i]), 10, 64)
	if err != nil {
		return 0, &NCUError{File: b.file, Line: r.line(i), Column: ncuID, Msg: fmt.Sprintf("launch ID %q is not an integer", rec[i])}
	}
	name := rec[b.col[ncuKernelName]]
	if k, ok := b.kernelIndex[id]; ok {
		if b.kernels[k].Name != name {
			return 0, &NCUError{File: b.file, Line: r.line(b.col[ncuKernelName]), Column: ncuKernelName,
				Msg: fmt.Sprintf("launch ID %d is kernel %q here but %q earlier", id, name, b.kernels[k].Name)}
		}
		return k, nil
	}
	k := NCUKernel{ID: id, Name: name}
	str := func(c string) string {
		if j, ok := b.col[c]; ok {
			return rec[j]
		}
		return ""
	}
	integer := func(c string) (int64, error) {
		j, ok := b.col[c]
		if !ok || strings.TrimSpace(rec[j]) == "" {
			return -1, nil
		}
		v, err := strconv.ParseInt(strings.TrimSpace(rec[j]), 10, 64)
		if err != nil {
			return 0, &NCUError{File: b.file, Line: r.line(j), Column: c, Msg: fmt.Sprintf("%q is not an integer", rec[j])}
		}
		return v, nil
	}
	k.ProcessName, k.HostName, k.BlockSize, k.GridSize, k.CC = str(ncuProcessName), str(ncuHostName), str(ncuBlockSize), str(ncuGridSize), str(ncuCC)
	for _, f := range []struct {
		col string
		dst *int64
	}{{ncuProcessID, &k.ProcessID}, {ncuContext, &k.Context}, {ncuStream, &k.Stream}, {ncuDevice, &k.Device}} {
		v, err := integer(f.col)
		if err != nil {
			return 0, err
		}
		*f.dst = v
	}
	b.kernelIndex[id] = len(b.kernels)
	b.kernels = append(b.kernels, k)
	return len(b.kernels) - 1, nil
}

// metric returns the accumulator of a metric, adding it on first sight.
func (b *ncuBuilder) metric(key metricKey) *metricAcc {
	if i, ok := b.metricIndex[key]; ok {
		return b.metrics[i]
	}
	m := &metricAcc{key: key, unitLine: -1, values: map[int]float64{}}
	b.metricIndex[key] = len(b.metrics)
	b.metrics = append(b.metrics, m)
	return m
}

// add records one value of metric m for kernel k; unit is ncu's unit of
// this value, line and column where it is.
func (b *ncuBuilder) add(m *metricAcc, k int, raw, unit string, line int, column string) error {
	if m.text {
		return nil
	}
	num, kind := parseNCUNumber(raw)
	switch kind {
	case ncuMissing:
		return nil
	case ncuBad:
		return &NCUError{File: b.file, Line: line, Column: column, Msg: fmt.Sprintf("metric %s: %q is not a number", m.key.metric, raw)}
	case ncuText:
		m.text = true
		b.warnings = append(b.warnings, fmt.Sprintf("%s:%d: metric %s has text values (%q): left out of the table", b.file, line, m.key.metric, raw))
		return nil
	}
	base, exp := normalizeNCUUnit(unit)
	switch {
	case m.unitLine < 0:
		m.unit, m.unitLine = base, line
	case m.unit != base:
		return &NCUError{File: b.file, Line: line, Column: column,
			Msg: fmt.Sprintf("metric %s in %q here, in %q (line %d) before: the units do not convert", m.key.metric, unit, m.unit, m.unitLine)}
	}
	v := scaleDecimal(num, exp)
	if old, dup := m.values[k]; dup && old != v {
		b.warnings = append(b.warnings, fmt.Sprintf("%s:%d: metric %s of launch %d given twice (%g, then %g): kept the first", b.file, line, m.key.metric, b.kernels[k].ID, old, v))
		return nil
	}
	m.values[k] = v
	return nil
}

// readDetails reads the long page: one row per kernel and metric.
func (b *ncuBuilder) readDetails(r *ncuReader) error {
	nameCol, valueCol := b.col[ncuMetricName], b.col[ncuMetricValue]
	unitCol, hasUnit := b.col[ncuMetricUnit]
	secCol, hasSec := b.col[ncuSection]
	for {
		rec, err := r.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if rec[nameCol] == "" {
			continue // a rule row (newer ncu) carries no metric
		}
		k, err := b.kernel(rec, r)
		if err != nil {
			return err
		}
		key := metricKey{metric: rec[nameCol]}
		if hasSec {
			key.section = rec[secCol]
		}
		unit := ""
		if hasUnit {
			unit = rec[unitCol]
		}
		if err := b.add(b.metric(key), k, rec[valueCol], unit, r.line(valueCol), ncuMetricValue); err != nil {
			return err
		}
	}
}

// readRaw reads the wide page: a header of metric names, a row of units
// (its ID field empty), then one row per kernel.
func (b *ncuBuilder) readRaw(r *ncuReader) error {
	idCol := b.col[ncuID]
	var metricCols []int
	for i, h := range b.header {
		if !ncuNonMetric[h] {
			metricCols = append(metricCols, i)
		}
	}
	units := make([]string, len(b.header))
	first := true
	for {
		rec, err := r.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if first && strings.TrimSpace(rec[idCol]) == "" {
			copy(units, rec)
			first = false
			continue
		}
		first = false
		k, err := b.kernel(rec, r)
		if err != nil {
			return err
		}
		for _, c := range metricCols {
			m := b.metric(metricKey{metric: b.header[c]})
			if err := b.add(m, k, rec[c], units[c], r.line(c), b.header[c]); err != nil {
				return err
			}
		}
	}
}

// table names the metric columns and lays the values out per kernel.
func (b *ncuBuilder) table() (*NCUTable, error) {
	t := &NCUTable{Format: b.format, Kernels: b.kernels}
	count := map[string]int{}
	for _, m := range b.metrics {
		if !m.text {
			count[m.key.metric]++
		}
	}
	taken := map[string]bool{}
	for _, c := range ncuKernelColumns {
		taken[c.name] = true
	}
	var kept []*metricAcc
	for _, m := range b.metrics {
		if m.text {
			continue
		}
		name := m.key.metric
		if count[name] > 1 || taken[name] {
			name = m.key.section + "/" + m.key.metric
		}
		if taken[name] {
			return nil, &NCUError{File: b.file, Line: max(m.unitLine, 1), Msg: fmt.Sprintf("metric column name %q is used twice", name)}
		}
		taken[name] = true
		unit := m.unit
		if m.unitLine < 0 {
			unit = "1" // never had a value
		}
		t.Metrics = append(t.Metrics, NCUMetric{Name: name, Metric: m.key.metric, Section: m.key.section, Unit: unit})
		kept = append(kept, m)
	}
	for k := range t.Kernels {
		vals := make([]float64, len(kept))
		for j, m := range kept {
			v, ok := m.values[k]
			if !ok {
				v = math.NaN()
			}
			vals[j] = v
		}
		t.Kernels[k].Values = vals
	}
	return t, nil
}

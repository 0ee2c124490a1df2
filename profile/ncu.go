package profile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// NCUTable holds the kernels of an Nsight Compute CSV export, one per
// profiled launch, with one value per metric.
type NCUTable struct {
	// Format is the ncu page the file was: "details" (long: one row per
	// kernel and metric, `ncu --csv [--page details]`) or "raw" (wide: one
	// row per kernel, `ncu --csv --page raw`).
	Format  string
	Metrics []NCUMetric
	Kernels []NCUKernel
}

// NCUMetric is one metric column. Name is the column name: the metric
// name, or "Section/Metric" when two sections report metrics of one name.
type NCUMetric struct {
	Name    string
	Metric  string // ncu's metric name
	Section string // ncu's section ("" in the raw page)
	Unit    string // after normalisation, see ParseNCU
}

// NCUKernel is one profiled kernel launch. Integer fields are -1 when the
// file does not have their column.
type NCUKernel struct {
	ID          int64
	ProcessID   int64
	ProcessName string
	HostName    string
	Name        string
	Context     int64
	Stream      int64
	BlockSize   string // e.g. "(256, 1, 1)"
	GridSize    string
	Device      int64
	CC          string    // compute capability, e.g. "9.0"
	Values      []float64 // aligned with NCUTable.Metrics; NaN = not reported
}

// NCUError is a malformed ncu CSV: where (file, line, column name) and
// what. Line is the line of the text file, the first line being 1.
type NCUError struct {
	File   string
	Line   int
	Column string
	Msg    string
}

func (e *NCUError) Error() string {
	s := fmt.Sprintf("%s:%d", e.File, e.Line)
	if e.Column != "" {
		s += ": column " + strconv.Quote(e.Column)
	}
	return s + ": " + e.Msg
}

// identity columns of both pages, by ncu's name.
const (
	ncuID          = "ID"
	ncuProcessID   = "Process ID"
	ncuProcessName = "Process Name"
	ncuHostName    = "Host Name"
	ncuKernelName  = "Kernel Name"
	ncuContext     = "Context"
	ncuStream      = "Stream"
	ncuBlockSize   = "Block Size"
	ncuGridSize    = "Grid Size"
	ncuDevice      = "Device"
	ncuCC          = "CC"
	ncuSection     = "Section Name"
	ncuMetricName  = "Metric Name"
	ncuMetricUnit  = "Metric Unit"
	ncuMetricValue = "Metric Value"
)

// ncuNonMetric lists the raw page's columns that are not metrics
// (identity, and the kernel time and rule columns some ncu versions add).
var ncuNonMetric = map[string]bool{
	ncuID: true, ncuProcessID: true, ncuProcessName: true, ncuHostName: true, ncuKernelName: true,
	"Kernel Time": true, ncuContext: true, ncuStream: true, ncuBlockSize: true, ncuGridSize: true,
	ncuDevice: true, ncuCC: true, ncuSection: true, "Rule Name": true, "Rule Type": true,
	"Rule Description": true, "Estimated Speedup Type": true, "Estimated Speedup": true,
}

// ParseNCU reads the CSV that `ncu --csv` prints, in either page (see
// NCUTable.Format), and returns one kernel per launch ID. name is used in
// messages.
//
//   - Lines before the header (the profiled program's own output) and
//     ncu's "==PROF==" / "==WARNING==" lines are skipped.
//   - Numbers may carry thousands separators ("1,234,567.5").
//   - "n/a" and empty values are missing (NaN). A metric with any other
//     text value (e.g. a cache configuration name) is dropped, with a
//     warning: the table holds numbers only.
//   - ncu scales units per value by default ("usecond" for one kernel,
//     "msecond" for the next); every value is converted to one unit per
//     metric: second -> "s", byte -> "bytes", and SI prefixes
//     n u m K M G T P removed from byte, second, cycle, inst, warp,
//     thread, sector, request, block and register, numerator and
//     denominator alike ("Gbyte/second" -> "bytes/s", "cycle/nsecond" ->
//     "cycle/s"). An empty unit becomes "1". `ncu --print-units base`
//     avoids the rounding of scaled values.
//
// A value that looks like a number but is not one, a row of the wrong
// length, a launch ID that is not an integer, or one metric in units that
// do not convert into each other is an *NCUError naming the line and
// column. Warnings are returned for problems that lose nothing but the
// named value.
func ParseNCU(r io.Reader, name string) (*NCUTable, []string, error) {
	cr, err := newNCUReader(r, name)
	if err != nil {
		return nil, nil, err
	}
	header, err := cr.header()
	if err != nil {
		return nil, nil, err
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range []string{ncuID, ncuKernelName} {
		if _, ok := col[need]; !ok {
			return nil, nil, &NCUError{File: name, Line: cr.headerLine, Msg: fmt.Sprintf("header has no %q column (is this `ncu --csv` output?)", need)}
		}
	}
	b := &ncuBuilder{file: name, header: header, col: col, kernelIndex: map[int64]int{}, metricIndex: map[metricKey]int{}}
	if _, long := col[ncuMetricValue]; long {
		if _, ok := col[ncuMetricName]; !ok {
			return nil, nil, &NCUError{File: name, Line: cr.headerLine, Msg: fmt.Sprintf("header has %q but no %q", ncuMetricValue, ncuMetricName)}
		}
		b.format = "details"
		err = b.readDetails(cr)
	} else {
		b.format = "raw"
		err = b.readRaw(cr)
	}
	if err != nil {
		return nil, nil, err
	}
	t, err := b.table()
	if err != nil {
		return nil, nil, err
	}
	return t, b.warnings, nil
}

// ncuReader hands out CSV records with their line numbers. Lines that are
// not CSV (before the header, or ncu's own "==" lines) are blanked, not
// removed, so encoding/csv skips them and line numbers stay true.
type ncuReader struct {
	file       string
	csv        *csv.Reader
	headerLine int
}

func newNCUReader(r io.Reader, name string) (*ncuReader, error) {
	var buf bytes.Buffer
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	found := false
	line := 0
	headerLine := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		switch {
		case bytes.HasPrefix(text, []byte("==")):
			text = nil
		case !found && bytes.HasPrefix(text, []byte(`"ID",`)):
			found, headerLine = true, line
		case !found:
			text = nil
		}
		buf.Write(text)
		buf.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if !found {
		return nil, &NCUError{File: name, Line: max(line, 1), Msg: `no ncu CSV header (a line starting "ID",) in the file`}
	}
	c := csv.NewReader(&buf)
	c.FieldsPerRecord = 0
	c.ReuseRecord = false
	return &ncuReader{file: name, csv: c, headerLine: headerLine}, nil
}

func (r *ncuReader) header() ([]string, error) {
	rec, err := r.next()
	if err != nil {
		if err == io.EOF {
			return nil, &NCUError{File: r.file, Line: r.headerLine, Msg: "empty header"}
		}
		return nil, err
	}
	return rec, nil
}

// next returns the next record, io.EOF at the end, or an *NCUError.
func (r *ncuReader) next() ([]string, error) {
	rec, err := r.csv.Read()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			msg := pe.Err.Error()
			if errors.Is(pe.Err, csv.ErrFieldCount) {
				msg = fmt.Sprintf("row has %d fields, the header has %d", len(rec), r.csv.FieldsPerRecord)
			}
			return nil, &NCUError{File: r.file, Line: pe.Line, Msg: msg}
		}
		return nil, fmt.Errorf("%s: %w", r.file, err)
	}
	return rec, nil
}

// line returns the line where field i of the last record starts.
func (r *ncuReader) line(i int) int {
	l, _ := r.csv.FieldPos(i)
	return l
}

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

type ncuValueKind int

const (
	ncuNumber ncuValueKind = iota
	ncuMissing
	ncuText
	ncuBad
)

// thousands matches a number written with ',' thousands separators.
var thousands = regexp.MustCompile(`^[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?$`)

// numberish matches text made only of what numbers are made of.
var numberish = regexp.MustCompile(`^[+-]?[\d.,]*\d[\d.,]*([eE][+-]?\d+)?$`)

// parseNCUNumber classifies one metric value and returns it as a plain
// decimal (thousands separators removed) when it is a number.
func parseNCUNumber(s string) (string, ncuValueKind) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "n/a", "na", "-":
		return "", ncuMissing
	}
	if thousands.MatchString(s) {
		s = strings.ReplaceAll(s, ",", "")
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) && numberish.MatchString(s) {
		return s, ncuNumber
	}
	if numberish.MatchString(s) || isInfOrNaN(s) {
		return "", ncuBad
	}
	return "", ncuText
}

func isInfOrNaN(s string) bool {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "inf", "infinity", "nan":
		return true
	}
	return false
}

// scaleDecimal returns the decimal number s times 10^exp, rounded once:
// the power of ten goes into the exponent before parsing, so "16.38" Kbyte
// is 16380 bytes exactly, not 16379.999999999998.
func scaleDecimal(s string, exp int) float64 {
	mant, e := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, _ = strconv.Atoi(s[i+1:])
	}
	v, _ := strconv.ParseFloat(mant+"e"+strconv.Itoa(e+exp), 64)
	return v
}

// ncuPrefixes are the SI prefixes ncu puts on units, as powers of ten.
var ncuPrefixes = map[byte]int{'n': -9, 'u': -6, 'm': -3, 'K': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15}

// ncuBaseUnits are the unit words prefixes are removed from, with the name
// they take in the table.
var ncuBaseUnits = map[string]string{
	"second": "s", "byte": "bytes", "cycle": "cycle", "inst": "inst", "warp": "warp",
	"thread": "thread", "sector": "sector", "request": "request", "block": "block", "register": "register",
}

// normalizeNCUUnit returns the unit values are stored in and the power of
// ten that converts a value in unit into it.
func normalizeNCUUnit(unit string) (string, int) {
	unit = strings.TrimSpace(unit)
	if unit == "" {
		return "1", 0
	}
	parts := strings.Split(unit, "/")
	exp := 0
	for i, p := range parts {
		base, e := normalizeUnitWord(p)
		parts[i] = base
		if i == 0 {
			exp += e
		} else {
			exp -= e
		}
	}
	return strings.Join(parts, "/"), exp
}

func normalizeUnitWord(w string) (string, int) {
	if b, ok := ncuBaseUnits[w]; ok {
		return b, 0
	}
	if len(w) > 1 {
		if e, ok := ncuPrefixes[w[0]]; ok {
			if b, ok := ncuBaseUnits[w[1:]]; ok {
				return b, e
			}
		}
	}
	return w, 0
}

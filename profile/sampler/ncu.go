package sampler

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
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

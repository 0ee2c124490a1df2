package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvReader reads a CSV file with a header row, keeping line numbers for
// messages. Fields are addressed by header name.
type csvReader struct {
	name   string
	r      *csv.Reader
	header []string
	index  map[string]int
	rec    []string
	line   int
	err    error
}

func newCSVReader(r io.Reader, name string) (*csvReader, error) {
	cr := &csvReader{name: name, r: csv.NewReader(r), index: map[string]int{}}
	cr.r.FieldsPerRecord = -1 // ragged rows are reported by the caller, with the counts
	cr.r.TrimLeadingSpace = true
	hdr, err := cr.r.Read()
	if errors.Is(err, io.EOF) {
		return nil, &ValidationError{File: name, Problems: []Problem{{File: name, Msg: "empty file: no header row"}}}
	}
	if err != nil {
		return nil, cr.csvError(err)
	}
	if len(hdr) > 0 {
		hdr[0] = strings.TrimPrefix(hdr[0], "\ufeff") // a BOM written by spreadsheets
	}
	for i, h := range hdr {
		h = strings.TrimSpace(h)
		hdr[i] = h
		if h == "" {
			return nil, &ValidationError{File: name, Problems: []Problem{{File: name, Line: 1, Msg: fmt.Sprintf("header field %d is empty", i+1)}}}
		}
		if _, dup := cr.index[h]; dup {
			return nil, &ValidationError{File: name, Problems: []Problem{{File: name, Line: 1, Column: h, Msg: "duplicate header"}}}
		}
		cr.index[h] = i
	}
	cr.header = hdr
	cr.line = 1
	return cr, nil
}

// requireHeader checks that every wanted column is in the header.
func (cr *csvReader) requireHeader(want []string) error {
	ps := &problems{file: cr.name}
	for _, w := range want {
		if _, ok := cr.index[w]; !ok {
			ps.addLine(1, w, "missing column (header has %s)", strings.Join(cr.header, ","))
		}
	}
	return ps.err()
}

// next reads the next record; false at the end or on error (see cr.err).
func (cr *csvReader) next() bool {
	if cr.err != nil {
		return false
	}
	rec, err := cr.r.Read()
	if errors.Is(err, io.EOF) {
		return false
	}
	if err != nil {
		cr.err = cr.csvError(err)
		return false
	}
	cr.rec = rec
	cr.line, _ = cr.r.FieldPos(0)
	return true
}

// ragged returns an error when the current record has not as many fields
// as the header.
func (cr *csvReader) ragged() error {
	if len(cr.rec) != len(cr.header) {
		return cr.errorf("", "%d fields, header has %d", len(cr.rec), len(cr.header))
	}
	return nil
}

// field returns the named field of the current record, trimmed.
func (cr *csvReader) field(col string) string {
	i, ok := cr.index[col]
	if !ok || i >= len(cr.rec) {
		return ""
	}
	return strings.TrimSpace(cr.rec[i])
}

// errorf returns an error about a field of the current record.
func (cr *csvReader) errorf(col, format string, args ...any) error {
	return &ValidationError{File: cr.name, Problems: []Problem{{File: cr.name, Line: cr.line, Column: col, Msg: fmt.Sprintf(format, args...)}}}
}

func (cr *csvReader) csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ValidationError{File: cr.name, Problems: []Problem{{File: cr.name, Line: pe.Line, Msg: fmt.Sprintf("malformed CSV (column %d): %v", pe.Column, pe.Err)}}}
	}
	return fmt.Errorf("%s: %w", cr.name, err)
}

package datasets

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/internal/strictnum"
)

// headerRE splits a CSV header field "name [unit]" into name and unit.
var headerRE = regexp.MustCompile(`^([^\[\]]+?)\s*(?:\[([^\[\]]*)\])?$`)

// ParseHeader splits a CSV header field written as "name" or "name [unit]".
// The unit of a dimensionless value is written "[1]".
func ParseHeader(h string) (name, unit string, hasUnit bool, err error) {
	m := headerRE.FindStringSubmatch(strings.TrimSpace(h))
	if m == nil {
		return "", "", false, fmt.Errorf("header %q is not \"name\" or \"name [unit]\"", h)
	}
	return strings.TrimSpace(m[1]), strings.TrimSpace(m[2]), strings.Contains(h, "["), nil
}

// FormatHeader writes a column as a CSV header field, "name [unit]" when it
// has a unit; ParseHeader reads it back.
func FormatHeader(name, unit string) string {
	if unit == "" {
		return name
	}
	return name + " [" + unit + "]"
}

// ImportCSV reads a table of kind k from CSV. The header names the columns
// (the names of the schema, see Describe); a header may give the unit as
// "name [unit]", otherwise the column's default unit applies. Columns not in
// the schema are allowed only in solo (features) and samples (counters) and
// must give their unit. Empty fields are null. Time columns take RFC 3339 or
// integer nanoseconds since the epoch.
//
// Conveniences for hand-made files: a solo, pairs or scaling file without a
// source column gets "csv:<file name>"; a pairs file without
// normalized_throughput gets colocated/solo; without status, a row is ok
// when it has a co-located throughput and infeasible when that is empty.
// A self pair (workload = partner) given as two rows, one per copy, is
// merged into one row (mergeSelfPairs).
//
// The table is validated; every problem names the line and column.
func ImportCSV(r io.Reader, name string, k Kind) (*Table, error) {
	spec, err := SpecFor(k)
	if err != nil {
		return nil, err
	}
	lr := &io.LimitedReader{R: r, N: MaxTableBytes + 1}
	cr, err := newCSVReader(lr, name)
	if err != nil {
		return nil, err
	}
	ps := &problems{file: name}
	t := NewTable(k)
	cols := make([]*Column, len(cr.header))
	for i, h := range cr.header {
		cname, unit, hasUnit, err := ParseHeader(h)
		if err != nil {
			ps.addLine(1, h, "%v", err)
			continue
		}
		if t.Column(cname) != nil {
			ps.addLine(1, cname, "duplicate column")
			continue
		}
		cs, known := spec.Column(cname)
		switch {
		case known:
			if !hasUnit {
				unit = cs.DefaultUnit()
			}
			cols[i] = t.AddColumn(cname, cs.Type, unit)
		case spec.Extra:
			if !hasUnit || unit == "" {
				ps.addLine(1, cname, "extra column needs its unit in the header, e.g. %q (use [1] for a dimensionless value)", cname+" [%]")
				continue
			}
			cols[i] = t.AddColumn(cname, Float, unit)
		default:
			ps.addLine(1, cname, "not a column of table %s (columns: %s)", k, specNames(spec))
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	rows := 0
	for cr.next() {
		rows++
		if err := cr.ragged(); err != nil {
			ps.addLine(cr.line, "", "%d fields, header has %d", len(cr.rec), len(cr.header))
			for _, c := range cols {
				c.appendNull()
			}
			continue
		}
		for i, c := range cols {
			parseCell(c, strings.TrimSpace(cr.rec[i]), cr.line, ps)
		}
	}
	if cr.err != nil {
		return nil, cr.err
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s: more than the %d GiB a table may hold", name, MaxTableBytes>>30)
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	fillCSVDefaults(t, k, "csv:"+filepath.Base(name))
	var lines []int
	if k == KindPairs {
		t, lines, _ = mergeSelfPairs(t)
	}
	// Validation problems refer to data rows; CSV users think in lines.
	if err := Validate(t, name); err != nil {
		return nil, rowsToLines(err, lines)
	}
	return t, nil
}

func specNames(s *Spec) string {
	names := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func parseCell(c *Column, s string, line int, ps *problems) {
	if s == "" {
		c.appendNull()
		return
	}
	switch c.Type {
	case String:
		c.AppendString(s, false)
	case Int:
		v, err := strictnum.ParseInt(s)
		if err != nil {
			ps.addLine(line, c.Name, "%q is not a decimal integer", s)
		}
		c.AppendInt(v, false)
	case Float:
		// Plain decimals only: strconv alone reads 1_000 as 1000 and
		// 0x10 as 16.
		v, err := strictnum.ParseFloat(s)
		if err != nil {
			ps.addLine(line, c.Name, "%q is not a decimal number (leave the field empty for a missing value)", s)
			v = 0
		}
		c.Float = append(c.Float, v)
		c.markNull(false)
	case Time:
		v, err := parseTime(s)
		if err != nil {
			ps.addLine(line, c.Name, "%q is not an RFC 3339 time or integer nanoseconds", s)
		}
		c.AppendInt(v, false)
	}
}

func parseTime(s string) (int64, error) {
	if v, err := strictnum.ParseInt(s); err == nil {
		return v, nil
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, err
	}
	return tm.UnixNano(), nil
}

// fillCSVDefaults adds the columns a hand-made CSV may leave out (see
// ImportCSV).
func fillCSVDefaults(t *Table, k Kind, source string) {
	n := t.Len()
	if k == KindSolo || k == KindPairs || k == KindScaling {
		if t.Column("source") == nil {
			c := t.AddColumn("source", String, UnitNone)
			for i := 0; i < n; i++ {
				c.AppendString(source, false)
			}
		}
	}
	if k != KindPairs {
		return
	}
	solo, co := t.Column("solo_throughput"), t.Column("colocated_throughput")
	if t.Column("normalized_throughput") == nil && solo != nil && co != nil && solo.Type == Float && co.Type == Float {
		c := t.AddColumn("normalized_throughput", Float, UnitRatio)
		for i := 0; i < n; i++ {
			if solo.IsNull(i) || co.IsNull(i) {
				c.AppendFloat(math.NaN())
			} else {
				c.AppendFloat(co.Float[i] / solo.Float[i])
			}
		}
	}
	if t.Column("status") == nil && co != nil {
		c := t.AddColumn("status", String, UnitNone)
		for i := 0; i < n; i++ {
			if co.IsNull(i) {
				c.AppendString(StatusInfeasible, false)
			} else {
				c.AppendString(StatusOK, false)
			}
		}
	}
}

package datasets

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"text/tabwriter"
)

// ColumnSummary describes one column of a table for `coloc datasets
// inspect`: type, unit, null count, and for numeric columns the minimum,
// median and maximum of the non-null values (as text for time columns);
// for string columns the number of distinct values.
type ColumnSummary struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Unit     string   `json:"unit"`
	Nulls    int      `json:"nulls"`
	Min      *float64 `json:"min,omitempty"`
	Median   *float64 `json:"median,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	MinTime  string   `json:"min_time,omitempty"`
	MaxTime  string   `json:"max_time,omitempty"`
	Distinct int      `json:"distinct,omitempty"`
}

// Summary describes a whole table.
type Summary struct {
	File    string            `json:"file"`
	Table   Kind              `json:"table"`
	Version int               `json:"version"`
	Rows    int               `json:"rows"`
	Meta    map[string]string `json:"meta,omitempty"`
	Columns []ColumnSummary   `json:"columns"`
}

// Summarize computes the summary of a table.
func Summarize(t *Table, file string) Summary {
	s := Summary{File: file, Table: t.Kind, Version: t.version(), Rows: t.Len(), Meta: t.Meta}
	for _, c := range t.Columns {
		cs := ColumnSummary{Name: c.Name, Type: c.Type.String(), Unit: c.Unit, Nulls: c.NullCount()}
		switch c.Type {
		case String:
			set := map[string]bool{}
			for i, v := range c.Str {
				if !c.IsNull(i) {
					set[v] = true
				}
			}
			cs.Distinct = len(set)
		case Float, Int, Time:
			vals := make([]float64, 0, c.Len())
			for i := 0; i < c.Len(); i++ {
				if c.IsNull(i) {
					continue
				}
				if c.Type == Float {
					vals = append(vals, c.Float[i])
				} else {
					vals = append(vals, float64(c.Int[i]))
				}
			}
			if len(vals) == 0 {
				break
			}
			sort.Float64s(vals)
			lo, hi := vals[0], vals[len(vals)-1]
			med := median(vals)
			if c.Type == Time {
				cs.MinTime, cs.MaxTime = formatTime(int64(lo)), formatTime(int64(hi))
				break
			}
			cs.Min, cs.Median, cs.Max = &lo, &med, &hi
		}
		s.Columns = append(s.Columns, cs)
	}
	return s
}

// median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// WriteText prints the summary as `coloc datasets inspect` does: the table,
// its metadata, then one line per column.
func (s Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: table %s, version %d, %d rows\n", s.File, s.Table, s.Version, s.Rows)
	for _, k := range slices.Sorted(maps.Keys(s.Meta)) {
		fmt.Fprintf(w, "  %s = %s\n", k, s.Meta[k])
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "column\ttype\tunit\tnulls\tmin\tmedian\tmax\tdistinct")
	for _, c := range s.Columns {
		min, med, max, dist := "", "", "", ""
		switch {
		case c.Min != nil:
			min, med, max = num(*c.Min), num(*c.Median), num(*c.Max)
		case c.MinTime != "":
			min, max = c.MinTime, c.MaxTime
		}
		if c.Type == "string" {
			dist = fmt.Sprint(c.Distinct)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", c.Name, c.Type, c.Unit, c.Nulls, min, med, max, dist)
	}
	return tw.Flush()
}

func num(v float64) string { return fmt.Sprintf("%.6g", v) }

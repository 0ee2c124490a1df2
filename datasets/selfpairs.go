package datasets

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// A self pair is a workload next to a copy of itself: one row of the
// pairs table, workload = partner, whose normalized throughput is that of
// either copy. A hand-made CSV often has one row per copy; ImportCSV
// merges two rows of one self pair into one, averaging each throughput
// and confidence bound the two rows both hold (the copies run the same
// code, so they estimate one value) and keeping the first row's other
// fields. Three or more rows of one key stay duplicates.

// mergeSelfPairs merges the two rows of each self pair of a pairs table
// and returns the table and, per row of it, the CSV line it came from
// (line = row + 1 for a table without merges).
func mergeSelfPairs(t *Table) (*Table, []int, int) {
	n := t.Len()
	lines := make([]int, n)
	for i := range lines {
		lines[i] = i + 2
	}
	w, p := t.Column("workload"), t.Column("partner")
	spec, err := SpecFor(KindPairs)
	if w == nil || p == nil || err != nil {
		return t, lines, 0
	}
	groups := map[string][]int{}
	for i := 0; i < n; i++ {
		if w.Str[i] == p.Str[i] && !w.IsNull(i) {
			k := KeyOf(t, spec, i)
			groups[k] = append(groups[k], i)
		}
	}
	drop := map[int]bool{}
	avg := map[int]int{} // first row -> second row
	for _, rows := range groups {
		if len(rows) == 2 {
			avg[rows[0]], drop[rows[1]] = rows[1], true
		}
	}
	if len(drop) == 0 {
		return t, lines, 0
	}
	out := NewTable(t.Kind)
	out.Version, out.Meta = t.Version, t.Meta
	for _, c := range t.Columns {
		out.AddColumn(c.Name, c.Type, c.Unit).Meta = c.Meta
	}
	var outLines []int
	for i := 0; i < n; i++ {
		if drop[i] {
			continue
		}
		for k, c := range t.Columns {
			dst := out.Columns[k]
			dst.appendFrom(c, i)
			if j, ok := avg[i]; ok && c.Type == Float && !c.IsNull(i) && !c.IsNull(j) && !math.IsNaN(c.Float[i]) && !math.IsNaN(c.Float[j]) {
				dst.Float[len(dst.Float)-1] = (c.Float[i] + c.Float[j]) / 2
			}
		}
		outLines = append(outLines, lines[i])
	}
	return out, outLines, len(drop)
}

var firstAtRow = regexp.MustCompile(`first at row (\d+)`)

// rowsToLines rewrites a validation error's row numbers as CSV lines.
func rowsToLines(err error, lines []int) error {
	ve, ok := err.(*ValidationError)
	if !ok {
		return err
	}
	line := func(row int) int {
		if row >= 1 && row <= len(lines) {
			return lines[row-1]
		}
		return row + 1
	}
	for i := range ve.Problems {
		pr := &ve.Problems[i]
		if pr.Row > 0 {
			pr.Line, pr.Row = line(pr.Row), 0
		}
		pr.Msg = firstAtRow.ReplaceAllStringFunc(pr.Msg, func(m string) string {
			r, _ := strconv.Atoi(firstAtRow.FindStringSubmatch(m)[1])
			return fmt.Sprintf("first at line %d", line(r))
		})
	}
	return ve
}

package datasets

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Validate checks a table against its schema: known kind, required columns,
// types, units, nulls, UTF-8 text, enumerations, value ranges, unique keys
// and the rules of each table (time order within a run, normalized =
// co-located / solo, ...). It returns nil or a *ValidationError listing every problem; file
// names the source in the problems and may be empty.
func Validate(t *Table, file string) error {
	ps := &problems{file: file}
	validate(t, ps)
	return ps.err()
}

func validate(t *Table, ps *problems) {
	spec, err := SpecFor(t.Kind)
	if err != nil {
		ps.add(0, "", "%v", err)
		return
	}
	n := t.Len()
	seen := map[string]bool{}
	for _, c := range t.Columns {
		if seen[c.Name] {
			ps.add(0, c.Name, "duplicate column")
			continue
		}
		seen[c.Name] = true
		if c.Len() != n {
			ps.add(0, c.Name, "has %d values, table has %d rows", c.Len(), n)
			return
		}
		if c.Null != nil && len(c.Null) != n {
			ps.add(0, c.Name, "null mask has %d entries, table has %d rows", len(c.Null), n)
			return
		}
		cs, ok := spec.Column(c.Name)
		if !ok {
			if !spec.Extra {
				ps.add(0, c.Name, "not a column of table %s", t.Kind)
				continue
			}
			if c.Type != Float {
				ps.add(0, c.Name, "extra column must be float64 (a counter or feature), is %s", c.Type)
				continue
			}
			if c.Name == "" {
				ps.add(0, c.Name, "column without a name")
				continue
			}
			if !isName(c.Name) {
				ps.add(0, clip(c.Name), "a column's name is text of at most %d bytes without control characters", MaxNameBytes)
				continue
			}
			if c.Unit == "" {
				ps.add(0, c.Name, "extra column has no unit (use %q for a dimensionless value)", UnitRatio)
			}
			checkValues(c, ColumnSpec{Name: c.Name, Type: Float, Nullable: true}, ps)
			continue
		}
		if c.Type != cs.Type {
			ps.add(0, c.Name, "type is %s, want %s", c.Type, cs.Type)
			continue
		}
		if !cs.acceptsUnit(c.Unit) {
			if len(cs.Units) == 0 {
				ps.add(0, c.Name, "unit %q given for a column without unit", c.Unit)
			} else {
				ps.add(0, c.Name, "unit %q, want one of %s", c.Unit, strings.Join(cs.Units, ", "))
			}
			continue
		}
		checkValues(c, cs, ps)
	}
	for _, cs := range spec.Columns {
		if cs.Required && !seen[cs.Name] {
			ps.add(0, cs.Name, "required column is missing")
		}
	}
	if len(ps.list) > 0 {
		return // the table rules below assume well-formed columns
	}
	checkKeys(t, spec, ps)
	switch t.Kind {
	case KindRuns:
		checkRuns(t, ps)
	case KindSamples:
		checkSamples(t, ps)
	case KindSolo:
		checkSolo(t, ps)
	case KindPairs:
		checkPairs(t, ps)
	case KindScaling:
		checkScaling(t, ps)
	}
}

func checkValues(c *Column, cs ColumnSpec, ps *problems) {
	if valuesClean(c, cs) {
		return
	}
	n := c.Len()
	for i := 0; i < n; i++ {
		if c.IsNull(i) {
			if !cs.Nullable {
				ps.add(i+1, c.Name, "null in a column that does not allow nulls")
			}
			continue
		}
		switch c.Type {
		case String:
			if !utf8.ValidString(c.Str[i]) {
				ps.add(i+1, c.Name, "%q is not UTF-8 text", c.Str[i])
			} else if cs.Ident && !isName(c.Str[i]) {
				ps.add(i+1, c.Name, "%q: a name is text of at most %d bytes without control characters (newline, tab, escape, ...)", clip(c.Str[i]), MaxNameBytes)
			} else if len(cs.Enum) > 0 && !contains(cs.Enum, c.Str[i]) {
				ps.add(i+1, c.Name, "%q is not one of %s", c.Str[i], strings.Join(cs.Enum, ", "))
			}
		case Float:
			v := c.Float[i]
			switch {
			case math.IsNaN(v):
				ps.add(i+1, c.Name, "NaN (write null for a missing value)")
			case math.IsInf(v, 0):
				ps.add(i+1, c.Name, "infinite value")
			case cs.Positive && v <= 0:
				ps.add(i+1, c.Name, "%s is not positive", formatFloat(v))
			case cs.Min != nil && v < *cs.Min:
				ps.add(i+1, c.Name, "%s is below %s", formatFloat(v), formatFloat(*cs.Min))
			}
		case Int:
			v := c.Int[i]
			switch {
			case cs.Positive && v <= 0:
				ps.add(i+1, c.Name, "%d is not positive", v)
			case cs.Min != nil && float64(v) < *cs.Min:
				ps.add(i+1, c.Name, "%d is below %s", v, formatFloat(*cs.Min))
			}
		}
	}
}

// valuesClean is the fast path of checkValues: one tight pass per column
// that only answers whether every value passes. A string equal to the one
// before it (a run id repeated down a samples table) is not checked again.
// When it answers false, checkValues looks again row by row to say what
// is wrong where.
func valuesClean(c *Column, cs ColumnSpec) bool {
	if !cs.Nullable && slices.Contains(c.Null, true) {
		return false
	}
	null := func(i int) bool { return c.Null != nil && c.Null[i] }
	switch c.Type {
	case String:
		prev, checked := "", false
		for i, v := range c.Str {
			if checked && v == prev || null(i) {
				continue
			}
			if !utf8.ValidString(v) || len(cs.Enum) > 0 && !contains(cs.Enum, v) || cs.Ident && !isName(v) {
				return false
			}
			prev, checked = v, true
		}
	case Float:
		lo := math.Inf(-1)
		if cs.Min != nil {
			lo = *cs.Min
		}
		for i, v := range c.Float {
			// v-v is 0 for every finite v, NaN for NaN and ±Inf.
			if v-v == 0 && v >= lo && (!cs.Positive || v > 0) || null(i) {
				continue
			}
			return false
		}
	case Int:
		if !cs.Positive && cs.Min == nil {
			return true
		}
		for i, v := range c.Int {
			if (!cs.Positive || v > 0) && (cs.Min == nil || float64(v) >= *cs.Min) || null(i) {
				continue
			}
			return false
		}
	}
	return true
}

// isName reports whether s may be a value of a name column (or a
// column's name): valid UTF-8 of at most MaxNameBytes without control
// characters.
func isName(s string) bool {
	if len(s) > MaxNameBytes || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// clip shortens a long value for a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// KeyOf returns the key of row i as text, "name=value" pairs joined by
// commas, for messages and duplicate detection.
func KeyOf(t *Table, spec *Spec, i int) string {
	var b strings.Builder
	for j, name := range spec.Key {
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteByte('=')
		if c := t.Column(name); c != nil {
			switch {
			case c.IsNull(i):
				b.WriteString("null")
			case c.Type == String:
				b.WriteString(strconv.Quote(c.Str[i]))
			default:
				b.WriteString(c.Format(i))
			}
		} else {
			b.WriteString("null")
		}
	}
	return b.String()
}

func checkKeys(t *Table, spec *Spec, ps *problems) {
	// Samples are keyed for merge, but a table of a million rows is not
	// checked row by row here: its time order check below catches the
	// duplicates a sampler could write (two rows of one series at one
	// instant are allowed only if values match, which merge decides).
	if t.Kind == KindSamples {
		return
	}
	first := make(map[string]int, t.Len())
	for i := 0; i < t.Len(); i++ {
		k := KeyOf(t, spec, i)
		if j, dup := first[k]; dup {
			ps.add(i+1, "", "duplicate key (%s), first at row %d", k, j+1)
			continue
		}
		first[k] = i
	}
}

func checkRuns(t *Table, ps *problems) {
	mode, partner := t.Column("mode"), t.Column("partner")
	start, end := t.Column("start_time"), t.Column("end_time")
	status, tput := t.Column("status"), t.Column("throughput")
	degree, ids := t.Column("degree"), t.Column("device_ids")
	for i := 0; i < t.Len(); i++ {
		if end.Int[i] < start.Int[i] {
			ps.add(i+1, "end_time", "ends before it starts (%s < %s)", formatTime(end.Int[i]), formatTime(start.Int[i]))
		}
		switch mode.Str[i] {
		case ModePair:
			if partner.IsNull(i) || partner.Str[i] == "" {
				ps.add(i+1, "partner", "a pair run needs a partner")
			}
		default:
			if !partner.IsNull(i) && partner.Str[i] != "" {
				ps.add(i+1, "partner", "a %s run has no partner", mode.Str[i])
			}
		}
		ok := status.Str[i] == StatusOK
		if ok && tput.IsNull(i) {
			ps.add(i+1, "throughput", "status ok needs a throughput")
		}
		if !ok && !tput.IsNull(i) {
			ps.add(i+1, "throughput", "status %s must have a null throughput", status.Str[i])
		}
		if c := t.Column("settled"); c != nil && !ok && !c.IsNull(i) {
			ps.add(i+1, "settled", "status %s must have a null settled", status.Str[i])
		}
		if a, b := t.Column("window_start"), t.Column("window_end"); a != nil && b != nil && !a.IsNull(i) && !b.IsNull(i) && b.Int[i] < a.Int[i] {
			ps.add(i+1, "window_end", "the window ends before it starts (%s < %s)", formatTime(b.Int[i]), formatTime(a.Int[i]))
		}
		if s := ids.Str[i]; s != "" {
			if got := len(strings.Split(s, ",")); int64(got) != degree.Int[i] {
				ps.add(i+1, "device_ids", "%d devices listed for degree %d", got, degree.Int[i])
			}
		}
	}
}

func checkSamples(t *Table, ps *problems) {
	run, dev, ts := t.Column("run_id"), t.Column("device"), t.Column("timestamp")
	wl := t.Column("workload")
	type series struct {
		run, wl string
		dev     int64
	}
	// A sampler writes each series in runs of rows: the series of the row
	// before and its last time are kept aside, and the map of every
	// series' last time is read and written only where the series changes.
	last := map[series]int64{}
	var cur series
	var curAt int64
	for i := 0; i < t.Len(); i++ {
		s := series{run: run.Str[i], dev: dev.Int[i]}
		if wl != nil && !wl.IsNull(i) {
			s.wl = wl.Str[i]
		}
		if i == 0 || s != cur {
			if i > 0 {
				last[cur] = curAt
			}
			prev, ok := last[s]
			cur, curAt = s, prev
			if !ok {
				curAt = math.MinInt64
			}
		}
		if ts.Int[i] < curAt {
			ps.add(i+1, "timestamp", "goes back in time within run %s (%s after %s)", s.run, formatTime(ts.Int[i]), formatTime(curAt))
		}
		curAt = ts.Int[i]
	}
}

// sameUnit reports a problem unless all named columns present share a unit.
func sameUnit(t *Table, ps *problems, names ...string) {
	unit, from := "", ""
	for _, n := range names {
		c := t.Column(n)
		if c == nil {
			continue
		}
		if from == "" {
			unit, from = c.Unit, n
			continue
		}
		if c.Unit != unit {
			ps.add(0, n, "unit %q differs from %s's %q", c.Unit, from, unit)
		}
	}
}

func checkSolo(t *Table, ps *problems) {
	sameUnit(t, ps, "throughput", "throughput_ci_low", "throughput_ci_high")
	tput := t.Column("throughput")
	lo, hi := t.Column("throughput_ci_low"), t.Column("throughput_ci_high")
	for i := 0; i < t.Len(); i++ {
		v := tput.Float[i]
		if lo != nil && !lo.IsNull(i) && lo.Float[i] > v {
			ps.add(i+1, "throughput_ci_low", "%s is above the mean %s", formatFloat(lo.Float[i]), formatFloat(v))
		}
		if hi != nil && !hi.IsNull(i) && hi.Float[i] < v {
			ps.add(i+1, "throughput_ci_high", "%s is below the mean %s", formatFloat(hi.Float[i]), formatFloat(v))
		}
	}
}

// normTolerance is the relative tolerance of normalized = co-located / solo.
const normTolerance = 1e-6

func checkPairs(t *Table, ps *problems) {
	sameUnit(t, ps, "solo_throughput", "colocated_throughput")
	solo, co := t.Column("solo_throughput"), t.Column("colocated_throughput")
	norm, status := t.Column("normalized_throughput"), t.Column("status")
	lo, hi := t.Column("normalized_ci_low"), t.Column("normalized_ci_high")
	for i := 0; i < t.Len(); i++ {
		if status.Str[i] == StatusInfeasible {
			if !norm.IsNull(i) || !co.IsNull(i) {
				ps.add(i+1, "normalized_throughput", "an infeasible pair has no throughput (write null)")
			}
			continue
		}
		if solo.IsNull(i) || co.IsNull(i) || norm.IsNull(i) {
			ps.add(i+1, "normalized_throughput", "a %s pair needs solo, co-located and normalized throughput", status.Str[i])
			continue
		}
		want := co.Float[i] / solo.Float[i]
		if math.Abs(norm.Float[i]-want) > normTolerance*want {
			ps.add(i+1, "normalized_throughput", "%s is not colocated/solo = %s", formatFloat(norm.Float[i]), formatFloat(want))
		}
		if lo != nil && !lo.IsNull(i) && lo.Float[i] > norm.Float[i] {
			ps.add(i+1, "normalized_ci_low", "%s is above the value %s", formatFloat(lo.Float[i]), formatFloat(norm.Float[i]))
		}
		if hi != nil && !hi.IsNull(i) && hi.Float[i] < norm.Float[i] {
			ps.add(i+1, "normalized_ci_high", "%s is below the value %s", formatFloat(hi.Float[i]), formatFloat(norm.Float[i]))
		}
	}
}

func checkScaling(t *Table, ps *problems) {
	pl := t.Column("placement")
	if pl == nil {
		return
	}
	deg, nodes := t.Column("degree"), t.Column("nodes")
	for i := 0; i < t.Len(); i++ {
		if pl.IsNull(i) || pl.Str[i] == "" {
			continue
		}
		sum := 0
		bad := false
		for _, r := range pl.Str[i] {
			if r < '1' || r > '9' {
				bad = true
				break
			}
			sum += int(r - '0')
		}
		switch {
		case bad:
			ps.add(i+1, "placement", "%q is not one digit 1-9 per node", pl.Str[i])
		case int64(sum) != deg.Int[i]:
			ps.add(i+1, "placement", "%q places %d GPUs, degree is %d", pl.Str[i], sum, deg.Int[i])
		case int64(len(pl.Str[i])) != nodes.Int[i]:
			ps.add(i+1, "placement", "%q spans %d nodes, nodes is %d", pl.Str[i], len(pl.Str[i]), nodes.Int[i])
		}
	}
}

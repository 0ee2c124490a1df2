package datasets

import (
	"fmt"
	"math"
)

// Table is a table in memory, column by column. It is the one data model
// every reader returns and every writer takes; the typed views (Runs, Pairs,
// ...) are built from it.
//
// A Table returned by Read or by a typed view's Table method is valid
// (Validate returns no problem); a Table built by hand must pass Validate
// before Write accepts it.
type Table struct {
	Kind Kind
	// Version is the schema version of a table of another kind (see
	// WriteOther); 0 for the five dataset tables, which are at
	// KindVersion(Kind).
	Version int
	// Meta holds schema metadata beyond the table name and version
	// (e.g. "coloc.source"), kept on read and written back.
	Meta    map[string]string
	Columns []*Column
	// verified: read from a file whose checksums were verified (see
	// integrity.go).
	verified bool
}

// Verified reports whether t was read from a file whose checksums were
// verified: false for a table built in memory, or read from a file
// written without checksums (by a coloc before them, or another Arrow
// writer).
func (t *Table) Verified() bool { return t.verified }

// Describe says in a few words what t is: its kind, rows, and whether its
// checksums were verified when it was read.
func (t *Table) Describe() string {
	sums := "checksums verified"
	if !t.verified {
		sums = "no checksums (validated, not verified: written by an older coloc or another program)"
	}
	return fmt.Sprintf("table %s, %d rows, %s", t.Kind, t.Len(), sums)
}

// Column is one column. Exactly one of Str, Int and Float holds the values,
// chosen by Type (Time columns use Int, in ns since the Unix epoch). Null,
// when not nil, has one entry per row and marks null values; the value slot
// of a null is the zero value (NaN for Float).
type Column struct {
	Name string
	Type Type
	Unit string
	// Meta is field metadata beyond the unit (used by tables of other
	// kinds, e.g. a feature's group), kept on read and written back.
	Meta  map[string]string
	Str   []string
	Int   []int64
	Float []float64
	Null  []bool
}

func (t *Table) version() int {
	if t.Version == 0 {
		return KindVersion(t.Kind)
	}
	return t.Version
}

// NewTable returns an empty table of kind k.
func NewTable(k Kind) *Table { return &Table{Kind: k} }

// Len returns the number of rows.
func (t *Table) Len() int {
	if len(t.Columns) == 0 {
		return 0
	}
	return t.Columns[0].Len()
}

// Column returns the named column, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// AddColumn appends a column and returns it. It panics if the name is taken:
// that is a programming error, not bad input.
func (t *Table) AddColumn(name string, typ Type, unit string) *Column {
	if t.Column(name) != nil {
		panic(fmt.Sprintf("datasets: duplicate column %q", name))
	}
	c := &Column{Name: name, Type: typ, Unit: unit}
	t.Columns = append(t.Columns, c)
	return c
}

// Len returns the number of values.
func (c *Column) Len() int {
	switch c.Type {
	case String:
		return len(c.Str)
	case Float:
		return len(c.Float)
	default:
		return len(c.Int)
	}
}

// IsNull reports whether row i is null.
func (c *Column) IsNull(i int) bool { return c.Null != nil && c.Null[i] }

func (c *Column) markNull(isNull bool) {
	n := c.Len() - 1 // the value was appended already
	if isNull && c.Null == nil {
		c.Null = make([]bool, n, n+1)
	}
	if c.Null != nil {
		c.Null = append(c.Null, isNull)
	}
}

// AppendString appends a string value; null when null is true.
func (c *Column) AppendString(v string, null bool) {
	if null {
		v = ""
	}
	c.Str = append(c.Str, v)
	c.markNull(null)
}

// AppendInt appends an integer (or time, in ns) value.
func (c *Column) AppendInt(v int64, null bool) {
	if null {
		v = 0
	}
	c.Int = append(c.Int, v)
	c.markNull(null)
}

// AppendFloat appends a float value. A NaN is stored as null: in Go code of
// this package NaN means "absent", and a NaN in a file is invalid.
func (c *Column) AppendFloat(v float64) {
	null := math.IsNaN(v)
	c.Float = append(c.Float, v)
	c.markNull(null)
}

// StringAt returns row i of a String column ("" when null).
func (c *Column) StringAt(i int) string { return c.Str[i] }

// FloatAt returns row i of a Float column, NaN when null.
func (c *Column) FloatAt(i int) float64 {
	if c.IsNull(i) {
		return math.NaN()
	}
	return c.Float[i]
}

// Value returns row i as a Go value: nil for null, else string, int64 or
// float64.
func (c *Column) Value(i int) any {
	if c.IsNull(i) {
		return nil
	}
	switch c.Type {
	case String:
		return c.Str[i]
	case Float:
		return c.Float[i]
	default:
		return c.Int[i]
	}
}

// Format returns row i as text, "" for null.
func (c *Column) Format(i int) string {
	switch v := c.Value(i).(type) {
	case nil:
		return ""
	case string:
		return v
	case int64:
		if c.Type == Time {
			return formatTime(v)
		}
		return fmt.Sprint(v)
	case float64:
		return formatFloat(v)
	}
	return ""
}

// NullCount returns the number of null values.
func (c *Column) NullCount() int {
	n := 0
	for _, b := range c.Null {
		if b {
			n++
		}
	}
	return n
}

// appendFrom appends row i of src (same type) to c.
func (c *Column) appendFrom(src *Column, i int) {
	null := src.IsNull(i)
	switch c.Type {
	case String:
		c.AppendString(src.Str[i], null)
	case Float:
		if null {
			c.AppendFloat(math.NaN())
		} else {
			c.Float = append(c.Float, src.Float[i])
			c.markNull(false)
		}
	default:
		c.AppendInt(src.Int[i], null)
	}
}

// appendNull appends a null value.
func (c *Column) appendNull() {
	switch c.Type {
	case String:
		c.AppendString("", true)
	case Float:
		c.AppendFloat(math.NaN())
	default:
		c.AppendInt(0, true)
	}
}

// Select returns a new table holding the given rows of t, in that order.
func (t *Table) Select(rows []int) *Table {
	out := &Table{Kind: t.Kind, Version: t.Version, Meta: copyMeta(t.Meta)}
	for _, c := range t.Columns {
		nc := out.AddColumn(c.Name, c.Type, c.Unit)
		nc.Meta = copyMeta(c.Meta)
		for _, i := range rows {
			nc.appendFrom(c, i)
		}
	}
	return out
}

func copyMeta(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

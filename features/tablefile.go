package features

import (
	"github.com/coloc-dev/coloc/datasets"
)

// Table is a small versioned Arrow table that is not one of the dataset
// tables: the feature file, and evaluation results (model/eval). It
// carries its name and version in the schema metadata (coloc.table,
// coloc.version, as the dataset tables do) and each column's unit in field
// metadata.
//
// It is stored with datasets.WriteOther and read with datasets.ReadOther,
// so it gets the same atomic writes and verified reads as the dataset
// tables.
type Table struct {
	Name    string
	Version int
	Meta    map[string]string
	Columns []TableColumn
}

// TableColumn is one column: exactly one of Str, Int and Float holds the
// values. A NaN float is written as null; an empty string is written as
// null when Nullable is set.
type TableColumn struct {
	Name     string
	Unit     string
	Meta     map[string]string // extra field metadata
	Str      []string
	Int      []int64
	Float    []float64
	Nullable bool
}

// WriteTable writes t to path atomically, through the file machinery of
// package datasets (datasets.WriteOther).
func WriteTable(path string, t *Table) error {
	dt := &datasets.Table{Kind: datasets.Kind(t.Name), Version: t.Version, Meta: t.Meta}
	for i := range t.Columns {
		c := &t.Columns[i]
		switch {
		case c.Str != nil:
			dc := dt.AddColumn(c.Name, datasets.String, c.Unit)
			for _, v := range c.Str {
				dc.AppendString(v, v == "" && c.Nullable)
			}
			dc.Meta = c.Meta
		case c.Int != nil:
			dc := dt.AddColumn(c.Name, datasets.Int, c.Unit)
			dc.Int, dc.Meta = c.Int, c.Meta
		default:
			dc := dt.AddColumn(c.Name, datasets.Float, c.Unit)
			for _, v := range c.Float {
				dc.AppendFloat(v) // NaN is written as null
			}
			dc.Meta = c.Meta
		}
	}
	return datasets.WriteOther(path, dt)
}

// ReadTable reads a table written by WriteTable and checks its name and
// version: a file of another table or version is refused. A null float
// reads as NaN, a null string as "".
func ReadTable(path, name string, version int) (*Table, error) {
	dt, err := datasets.ReadOther(path, datasets.Kind(name), version)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: name, Version: version, Meta: map[string]string{}}
	for k, v := range dt.Meta {
		t.Meta[k] = v
	}
	for _, dc := range dt.Columns {
		c := TableColumn{Name: dc.Name, Unit: dc.Unit, Meta: map[string]string{}}
		for k, v := range dc.Meta {
			c.Meta[k] = v
		}
		switch dc.Type {
		case datasets.String:
			c.Str = append([]string{}, dc.Str...)
			c.Nullable = dc.Null != nil
		case datasets.Int, datasets.Time:
			c.Int = append([]int64{}, dc.Int...)
		default:
			c.Float = make([]float64, dc.Len())
			for i := range c.Float {
				c.Float[i] = dc.FloatAt(i)
			}
		}
		t.Columns = append(t.Columns, c)
	}
	return t, nil
}

// Column returns the named column, or nil.
func (t *Table) Column(name string) *TableColumn {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

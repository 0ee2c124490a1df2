package features

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/coloc-dev/coloc/datasets"
)

// Table is a small versioned Arrow table that is not one of the dataset
// tables: the feature file, and evaluation results (model/eval). It
// carries its name and version in the schema metadata (coloc.table,
// coloc.version, as the dataset tables do) and each column's unit in field
// metadata.
//
// datasets.NewWriter accepts only the five dataset kinds, hence this
// writer; a generic hook there (a writer for a caller-described schema)
// would replace it.
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

func (c *TableColumn) len() int {
	switch {
	case c.Str != nil:
		return len(c.Str)
	case c.Int != nil:
		return len(c.Int)
	}
	return len(c.Float)
}

// WriteTable writes t to path atomically (a temporary file in the same
// directory, renamed into place).
func WriteTable(path string, t *Table) (err error) {
	n := -1
	fields := make([]arrow.Field, len(t.Columns))
	for i := range t.Columns {
		c := &t.Columns[i]
		if n >= 0 && c.len() != n {
			return fmt.Errorf("writing %s: column %s has %d values, column %s has %d", path, c.Name, c.len(), t.Columns[0].Name, n)
		}
		n = c.len()
		keys, vals := []string{datasets.MetaUnit}, []string{c.Unit}
		for _, k := range sortedKeys(c.Meta) {
			keys, vals = append(keys, k), append(vals, c.Meta[k])
		}
		var typ arrow.DataType = arrow.PrimitiveTypes.Float64
		switch {
		case c.Str != nil:
			typ = arrow.BinaryTypes.String
		case c.Int != nil:
			typ = arrow.PrimitiveTypes.Int64
		}
		fields[i] = arrow.Field{Name: c.Name, Type: typ, Nullable: true, Metadata: arrow.NewMetadata(keys, vals)}
	}
	keys := []string{datasets.MetaTable, datasets.MetaVersion}
	vals := []string{t.Name, strconv.Itoa(t.Version)}
	for _, k := range sortedKeys(t.Meta) {
		if k != datasets.MetaTable && k != datasets.MetaVersion {
			keys, vals = append(keys, k), append(vals, t.Meta[k])
		}
	}
	md := arrow.NewMetadata(keys, vals)
	schema := arrow.NewSchema(fields, &md)

	mem := memory.DefaultAllocator
	cols := make([]arrow.Array, len(t.Columns))
	for i := range t.Columns {
		c := &t.Columns[i]
		switch {
		case c.Str != nil:
			b := array.NewStringBuilder(mem)
			for _, s := range c.Str {
				if s == "" && c.Nullable {
					b.AppendNull()
				} else {
					b.Append(s)
				}
			}
			cols[i] = b.NewArray()
			b.Release()
		case c.Int != nil:
			b := array.NewInt64Builder(mem)
			b.AppendValues(c.Int, nil)
			cols[i] = b.NewArray()
			b.Release()
		default:
			b := array.NewFloat64Builder(mem)
			for _, v := range c.Float {
				if v != v {
					b.AppendNull()
				} else {
					b.Append(v)
				}
			}
			cols[i] = b.NewArray()
			b.Release()
		}
	}
	rec := array.NewRecordBatch(schema, cols, int64(max(n, 0)))
	defer rec.Release()
	for _, a := range cols {
		a.Release()
	}

	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = w.Write(rec); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err == nil {
		err = f.Sync()
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReadTable reads a table written by WriteTable and checks its name and
// version: a file of another table or version is refused.
func ReadTable(path, name string, version int) (t *Table, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("%s: corrupt Arrow file: %v", path, p)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r, err := ipc.NewFileReader(io.NewSectionReader(f, 0, st.Size()), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Arrow IPC file: %w", path, err)
	}
	defer r.Close()
	md := r.Schema().Metadata()
	got, _ := md.GetValue(datasets.MetaTable)
	if got != name {
		return nil, fmt.Errorf("%s: holds table %q, want %q", path, got, name)
	}
	vs, _ := md.GetValue(datasets.MetaVersion)
	if v, err := strconv.Atoi(vs); err != nil || v != version {
		return nil, fmt.Errorf("%s: table %s has version %q; this coloc reads version %d", path, name, vs, version)
	}
	t = &Table{Name: name, Version: version, Meta: map[string]string{}}
	for i, k := range md.Keys() {
		if k != datasets.MetaTable && k != datasets.MetaVersion {
			t.Meta[k] = md.Values()[i]
		}
	}
	for _, fl := range r.Schema().Fields() {
		c := TableColumn{Name: fl.Name, Meta: map[string]string{}}
		for i, k := range fl.Metadata.Keys() {
			if k == datasets.MetaUnit {
				c.Unit = fl.Metadata.Values()[i]
			} else {
				c.Meta[k] = fl.Metadata.Values()[i]
			}
		}
		switch fl.Type.ID() {
		case arrow.STRING:
			c.Str = []string{}
		case arrow.INT64:
			c.Int = []int64{}
		case arrow.FLOAT64:
			c.Float = []float64{}
		default:
			return nil, fmt.Errorf("%s: column %s: unsupported type %s", path, fl.Name, fl.Type)
		}
		t.Columns = append(t.Columns, c)
	}
	for b := 0; b < r.NumRecords(); b++ {
		rec, err := r.RecordBatchAt(b)
		if err != nil {
			return nil, fmt.Errorf("%s: record batch %d: %w", path, b, err)
		}
		for j := range t.Columns {
			c := &t.Columns[j]
			switch a := rec.Column(j).(type) {
			case *array.String:
				for i := 0; i < a.Len(); i++ {
					c.Str = append(c.Str, a.Value(i))
				}
			case *array.Int64:
				c.Int = append(c.Int, a.Int64Values()...)
			case *array.Float64:
				for i := 0; i < a.Len(); i++ {
					v := a.Value(i)
					if a.IsNull(i) {
						v = nan()
					}
					c.Float = append(c.Float, v)
				}
			}
		}
		rec.Release()
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

package profile

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/coloc-dev/coloc/datasets"
)

// The ncu kernels file is an Arrow IPC file of its own (not one of the
// five dataset tables): schema metadata "coloc.table"="ncu_kernels" and
// "coloc.version"="1", "ncu.format" (details or raw) and "coloc.source"
// (the CSV it came from); the identity columns of ncuKernelColumns, then
// one float64 column per metric with its unit in field metadata "unit"
// and ncu's own names in "ncu.metric" and "ncu.section".
const (
	NCUTableName = "ncu_kernels"
	NCUVersion   = 1
)

const (
	metaNCUFormat  = "ncu.format"
	metaNCUMetric  = "ncu.metric"
	metaNCUSection = "ncu.section"
	metaSource     = "coloc.source"
)

// ncuKernelColumns are the identity columns of the kernels file, in order.
var ncuKernelColumns = []struct {
	name string
	typ  arrow.DataType
}{
	{"id", arrow.PrimitiveTypes.Int64},
	{"process_id", arrow.PrimitiveTypes.Int64},
	{"process_name", arrow.BinaryTypes.String},
	{"host_name", arrow.BinaryTypes.String},
	{"kernel_name", arrow.BinaryTypes.String},
	{"context", arrow.PrimitiveTypes.Int64},
	{"stream", arrow.PrimitiveTypes.Int64},
	{"block_size", arrow.BinaryTypes.String},
	{"grid_size", arrow.BinaryTypes.String},
	{"device", arrow.PrimitiveTypes.Int64},
	{"cc", arrow.BinaryTypes.String},
}

func ncuSchema(t *NCUTable, source string) *arrow.Schema {
	var fields []arrow.Field
	for _, c := range ncuKernelColumns {
		unit := datasets.UnitNone
		if c.name == "id" || c.name == "device" {
			unit = datasets.UnitIndex
		}
		fields = append(fields, arrow.Field{Name: c.name, Type: c.typ, Nullable: true,
			Metadata: arrow.NewMetadata([]string{datasets.MetaUnit}, []string{unit})})
	}
	for _, m := range t.Metrics {
		fields = append(fields, arrow.Field{Name: m.Name, Type: arrow.PrimitiveTypes.Float64, Nullable: true,
			Metadata: arrow.NewMetadata([]string{datasets.MetaUnit, metaNCUMetric, metaNCUSection}, []string{m.Unit, m.Metric, m.Section})})
	}
	md := arrow.NewMetadata(
		[]string{datasets.MetaTable, datasets.MetaVersion, metaNCUFormat, metaSource},
		[]string{NCUTableName, strconv.Itoa(NCUVersion), t.Format, source})
	return arrow.NewSchema(fields, &md)
}

// WriteNCU writes t to path as an ncu kernels file, atomically (a
// temporary file in the same directory, renamed into place). source names
// the CSV it came from.
func WriteNCU(path string, t *NCUTable, source string) (err error) {
	schema := ncuSchema(t, source)
	rec := ncuRecord(schema, t)
	defer rec.Release()
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
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func ncuRecord(schema *arrow.Schema, t *NCUTable) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, k := range t.Kernels {
		ints := []int64{k.ID, k.ProcessID, k.Context, k.Stream, k.Device}
		strs := []string{k.ProcessName, k.HostName, k.Name, k.BlockSize, k.GridSize, k.CC}
		ii, si := 0, 0
		for j, c := range ncuKernelColumns {
			if c.typ.ID() == arrow.INT64 {
				fb := b.Field(j).(*array.Int64Builder)
				if v := ints[ii]; v < 0 {
					fb.AppendNull()
				} else {
					fb.Append(v)
				}
				ii++
				continue
			}
			b.Field(j).(*array.StringBuilder).Append(strs[si])
			si++
		}
		for j, v := range k.Values {
			fb := b.Field(len(ncuKernelColumns) + j).(*array.Float64Builder)
			if math.IsNaN(v) {
				fb.AppendNull()
			} else {
				fb.Append(v)
			}
		}
	}
	return b.NewRecordBatch()
}

// ReadNCU reads an ncu kernels file written by WriteNCU, checking its
// table name, version, columns and units; a file of another version fails
// with an error wrapping datasets.ErrVersion.
func ReadNCU(path string) (t *NCUTable, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("%s: corrupt Arrow file: %v", path, p)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Arrow IPC file: %w", path, err)
	}
	defer r.Close()
	s := r.Schema()
	md := s.Metadata()
	if v, _ := md.GetValue(datasets.MetaTable); v != NCUTableName {
		return nil, fmt.Errorf("%s: not an ncu kernels file (table %q, want %q)", path, v, NCUTableName)
	}
	if v, _ := md.GetValue(datasets.MetaVersion); v != strconv.Itoa(NCUVersion) {
		return nil, fmt.Errorf("%s: ncu kernels file of version %q; this coloc reads version %d: %w", path, v, NCUVersion, datasets.ErrVersion)
	}
	t = &NCUTable{}
	t.Format, _ = md.GetValue(metaNCUFormat)
	if t.Format != "details" && t.Format != "raw" {
		return nil, fmt.Errorf("%s: %s %q, want details or raw", path, metaNCUFormat, t.Format)
	}
	fields := s.Fields()
	if len(fields) < len(ncuKernelColumns) {
		return nil, fmt.Errorf("%s: %d columns, want at least the %d identity columns", path, len(fields), len(ncuKernelColumns))
	}
	for j, c := range ncuKernelColumns {
		if fields[j].Name != c.name || !arrow.TypeEqual(fields[j].Type, c.typ) {
			return nil, fmt.Errorf("%s: column %d is %s %s, want %s %s", path, j+1, fields[j].Name, fields[j].Type, c.name, c.typ)
		}
	}
	for _, fl := range fields[len(ncuKernelColumns):] {
		unit, _ := fl.Metadata.GetValue(datasets.MetaUnit)
		if fl.Type.ID() != arrow.FLOAT64 || unit == "" {
			return nil, fmt.Errorf("%s: column %s: metric columns are float64 with a unit, this is %s [%s]", path, fl.Name, fl.Type, unit)
		}
		metric, _ := fl.Metadata.GetValue(metaNCUMetric)
		section, _ := fl.Metadata.GetValue(metaNCUSection)
		t.Metrics = append(t.Metrics, NCUMetric{Name: fl.Name, Metric: metric, Section: section, Unit: unit})
	}
	seen := map[int64]bool{}
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			return nil, fmt.Errorf("%s: record batch %d: %w", path, i, err)
		}
		err = appendNCURecord(t, rec, seen, path)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

func appendNCURecord(t *NCUTable, rec arrow.RecordBatch, seen map[int64]bool, path string) error {
	intAt := func(j, i int) int64 {
		a := rec.Column(j).(*array.Int64)
		if a.IsNull(i) {
			return -1
		}
		return a.Value(i)
	}
	strAt := func(j, i int) string { return rec.Column(j).(*array.String).Value(i) }
	for i := 0; i < int(rec.NumRows()); i++ {
		if rec.Column(0).IsNull(i) {
			return fmt.Errorf("%s: row %d: column id is null", path, len(t.Kernels)+1)
		}
		k := NCUKernel{
			ID: intAt(0, i), ProcessID: intAt(1, i), ProcessName: strAt(2, i), HostName: strAt(3, i),
			Name: strAt(4, i), Context: intAt(5, i), Stream: intAt(6, i), BlockSize: strAt(7, i),
			GridSize: strAt(8, i), Device: intAt(9, i), CC: strAt(10, i),
		}
		if seen[k.ID] {
			return fmt.Errorf("%s: row %d: column id: launch %d appears twice", path, len(t.Kernels)+1, k.ID)
		}
		seen[k.ID] = true
		for j := range t.Metrics {
			a := rec.Column(len(ncuKernelColumns) + j).(*array.Float64)
			v := math.NaN()
			if !a.IsNull(i) {
				v = a.Value(i)
			}
			k.Values = append(k.Values, v)
		}
		t.Kernels = append(t.Kernels, k)
	}
	return nil
}

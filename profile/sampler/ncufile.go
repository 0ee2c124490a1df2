package sampler

import (
	"fmt"

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
	typ  datasets.Type
}{
	{"id", datasets.Int},
	{"process_id", datasets.Int},
	{"process_name", datasets.String},
	{"host_name", datasets.String},
	{"kernel_name", datasets.String},
	{"context", datasets.Int},
	{"stream", datasets.Int},
	{"block_size", datasets.String},
	{"grid_size", datasets.String},
	{"device", datasets.Int},
	{"cc", datasets.String},
}

// WriteNCU writes t to path as an ncu kernels file, atomically, through
// the file machinery of package datasets. source names the CSV it came
// from.
func WriteNCU(path string, t *NCUTable, source string) error {
	out := &datasets.Table{Kind: NCUTableName, Version: NCUVersion,
		Meta: map[string]string{metaNCUFormat: t.Format, metaSource: source}}
	cols := make([]*datasets.Column, len(ncuKernelColumns))
	for j, c := range ncuKernelColumns {
		unit := datasets.UnitNone
		if c.name == "id" || c.name == "device" {
			unit = datasets.UnitIndex
		}
		cols[j] = out.AddColumn(c.name, c.typ, unit)
	}
	metrics := make([]*datasets.Column, len(t.Metrics))
	for j, m := range t.Metrics {
		metrics[j] = out.AddColumn(m.Name, datasets.Float, m.Unit)
		metrics[j].Meta = map[string]string{metaNCUMetric: m.Metric, metaNCUSection: m.Section}
	}
	for _, k := range t.Kernels {
		ints := []int64{k.ID, k.ProcessID, k.Context, k.Stream, k.Device}
		strs := []string{k.ProcessName, k.HostName, k.Name, k.BlockSize, k.GridSize, k.CC}
		ii, si := 0, 0
		for j, c := range ncuKernelColumns {
			if c.typ == datasets.Int {
				cols[j].AppendInt(ints[ii], ints[ii] < 0) // -1: the CSV had no such column
				ii++
				continue
			}
			cols[j].AppendString(strs[si], false)
			si++
		}
		for j, v := range k.Values {
			metrics[j].AppendFloat(v) // NaN is written as null
		}
	}
	return datasets.WriteOther(path, out)
}

// ReadNCU reads an ncu kernels file written by WriteNCU, checking its
// table name, version, columns and units; a file of another version fails
// with an error wrapping datasets.ErrVersion.
func ReadNCU(path string) (*NCUTable, error) {
	in, err := datasets.ReadOther(path, NCUTableName, NCUVersion)
	if err != nil {
		return nil, err
	}
	t := &NCUTable{Format: in.Meta[metaNCUFormat]}
	if t.Format != "details" && t.Format != "raw" {
		return nil, fmt.Errorf("%s: %s %q, want details or raw", path, metaNCUFormat, t.Format)
	}
	if len(in.Columns) < len(ncuKernelColumns) {
		return nil, fmt.Errorf("%s: %d columns, want at least the %d identity columns", path, len(in.Columns), len(ncuKernelColumns))
	}
	for j, c := range ncuKernelColumns {
		if got := in.Columns[j]; got.Name != c.name || got.Type != c.typ {
			return nil, fmt.Errorf("%s: column %d is %s %s, want %s %s", path, j+1, got.Name, got.Type, c.name, c.typ)
		}
	}
	metrics := in.Columns[len(ncuKernelColumns):]
	for _, c := range metrics {
		if c.Type != datasets.Float || c.Unit == "" {
			return nil, fmt.Errorf("%s: column %s: metric columns are float64 with a unit, this is %s [%s]", path, c.Name, c.Type, c.Unit)
		}
		t.Metrics = append(t.Metrics, NCUMetric{Name: c.Name, Metric: c.Meta[metaNCUMetric], Section: c.Meta[metaNCUSection], Unit: c.Unit})
	}
	intAt := func(j, i int) int64 {
		if in.Columns[j].IsNull(i) {
			return -1
		}
		return in.Columns[j].Int[i]
	}
	strAt := func(j, i int) string { return in.Columns[j].Str[i] }
	seen := map[int64]bool{}
	for i := 0; i < in.Len(); i++ {
		if in.Columns[0].IsNull(i) {
			return nil, fmt.Errorf("%s: row %d: column id is null", path, i+1)
		}
		k := NCUKernel{
			ID: intAt(0, i), ProcessID: intAt(1, i), ProcessName: strAt(2, i), HostName: strAt(3, i),
			Name: strAt(4, i), Context: intAt(5, i), Stream: intAt(6, i), BlockSize: strAt(7, i),
			GridSize: strAt(8, i), Device: intAt(9, i), CC: strAt(10, i),
		}
		if seen[k.ID] {
			return nil, fmt.Errorf("%s: row %d: column id: launch %d appears twice", path, i+1, k.ID)
		}
		seen[k.ID] = true
		for _, c := range metrics {
			k.Values = append(k.Values, c.FloatAt(i))
		}
		t.Kernels = append(t.Kernels, k)
	}
	return t, nil
}

package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// builderRecord makes a record batch the plain way, through the Arrow
// builders: the reference ArrowRecord must match byte for byte.
func builderRecord(schema *arrow.Schema, t *Table, lo, hi int) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	cols := make([]arrow.Array, len(t.Columns))
	for j, c := range t.Columns {
		var valid []bool
		if c.Null != nil {
			valid = make([]bool, hi-lo)
			for i := range valid {
				valid[i] = !c.Null[lo+i]
			}
		}
		switch c.Type {
		case String:
			b := array.NewStringBuilder(mem)
			b.AppendValues(c.Str[lo:hi], valid)
			cols[j] = b.NewArray()
			b.Release()
		case Int:
			b := array.NewInt64Builder(mem)
			b.AppendValues(c.Int[lo:hi], valid)
			cols[j] = b.NewArray()
			b.Release()
		case Float:
			b := array.NewFloat64Builder(mem)
			b.AppendValues(c.Float[lo:hi], valid)
			cols[j] = b.NewArray()
			b.Release()
		case Time:
			b := array.NewTimestampBuilder(mem, timestampType)
			ts := make([]arrow.Timestamp, hi-lo)
			for i := range ts {
				ts[i] = arrow.Timestamp(c.Int[lo+i])
			}
			b.AppendValues(ts, valid)
			cols[j] = b.NewArray()
			b.Release()
		}
	}
	rec := array.NewRecordBatch(schema, cols, int64(hi-lo))
	for _, a := range cols {
		a.Release()
	}
	return rec
}

type recordFunc func(*arrow.Schema, *Table, int, int) arrow.RecordBatch

// ipcBytes is the Arrow IPC file of tab, its batches made by build and
// given their checksums as Write gives them.
func ipcBytes(t *testing.T, tab *Table, build recordFunc) []byte {
	t.Helper()
	var buf bytes.Buffer
	schema := ArrowSchema(tab)
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		t.Fatal(err)
	}
	sum := newChain(tab, strconv.Itoa(tab.version()))
	for lo := 0; lo < tab.Len(); lo += BatchRows {
		hi := min(lo+BatchRows, tab.Len())
		rec := withSum(build(schema, tab, lo, hi), sum.next(tab, lo, hi))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func parquetBytes(t *testing.T, tab *Table, build recordFunc) []byte {
	t.Helper()
	var buf bytes.Buffer
	schema := ArrowSchema(tab)
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd))
	fw, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < tab.Len(); lo += BatchRows {
		rec := build(schema, tab, lo, min(lo+BatchRows, tab.Len()))
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBuildRecordSameBytes: the record batches ArrowRecord lays out
// directly give the same Arrow IPC and Parquet bytes as the Arrow
// builders, for every kind of table (nulls in strings, ints, floats and
// times, a column that is all null) and across batches (a samples table
// of more than BatchRows rows, whose later batches start mid-column);
// and Write's file is those bytes.
func TestBuildRecordSameBytes(t *testing.T) {
	big := benchSamples(BatchRows + 1000)
	allNull := sampleSolo().Table()
	allNull.Columns = append(allNull.Columns, &Column{Name: "empty", Type: Float, Unit: UnitRatio, Float: []float64{nan, nan}, Null: []bool{true, true}})
	tables := append(sampleTables(), big, allNull)
	// Bitmap lengths depend on the batch length: around the builders'
	// minimum capacity (32) and powers of two, strings with some nulls.
	for _, n := range []int{1, 7, 31, 33, 64, 65, 127, 128, 129, 500, 513, 1000, 4097, BatchRows + 33} {
		s := NewSamples([]Counter{{"power", "W"}})
		t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		for i := 0; i < n; i++ {
			wl := ""
			if i%3 == 1 {
				wl = "w" + itoa(i%5)
			}
			v := float64(i)
			if i%4 == 2 {
				v = nan
			}
			s.Append("run", 0, wl, t0.Add(time.Duration(i)*time.Second), []float64{v})
		}
		tables = append(tables, s.Table())
	}
	dir := t.TempDir()
	for i, tab := range tables {
		want := ipcBytes(t, tab, builderRecord)
		if got := ipcBytes(t, tab, ArrowRecord); !bytes.Equal(got, want) {
			t.Errorf("table %d (%s): IPC bytes differ from the builders' (%d vs %d bytes)", i, tab.Kind, len(got), len(want))
		}
		if tab != allNull {
			path := filepath.Join(dir, tab.Kind.FileName())
			if err := Write(path, tab); err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(file, want) {
				t.Errorf("table %d (%s): Write's file differs from the builders' bytes", i, tab.Kind)
			}
		}
		if tab.Len() < 10_000 {
			if got, want := parquetBytes(t, tab, ArrowRecord), parquetBytes(t, tab, builderRecord); !bytes.Equal(got, want) {
				t.Errorf("table %d (%s): Parquet bytes differ from the builders'", i, tab.Kind)
			}
		}
	}
}

package datasets_test

// The tests of package datasets/export. They sit here, in an external test
// package of datasets, because they use its reference tables, fixtures and
// interop harness (exposed to them by hooks_test.go); datasets itself
// cannot import export.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/datasets/export"
)

func TestParquetExport(t *testing.T) {
	tab, err := datasets.Read(filepath.Join("reference", "gavel", "pairs.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pairs.parquet")
	if err := export.Write(path, export.Parquet, tab); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pt, err := pqarrow.ReadTable(context.Background(), f, parquet.NewReaderProperties(memory.DefaultAllocator), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer pt.Release()
	if pt.NumRows() != int64(tab.Len()) || int(pt.NumCols()) != len(tab.Columns) {
		t.Fatalf("parquet has %d rows x %d cols, want %d x %d", pt.NumRows(), pt.NumCols(), tab.Len(), len(tab.Columns))
	}
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if v := pf.MetaData().KeyValueMetadata().FindValue(datasets.MetaTable); v == nil || *v != "pairs" {
		t.Errorf("parquet key-value metadata %s = %v, want pairs", datasets.MetaTable, v)
	}
	i := pt.Schema().FieldIndices("normalized_throughput")[0]
	if u, _ := pt.Schema().Field(i).Metadata.GetValue(datasets.MetaUnit); u != datasets.UnitRatio {
		t.Errorf("parquet unit = %q", u)
	}
}

func TestExportUnknownFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.json")
	if err := export.Write(path, "json", datasets.SamplePairs().Table()); err == nil {
		t.Fatal("want an error")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("a file was written")
	}
}

// TestInteropParquetJS reads our Parquet exports with an independent
// Parquet reader, the npm package hyparquet under node
// (tests/interop/read_parquet.mjs), and compares the row count, the column
// names and the first and last rows with the exported table. Like the
// Arrow interop test it skips without node and the packages unless
// COLOC_REQUIRE_NODE=1.
func TestInteropParquetJS(t *testing.T) {
	node, script := datasets.InteropNode(t, "hyparquet-compressors", "read_parquet.mjs")
	pairs, err := datasets.Read(filepath.Join("reference", "gavel", "pairs.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tab := range []*datasets.Table{pairs, datasets.SampleRuns().Table()} {
		path := filepath.Join(dir, string(tab.Kind)+".parquet")
		if err := export.Write(path, export.Parquet, tab); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(node, script, path).Output()
		if err != nil {
			t.Fatalf("%s: node: %v", path, err)
		}
		var js struct {
			Rows        int
			Columns     []string
			First, Last map[string]any
		}
		if err := json.Unmarshal(out, &js); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, out)
		}
		if js.Rows != tab.Len() || len(js.Columns) != len(tab.Columns) {
			t.Fatalf("%s: hyparquet sees %d rows and %d columns; the table has %d and %d", path, js.Rows, len(js.Columns), tab.Len(), len(tab.Columns))
		}
		for k, c := range tab.Columns {
			if js.Columns[k] != c.Name {
				t.Errorf("%s: column %d is %q in JS, %q in Go", path, k+1, js.Columns[k], c.Name)
			}
			if c.Type == datasets.Time {
				continue // JS returns a Date; the value check covers the other types
			}
			for _, row := range []struct {
				i  int
				js map[string]any
			}{{0, js.First}, {tab.Len() - 1, js.Last}} {
				if !datasets.SameValue(c, row.i, row.js[c.Name]) {
					t.Errorf("%s: row %d column %s: JS %v, Go %v", path, row.i+1, c.Name, row.js[c.Name], c.Value(row.i))
				}
			}
		}
	}
}

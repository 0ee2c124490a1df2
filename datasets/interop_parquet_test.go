package datasets

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestInteropParquetJS reads our Parquet exports with an independent
// Parquet reader, the npm package hyparquet under node
// (tests/interop/read_parquet.mjs), and compares the row count, the column
// names and the first and last rows with the exported table. Like the
// Arrow interop test it skips without node and the packages unless
// COLOC_REQUIRE_NODE=1.
func TestInteropParquetJS(t *testing.T) {
	node, script := interopNode(t, "hyparquet-compressors", "read_parquet.mjs")
	pairs, err := Read(filepath.Join(gavelRef, "pairs.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tab := range []*Table{pairs, sampleRuns().Table()} {
		path := filepath.Join(dir, string(tab.Kind)+".parquet")
		if err := Export(path, FormatParquet, tab); err != nil {
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
			if c.Type == Time {
				continue // JS returns a Date; the value check covers the other types
			}
			for _, row := range []struct {
				i  int
				js map[string]any
			}{{0, js.First}, {tab.Len() - 1, js.Last}} {
				if !sameValue(c, row.i, row.js[c.Name]) {
					t.Errorf("%s: row %d column %s: JS %v, Go %v", path, row.i+1, c.Name, row.js[c.Name], c.Value(row.i))
				}
			}
		}
	}
}

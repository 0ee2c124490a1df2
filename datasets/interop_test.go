package datasets

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/coloc-dev/coloc/internal/optional"
)

// TestInteropApacheArrowJS reads our files with an independent Arrow
// implementation, the npm package apache-arrow under node
// (tests/interop/read.mjs), and compares row count, table metadata, units
// and the first and last rows with what the Go reader reads. CI installs
// the package (npm ci) and sets COLOC_REQUIRE_NODE=1, which turns a skip
// into a failure.
func TestInteropApacheArrowJS(t *testing.T) {
	node, script := interopNode(t, "apache-arrow", "read.mjs")
	runs := filepath.Join(t.TempDir(), "runs.arrow")
	if err := Write(runs, sampleRuns().Table()); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(gavelRef, "pairs.arrow"), runs} {
		out, err := exec.Command(node, script, path).Output()
		if err != nil {
			t.Fatalf("%s: node: %v", path, err)
		}
		var js struct {
			Table, Version string
			Rows           int
			Units          map[string]string
			First, Last    map[string]any
		}
		if err := json.Unmarshal(out, &js); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, out)
		}
		tab, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if v := strconv.Itoa(tab.version()); js.Table != string(tab.Kind) || js.Version != v || js.Rows != tab.Len() {
			t.Fatalf("%s: apache-arrow sees table %q version %q rows %d; Go reads %s, %s, %d", path, js.Table, js.Version, js.Rows, tab.Kind, v, tab.Len())
		}
		for _, c := range tab.Columns {
			if js.Units[c.Name] != c.Unit {
				t.Errorf("%s: column %s unit %q in JS, %q in Go", path, c.Name, js.Units[c.Name], c.Unit)
			}
			if c.Type == Time {
				continue // JS returns milliseconds; the value check covers the other types
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

func sameValue(c *Column, i int, js any) bool {
	switch v := c.Value(i).(type) {
	case nil:
		return js == nil
	case string:
		return js == v
	case int64:
		f, ok := js.(float64)
		return ok && f == float64(v)
	case float64:
		f, ok := js.(float64)
		return ok && (f == v || math.Abs(f-v) <= 1e-12*math.Abs(v))
	}
	return false
}

// interopNode returns node and the absolute path of the interop script
// tests/interop/<script>, or skips the test when node or the npm package
// module is missing; with COLOC_REQUIRE_NODE=1 (CI) it fails instead.
func interopNode(t *testing.T, module, script string) (node, path string) {
	t.Helper()
	path, _ = filepath.Abs(filepath.Join("..", "tests", "interop", script))
	node, err := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join("..", "tests", "interop", "node_modules", module))
	if err != nil || modErr != nil {
		optional.Missing(t, "node", "COLOC_REQUIRE_NODE", fmt.Sprintf("node or tests/interop/node_modules/%s missing (run npm ci in tests/interop): %v %v", module, err, modErr))
	}
	return node, path
}

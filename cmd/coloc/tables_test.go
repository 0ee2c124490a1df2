package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
)

// TestDatasetsCommandsReadFeatureAndEvalFiles: the feature file of
// `coloc features build` and the result file of `coloc eval -o` are read
// by datasets inspect, validate and export like the dataset tables, and a
// feature file its own reader refuses is refused by them too.
func TestDatasetsCommandsReadFeatureAndEvalFiles(t *testing.T) {
	tmp := t.TempDir()
	feat := filepath.Join(tmp, "features.arrow")
	mustRun(t, "features", "build", "--data", refGavel, "-o", feat)
	ev := filepath.Join(tmp, "eval.arrow")
	mustRun(t, "eval", "--data", refGavel, "--models", "mean", "--fractions", "0.5", "--seeds", "1", "-q", "-o", ev)

	for _, tc := range []struct{ file, table string }{{feat, "table features, version 1"}, {ev, "table eval, version 2"}} {
		out, _ := mustRun(t, "datasets", "inspect", tc.file)
		if !strings.Contains(out, tc.table) {
			t.Errorf("inspect %s: %q lacks %q", tc.file, out, tc.table)
		}
		out, _ = mustRun(t, "datasets", "validate", tc.file)
		if !strings.Contains(out, ": ok (") {
			t.Errorf("validate %s: %q", tc.file, out)
		}
		csv := strings.TrimSuffix(tc.file, ".arrow") + ".csv"
		mustRun(t, "datasets", "export", "--format", "csv", tc.file, "-o", csv)
		if b, err := os.ReadFile(csv); err != nil || !strings.HasPrefix(string(b), map[string]string{feat: "workload,device_type,degree", ev: "model,"}[tc.file]) {
			t.Errorf("export %s: %q, %v", tc.file, strings.SplitN(string(b), "\n", 2)[0], err)
		}
	}

	// A feature file whose structure is sound but whose values features.Read
	// refuses (a row without a workload) is invalid for validate too.
	tab, err := datasets.ReadOther(feat, features.TableName, features.Version)
	if err != nil {
		t.Fatal(err)
	}
	tab.Version = features.Version
	tab.Columns[0].Str[0] = ""
	bad := filepath.Join(tmp, "bad.arrow")
	if err := datasets.WriteOther(bad, tab); err != nil {
		t.Fatal(err)
	}
	if _, err := features.Read(bad); err == nil {
		t.Fatal("features.Read accepts a row without a workload; pick another defect")
	}
	if out, _, err := runCmd(t, "datasets", "validate", bad); err == nil || strings.Contains(out, ": ok (") {
		t.Errorf("validate of a bad feature file: %v\n%s", err, out)
	}
}

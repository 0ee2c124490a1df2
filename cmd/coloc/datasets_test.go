package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const refGavel = "../../datasets/reference/gavel"

func TestImportGavelCommand(t *testing.T) {
	dir := t.TempDir()
	out, stderr, err := runCmd(t, "datasets", "import", "gavel", refGavel+"/upstream/simulation_throughputs.json", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"solo.arrow: 489 rows", "pairs.arrow: 10338 rows", "scaling.arrow: 489 rows"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
	if strings.Count(stderr, "warning:") != 3 {
		t.Errorf("stderr %q, want 3 warnings", stderr)
	}
	out, _, err = runCmd(t, "datasets", "validate", dir)
	if err != nil || !strings.Contains(out, "ok (dataset: solo 489 rows, pairs 10338 rows, scaling 489 rows; checksums verified)") {
		t.Fatalf("validate: %v %q", err, out)
	}
}

// Bad input gets a clear error and writes nothing.
func TestImportBadInputWritesNothing(t *testing.T) {
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.json")
	os.WriteFile(bad, []byte(`{"k80": {"('A', 1)": {"null": 2, "('B', 1)": [1, 1]}}}`), 0o644)
	badCSV := filepath.Join(tmp, "bad.csv")
	os.WriteFile(badCSV, []byte("workload,partner,device_type,degree,solo_throughput,colocated_throughput\nA,B,v100,1,10,4\nB,A,v100,1,-5,3\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"datasets", "import", "gavel", bad}, "pair names unknown workload ('B', 1)"},
		{[]string{"datasets", "import", "csv", "--table", "pairs", badCSV}, "bad.csv:3: column solo_throughput: -5 is not positive"},
		{[]string{"datasets", "import", "csv", "--table", "nope", badCSV}, `unknown table "nope"`},
		{[]string{"datasets", "import", "gavel", filepath.Join(tmp, "missing.json")}, "no such file"},
	}
	for _, c := range cases {
		out := filepath.Join(tmp, "out")
		_, _, err := runCmd(t, append(c.args, "-o", out)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("%v: wrote %v", c.args, entries)
		}
	}
}

func TestValidateCommandReportsEachProblem(t *testing.T) {
	tmp := t.TempDir()
	trunc := filepath.Join(tmp, "pairs.arrow")
	b, _ := os.ReadFile(refGavel + "/pairs.arrow")
	os.WriteFile(trunc, b[:len(b)/3], 0o644)
	out, _, err := runCmd(t, "datasets", "validate", refGavel+"/solo.arrow", trunc)
	if err == nil || exitCode(err) != 1 {
		t.Fatalf("err %v, want exit status 1", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "ok (table solo, 489 rows, checksums verified)") || !strings.Contains(lines[1], trunc+": not a readable Arrow IPC file") {
		t.Errorf("output:\n%s", out)
	}
}

func TestInspectMergeExport(t *testing.T) {
	tmp := t.TempDir()
	out, _, err := runCmd(t, "datasets", "inspect", refGavel+"/pairs.arrow")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"table pairs, version 1, 10338 rows", "normalized_throughput", "iterations/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
	csvPath := filepath.Join(tmp, "pairs.csv")
	if _, _, err := runCmd(t, "datasets", "export", "--format", "csv", refGavel+"/pairs.arrow", "-o", csvPath); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(tmp, "back")
	if _, _, err := runCmd(t, "datasets", "import", "csv", "--table", "pairs", csvPath, "-o", back); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(tmp, "merged.arrow")
	out, _, err = runCmd(t, "datasets", "merge", "-o", merged, refGavel+"/pairs.arrow", back+"/pairs.arrow")
	if err != nil {
		t.Fatal(err)
	}
	// The CSV round trip is exact, so every row collapses with its twin.
	if !strings.Contains(out, "10338 rows from 20676 input rows") {
		t.Errorf("merge output %q", out)
	}
}

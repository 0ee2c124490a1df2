package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

const fakeSuite = "../../benchmarks/testdata/fake.yaml"

func runColoc(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func TestProfilePlan(t *testing.T) {
	out, _, err := runColoc(t, "profile", "plan", "--suite", fakeSuite, "--gpus", "2", "--repeats", "1", "--duration", "10s")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "profile_plan.golden", out)

	out, _, err = runColoc(t, "profile", "plan", "--suite", fakeSuite, "--gpus", "2", "--repeats", "1", "--duration", "10s", "--shard", "2/3", "--json")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "profile_plan_shard.golden", out)
}

func TestProfileRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "camp")
	python, _ := filepath.Abs("../../benchmarks/testdata/fakepython.sh")
	args := []string{"profile", "run", "--suite", fakeSuite, "--out", dir, "--device", "cpu", "--python", python,
		"--duration", "1s", "--warmup", "0s", "--repeats", "1", "--pairs", "fast+slow,plain+plain", "--degrees", "1"}
	out, stderr, err := runColoc(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"5 runs to do", "[3/5] solo.plain.r0: ok", "5 runs: 5 ok, 0 failed", "wrote " + dir + ": 7 runs rows, 3 solo rows, 3 pairs rows"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\r") {
		t.Error("progress bar drawn on a non-terminal")
	}
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Pairs.Rows) != 3 || ds.Pairs.ThroughputUnit != datasets.UnitSamplesPerS {
		t.Errorf("pairs %+v", ds.Pairs)
	}

	out, _, err = runColoc(t, args...)
	if err != nil || !strings.Contains(out, "resuming: 5 runs already finished, 0 to go") {
		t.Errorf("rerun: %v\n%s", err, out)
	}
	args[len(args)-5] = "2" // --repeats 2
	_, _, err = runColoc(t, args...)
	if err == nil || !strings.Contains(err.Error(), "holds another campaign") {
		t.Errorf("rerun with other repeats: %v, want a refusal", err)
	}
}

func TestProfileRunErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--device", "cuda"}, "--device cuda: no GPU found"},
		{[]string{"--device", "tpu"}, `--device "tpu": want cuda or cpu`},
		{[]string{"--device", "cpu", "--share", "mps"}, "--share mps needs --device cuda"},
		{[]string{"--device", "cpu", "--share", "spatial"}, `--share "spatial": want timeslice or mps`},
		{[]string{"--device", "cpu", "--interval", "0s"}, "--interval must be positive"},
		{[]string{"--device", "cpu", "--shard", "3/2"}, "want i/n with 1 <= i <= n"},
		{[]string{"--device", "cpu", "--pairs", "fast+nope"}, `no workload "nope" in suite fake`},
		{[]string{"--device", "cpu", "--degrees", "1,two"}, "--degrees:"},
	}
	for _, tc := range tests {
		args := append([]string{"profile", "run", "--suite", fakeSuite, "--out", dir}, tc.args...)
		_, _, err := runColoc(t, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

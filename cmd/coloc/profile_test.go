package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

const fakeSuite = "../../profile/testdata/fake.yaml"

func TestProfilePlan(t *testing.T) {
	out, _, err := runCmd(t, "profile", "plan", "--suite", fakeSuite, "--gpus", "2", "--repeats", "1", "--duration", "10s")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/profile_plan.golden", out)

	out, _, err = runCmd(t, "profile", "plan", "--suite", fakeSuite, "--gpus", "2", "--repeats", "1", "--duration", "10s", "--shard", "2/3", "--json")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/profile_plan_shard.golden", out)
}

func TestProfileRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "camp")
	python, _ := filepath.Abs("../../profile/testdata/fakepython.sh")
	args := []string{"profile", "run", "--suite", fakeSuite, "--out", dir, "--device", "cpu", "--python", python,
		"--duration", "1s", "--warmup", "0s", "--repeats", "1", "--pairs", "fast+slow,plain+plain", "--degrees", "1"}
	out, stderr, err := runCmd(t, args...)
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

	out, _, err = runCmd(t, args...)
	if err != nil || !strings.Contains(out, "resuming: 5 runs already finished, 0 to go") {
		t.Errorf("rerun: %v\n%s", err, out)
	}
	args[len(args)-5] = "2" // --repeats 2
	_, _, err = runCmd(t, args...)
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
		_, _, err := runCmd(t, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// A campaign that finishes with failed runs exits with status 3, lists
// them with the last line of their stderr and their log, and writes the
// tables of the others; --retry-failed redoes only them.
func TestProfileRunFailedRunsExit3(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "camp")
	python, _ := filepath.Abs("../../profile/testdata/fakepython.sh")
	script, _ := filepath.Abs("../../profile/testdata/fake.sh")
	suite := filepath.Join(tmp, "suite.yaml")
	os.WriteFile(suite, []byte("version: 1\nname: mixed\nworkloads:\n"+
		"  - name: good\n    class: other\n    batch_size: 4\n    command: [\"{python}\", \""+script+"\", \"ok\"]\n"+
		"  - name: bad\n    class: other\n    batch_size: 4\n    command: [\"{python}\", \""+script+"\", \"crash\"]\n"), 0o644)
	args := []string{"profile", "run", "--suite", suite, "--out", dir, "--device", "cpu", "--python", python,
		"--duration", "1s", "--warmup", "0s", "--repeats", "1", "--pairs", "none", "--degrees", "1"}
	_, stderr, err := runCmd(t, args...)
	if exitCode(err) != exitFailedRuns || !strings.Contains(err.Error(), "--retry-failed") {
		t.Fatalf("error %v (exit %d), want exit status %d naming --retry-failed", err, exitCode(err), exitFailedRuns)
	}
	log := filepath.Join(dir, "logs", "solo.bad.r0.bad.stderr")
	if want := "solo.bad.r0: bad: exit status 1: ValueError: fake crash (log: " + log + ")"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if ds, err := datasets.Open(dir); err != nil || len(ds.Solo.Rows) != 1 {
		t.Errorf("tables of the good run: %v", err)
	}
	planArgs := append([]string{"profile", "plan"}, args[2:]...)
	planArgs = append(planArgs, "--retry-failed", "--timeout", "1m", "--interval", "50ms")
	out, _, err := runCmd(t, planArgs...)
	if err != nil || !strings.Contains(out, dir+": 2 of these runs finished (1 failed, 0 unsettled, 0 shared); a run would do 1,") {
		t.Errorf("profile plan with the flags of run: %v\n%s", err, out)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatasetsSynth: the command writes a catalogue that validates and
// fits, prints its noise floor, and refuses to write over a directory
// that holds files unless told to.
func TestDatasetsSynth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cat")
	out, _ := mustRun(t, "datasets", "synth", "-o", dir, "--workloads", "10", "--rank", "2", "--noise", "0.05", "--seed", "4")
	for _, want := range []string{"10 workloads, 90 pairs", "rank 2", "noise floor MAE: 0.0399"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if out, _ := mustRun(t, "datasets", "validate", dir); !strings.Contains(out, "; checksums verified)") {
		t.Errorf("validate: %s", out)
	}
	models := filepath.Join(t.TempDir(), "models")
	out, errOut := mustRun(t, "fit", "--data", dir, "-o", models, "--models", "bias,pmf", "--folds", "0")
	if !strings.Contains(out, "2 models, 90 pairs, 10 jobs") || strings.Contains(errOut+out, "warning") {
		t.Errorf("fit:\n%s\n%s", out, errOut)
	}
	before, err := os.ReadFile(filepath.Join(dir, "pairs.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "datasets", "synth", "-o", dir, "--seed", "5"); err == nil {
		t.Error("synth wrote over a non-empty directory without --force")
	}
	mustRun(t, "datasets", "synth", "-o", dir, "--workloads", "10", "--rank", "2", "--noise", "0.05", "--seed", "4", "--force")
	after, err := os.ReadFile(filepath.Join(dir, "pairs.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("the same options wrote other bytes")
	}
}

// TestDatasetsSynthCounters: the counters kind writes a dataset that
// validates, with every ordered pair on both default device types, and
// flags of the other kind are refused rather than ignored.
func TestDatasetsSynthCounters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cnt")
	out, _ := mustRun(t, "datasets", "synth", "-o", dir, "--kind", "counters", "--workloads", "6")
	if !strings.Contains(out, "6 workloads, 72 pairs on rtx3090, a100-80gb") {
		t.Errorf("output: %s", out)
	}
	if out, _ := mustRun(t, "datasets", "validate", dir); !strings.Contains(out, "; checksums verified)") {
		t.Errorf("validate: %s", out)
	}
	for _, args := range [][]string{
		{"--kind", "counters", "--rank", "2"},
		{"--kind", "counters", "--device-type", "h100"},
		{"--devices", "h100"},
		{"--kind", "lowrank"},
	} {
		all := append([]string{"datasets", "synth", "-o", filepath.Join(t.TempDir(), "x")}, args...)
		if _, _, err := runCmd(t, all...); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

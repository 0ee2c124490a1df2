package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/profile/fleet"
)

// fleetArgs are the flags of a small CPU fleet of the fake suite.
func fleetArgs(dir string) []string {
	return []string{"--suite", fakeSuite, "--out", dir, "--device", "cpu", "--duration", "1s", "--warmup", "0s",
		"--repeats", "1", "--pairs", "fast+slow,slow+slow", "--degrees", "1"}
}

// runFleetShard runs shard i of the fleet in dir as its Slurm task would:
// the command line recorded in fleet.json, in process, with the fake
// interpreter.
func runFleetShard(t *testing.T, dir string, i int) {
	t.Helper()
	f, err := fleet.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	python, _ := filepath.Abs("../../profile/testdata/fakepython.sh")
	args := append([]string{"profile", "run", "--suite", f.Suite.Path, "--python", python}, f.Args...)
	args = append(args, "--out", filepath.Join(dir, fleet.ShardDir(i)), "--shard", fmt.Sprintf("%d/%d", i, len(f.Plan.Shards)))
	mustRun(t, args...)
}

// exitStatus is the status main would exit with for err.
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	return exitCode(err)
}

// TestProfileSlurmAndMerge writes a fleet, runs its shards with the command
// lines it recorded, and merges them: missing runs first, then complete.
func TestProfileSlurmAndMerge(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "camp")
	out, _ := mustRun(t, append([]string{"profile", "slurm", "--shards", "2", "--coloc", "/opt/coloc/bin/coloc"}, fleetArgs(dir)...)...)
	script := filepath.Join(dir, fleet.SlurmScriptName)
	for _, want := range []string{"fleet camp: suite fake, 5 runs on cpu, 2 shards", "sbatch " + script, "coloc profile merge " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	text, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=1-2\n", "exec /opt/coloc/bin/coloc profile run", `--shard "$shard/2"`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("script lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), "--gres") {
		t.Errorf("a CPU fleet asks for GPUs:\n%s", text)
	}

	// Shard 1 only: the merge lists shard 2's runs and exits 2.
	runFleetShard(t, dir, 1)
	out, _, err = runCmd(t, "profile", "merge", dir)
	if exitStatus(err) != exitIncomplete {
		t.Fatalf("merge with shard 2 missing: %v (status %d), want status %d\n%s", err, exitStatus(err), exitIncomplete, out)
	}
	f, _ := fleet.Read(dir)
	for _, id := range f.Plan.Shards[1].Runs {
		if !strings.Contains(out, "  "+id+" (shard 2)\n") {
			t.Errorf("merge output does not list %s as missing:\n%s", id, out)
		}
	}
	for _, want := range []string{"2      not started", "sbatch --array=2 " + script} {
		if !strings.Contains(out, want) {
			t.Errorf("merge output lacks %q:\n%s", want, out)
		}
	}

	runFleetShard(t, dir, 2)
	out, _ = mustRun(t, "profile", "merge", dir)
	for _, want := range []string{"merged into " + dir + ": 5 of 5 runs finished (5 ok, 0 failed, 0 infeasible) on cpu", "complete: every run"} {
		if !strings.Contains(out, want) {
			t.Errorf("merge output lacks %q:\n%s", want, out)
		}
	}
}

func TestProfileSlurmErrors(t *testing.T) {
	other := filepath.Join(t.TempDir(), "other")
	mustRun(t, append([]string{"profile", "slurm", "--shards", "2"}, fleetArgs(other)...)...)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--shards", "0"}, "--shards 0"},
		{[]string{"--shards", "9"}, "the plan has only 5 runs, so at most 5 shards"},
		{[]string{"--shards", "2", "--gpus-per-node", "2"}, "--gpus-per-node 2 with --device cpu"},
		{[]string{"--shards", "2", "--time", "1h"}, `--time "1h"`},
		{[]string{"--shards", "2", "--share", "spatial"}, `--share "spatial"`},
		{[]string{"--shards", "2", "--repeats", "2", "--out", other}, "holds another fleet campaign: plan changed"},
	}
	for _, tc := range tests {
		args := append(append([]string{"profile", "slurm"}, fleetArgs(filepath.Join(t.TempDir(), "c"))...), tc.args...)
		if _, _, err := runCmd(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	_, _, err := runCmd(t, "profile", "slurm", "--suite", fakeSuite, "--out", t.TempDir(), "--shards", "2", "--device", "cuda", "--gpus-per-node", "0")
	if err == nil || !strings.Contains(err.Error(), "needs a GPU") {
		t.Errorf("--device cuda --gpus-per-node 0: %v", err)
	}
}

// TestProfileSlurmSubmit submits through a fake sbatch that prints what
// sbatch --parsable prints on a federated cluster.
func TestProfileSlurmSubmit(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte("#!/bin/sh\n[ \"$1\" = --parsable ] && [ -f \"$2\" ] && echo '4242;cluster1'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	dir := filepath.Join(t.TempDir(), "camp")
	out, _ := mustRun(t, append([]string{"profile", "slurm", "--shards", "2", "--submit"}, fleetArgs(dir)...)...)
	if !strings.Contains(out, "submitted job array 4242 (2 tasks)") {
		t.Errorf("stdout:\n%s", out)
	}
	t.Setenv("PATH", t.TempDir())
	_, _, err := runCmd(t, append([]string{"profile", "slurm", "--shards", "2", "--submit"}, fleetArgs(dir)...)...)
	var ec exitCoder
	if err == nil || !strings.Contains(err.Error(), "sbatch not found") || errors.As(err, &ec) {
		t.Errorf("without sbatch: %v", err)
	}
}

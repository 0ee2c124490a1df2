package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
)

// The active loop end to end on fake workloads (structure only, no
// timing): solo campaign -> profile next --budget 2 -> profile run
// --pairs-from -> fit -> profile next again, which never picks a pair
// already profiled.
func TestProfileNextLoop(t *testing.T) {
	dir := t.TempDir()
	python, _ := filepath.Abs("../../profile/testdata/fakepython.sh")
	script, _ := filepath.Abs("../../profile/testdata/fake.sh")
	suite := filepath.Join(dir, "suite.yaml")
	body := fmt.Sprintf(`version: 1
name: trio
description: three protocol-speaking fake workloads
defaults:
  class: other
  batch_size: 4
workloads:
  - name: a
    command: ["{python}", %[1]q, "ok", "--warm", "3"]
  - name: b
    command: ["{python}", %[1]q, "ok", "--dt", "0.1", "--steps", "20"]
    batch_size: 8
  - name: c
    command: ["{python}", %[1]q, "ok", "--warm", "2", "--dt", "0.02"]
    batch_size: 2
`, script)
	if err := os.WriteFile(suite, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(out string, extra ...string) {
		t.Helper()
		args := append([]string{"profile", "run", "--suite", suite, "--out", out, "--device", "cpu", "--python", python,
			"--duration", "1s", "--warmup", "0s", "--repeats", "1", "--degrees", "1"}, extra...)
		mustRun(t, args...)
	}
	solo, r1 := filepath.Join(dir, "solo"), filepath.Join(dir, "r1")
	run(solo, "--pairs", "none")
	list := filepath.Join(dir, "next.pairs")
	out, _ := mustRun(t, "profile", "next", "--data", solo, "--budget", "2", "-o", list)
	if !strings.Contains(out, "wrote "+list+": 2 pairs") {
		t.Fatalf("profile next:\n%s", out)
	}
	picked, err := model.ReadPairList(list)
	if err != nil {
		t.Fatal(err)
	}
	// With no pair measured, the width strategy spreads the first batch:
	// the two pairs are distinct and not self pairs.
	if len(picked) != 2 || picked[0] == picked[1] || picked[0][0] == picked[0][1] || picked[1][0] == picked[1][1] {
		t.Fatalf("picked %q", picked)
	}
	run(r1, "--pairs-from", list)
	ds, err := datasets.Open(r1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]string]bool{}
	for _, p := range ds.Pairs.Rows {
		got[[2]string{min(p.Workload, p.Partner), max(p.Workload, p.Partner)}] = true
	}
	if len(got) != 2 {
		t.Fatalf("campaign measured pairs %v, want the 2 of the list %q", got, picked)
	}
	for _, p := range picked {
		if !got[[2]string{min(p[0], p[1]), max(p[0], p[1])}] {
			t.Errorf("pair %q of the list was not profiled", p)
		}
	}
	models := filepath.Join(dir, "models")
	mustRun(t, "fit", "--data", r1, "-o", models, "--models", "mean,bias")
	list2 := filepath.Join(dir, "next2.pairs")
	mustRun(t, "profile", "next", "--data", r1, "--models", models, "--model", "bias", "--budget", "10", "-o", list2)
	again, err := model.ReadPairList(list2)
	if err != nil {
		t.Fatal(err)
	}
	// 3 workloads: 6 unordered pairs with self pairs, 2 profiled.
	if len(again) != 4 {
		t.Errorf("second round picked %q, want the 4 pairs not profiled", again)
	}
	for _, p := range again {
		if got[[2]string{min(p[0], p[1]), max(p[0], p[1])}] {
			t.Errorf("second round picked %q, already profiled", p)
		}
	}
	if _, _, err := runCmd(t, "profile", "run", "--suite", suite, "--out", r1, "--pairs-from", list, "--pairs", "all"); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Errorf("--pairs-from with --pairs: %v", err)
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/profile"
)

// The active loop end to end on fake workloads (structure only, no
// timing): solo campaign -> profile next --budget 2 -> profile run
// --pairs-from into the same directory (extending its campaign) -> fit ->
// profile next again, which never picks a pair already profiled -> a
// second extension, which keeps the first round's pairs.
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
	camp := filepath.Join(dir, "camp")
	solo, r1 := camp, camp // one campaign, extended in rounds
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
	round2 := filepath.Join(dir, "round2.pairs")
	var next [][2]string // one pair of two workloads: two ordered rows
	for _, p := range again {
		if p[0] != p[1] && len(next) == 0 {
			next = append(next, p)
		}
	}
	if err := model.WritePairList(round2, next, nil, nil); err != nil {
		t.Fatal(err)
	}
	run(camp, "--pairs-from", round2)
	if ds, err = datasets.Open(camp); err != nil {
		t.Fatal(err)
	}
	if len(ds.Solo.Rows) != 3 || len(ds.Pairs.Rows) != 2*3 {
		t.Errorf("after the second round: %d solo rows, %d pairs rows; want 3 and both orders of 3 pairs", len(ds.Solo.Rows), len(ds.Pairs.Rows))
	}
	if _, _, err := runCmd(t, "profile", "run", "--suite", suite, "--out", r1, "--pairs-from", list, "--pairs", "all"); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Errorf("--pairs-from with --pairs: %v", err)
	}
}

// The same loop on the real tiny suite (PyTorch on CPU), as README's
// laptop walk-through runs it: solo runs -> profile next --budget 2 ->
// profile run --pairs-from into the same directory -> fit. Structure only:
// the journal holds the solo runs and the two chosen pairs, no other, the
// campaign's pairs (ok, infeasible or failed: the machine's load decides
// which, not the test), and fit writes a model directory. It needs torch
// and skips without it (COLOC_REQUIRE_TORCH=1 makes that a failure).
func TestProfileNextLoopTinySuite(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	python := requireTorch(t)
	dir := t.TempDir()
	camp := filepath.Join(dir, "tiny")
	run := func(extra ...string) {
		t.Helper()
		args := append([]string{"profile", "run", "--suite", tinySuite, "--out", camp, "--device", "cpu", "--python", python,
			"--duration", "3s", "--warmup", "1s", "--repeats", "1", "--degrees", "1"}, extra...)
		if _, stderr, err := runCmd(t, args...); err != nil && !strings.Contains(err.Error(), "failed") {
			t.Fatalf("%v: %v\n%s", args[1:], err, stderr)
		}
	}
	run("--pairs", "none")
	list := filepath.Join(dir, "next.pairs")
	mustRun(t, "profile", "next", "--data", camp, "--budget", "2", "-o", list)
	picked, err := model.ReadPairList(list)
	if err != nil {
		t.Fatal(err)
	}
	if len(picked) != 2 {
		t.Fatalf("profile next --budget 2 picked %q", picked)
	}
	run("--pairs-from", list)
	recs, _, err := profile.ReadCampaignJournal(camp)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"solo.resnet18-tiny.r0": true, "solo.lstm-tiny.r0": true, "solo.ncf-tiny.r0": true}
	s, err := profile.LoadSuite(tinySuite)
	if err != nil {
		t.Fatal(err)
	}
	order := map[string]int{}
	for i, w := range s.Workloads {
		order[w.Name] = i
	}
	for _, p := range picked {
		a, b := p[0], p[1]
		if order[a] > order[b] {
			a, b = b, a
		}
		want["pair."+a+"+"+b+".r0"] = true
	}
	for id := range recs {
		if !want[id] {
			t.Errorf("run %s was not asked for", id)
		}
	}
	for id := range want {
		if recs[id] == nil {
			t.Errorf("run %s is not in the journal", id)
		}
	}
	ds, err := datasets.Open(camp)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Solo == nil || ds.Pairs == nil {
		t.Fatalf("campaign tables: solo %v, pairs %v; want both", ds.Solo != nil, ds.Pairs != nil)
	}
	// fit trains on the ok pairs of both rounds. On a CPU of two cores the
	// tiny workloads often barely interfere, and a pair whose co-located
	// throughput equals its solo one is suspect: with fewer than
	// model.MinObs ok rows fit refuses, and says how many it found.
	ok := 0
	for _, p := range ds.Pairs.Rows {
		if p.Status == datasets.StatusOK {
			ok++
		}
	}
	models := filepath.Join(dir, "models")
	_, _, err = runCmd(t, "fit", "--data", camp, "-o", models, "--models", "mean,bias")
	switch {
	case ok >= model.MinObs && err != nil:
		t.Errorf("fit on %d ok pairs rows: %v", ok, err)
	case ok >= model.MinObs:
		if _, err := os.Stat(filepath.Join(models, model.IndexFile)); err != nil {
			t.Errorf("fit wrote no model directory: %v", err)
		}
	case err == nil || !strings.Contains(err.Error(), fmt.Sprintf("too few measured pairs to fit: %d (", ok)):
		t.Errorf("fit on %d ok pairs rows: %v, want too few measured pairs: %d", ok, err, ok)
	}
}

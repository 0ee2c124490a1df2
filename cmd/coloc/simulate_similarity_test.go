package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/sim"
)

// `coloc simulate --policy similarity` reads the similarity model of
// --models and refuses to run without it.
func TestSimulateSimilarity(t *testing.T) {
	if _, _, err := runCmd(t, simulateArgs("--policy", "similarity")...); err == nil || !strings.Contains(err.Error(), "--models") {
		t.Errorf("without --models: %v, want an error naming --models", err)
	}
	dir := t.TempDir()
	if _, _, err := runCmd(t, "fit", "--data", gavelDir, "-o", dir, "--models", "similarity"); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmd(t, simulateArgs("--policy", "fifo,similarity", "--models", dir, "--json")...)
	if err != nil {
		t.Fatalf("%v (stderr %s)", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), out)
	}
	var s sim.Summary
	if err := json.Unmarshal([]byte(lines[1]), &s); err != nil {
		t.Fatal(err)
	}
	if s.Policy != "similarity" || s.Jobs != 20 || !(s.AvgJCT > 0) || !(s.Makespan > 0) || !(s.GPUUtil > 0 && s.GPUUtil <= 1) {
		t.Errorf("similarity: %+v", s)
	}
}

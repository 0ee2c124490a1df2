package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileMergeParent merges a directory of fleets: each fleet is
// merged, then their tables are joined into the parent. Two fleets on the
// same device type (both CPU here) measure the same keys, so the join is
// refused, naming the conflicting files; the fleets themselves are merged.
func TestProfileMergeParent(t *testing.T) {
	parent := t.TempDir()
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(parent, name)
		mustRun(t, append([]string{"profile", "slurm", "--shards", "2"}, fleetArgs(dir)...)...)
		runFleetShard(t, dir, 1)
		runFleetShard(t, dir, 2)
	}
	out, _, err := runCmd(t, "profile", "merge", parent)
	if err == nil || !strings.Contains(err.Error(), "joining the fleets of "+parent+": conflicting rows") {
		t.Errorf("merge of two CPU fleets: %v, want a conflict", err)
	}
	for _, name := range []string{"a", "b"} {
		if !strings.Contains(out, "merged into "+filepath.Join(parent, name)+": 5 of 5 runs") {
			t.Errorf("fleet %s not merged:\n%s", name, out)
		}
	}

	// One fleet alone joins without conflict.
	if err := os.RemoveAll(filepath.Join(parent, "b")); err != nil {
		t.Fatal(err)
	}
	out, _ = mustRun(t, "profile", "merge", parent)
	if !strings.Contains(out, "joined 1 fleet(s) into "+parent+": runs 7 rows, solo 3 rows, pairs 3 rows") {
		t.Errorf("stdout:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(parent, "pairs.arrow")); err != nil {
		t.Error(err)
	}

	_, _, err = runCmd(t, "profile", "merge", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not a fleet campaign") {
		t.Errorf("merge of an empty directory: %v", err)
	}
}

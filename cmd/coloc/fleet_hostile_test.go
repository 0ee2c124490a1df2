package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetCommandsRefuseHostileNames: an --out whose name would break out
// of a comment line of the script or the manifest is refused by name, and
// nothing is written.
func TestFleetCommandsRefuseHostileNames(t *testing.T) {
	for _, name := range []string{"camp\n$(touch x)", "camp'; id; '", "camp\n---\nkind: Pod"} {
		for _, sub := range []string{"slurm", "k8s"} {
			dir := filepath.Join(t.TempDir(), name)
			args := append([]string{"profile", sub, "--shards", "2"}, fleetArgs(dir)...)
			if sub == "k8s" {
				args = append(args, "--image", "reg.example.com/coloc:1", "--pvc", "campaigns")
			}
			_, _, err := runCmd(t, args...)
			if err == nil || !strings.Contains(err.Error(), "fleet name (the name of its directory)") {
				t.Errorf("profile %s --out %q: %v, want a refused fleet name", sub, dir, err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("profile %s --out %q: the directory was written (%v)", sub, dir, err)
			}
		}
	}
}

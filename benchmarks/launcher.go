package benchmarks

import (
	_ "embed"
	"os"
	"path/filepath"
)

// torchrunCompat is workloads/torchrun_compat.py: torch's own launcher
// (torch.distributed.run) behind a fix for torch < 2.0 on Python >= 3.11,
// where `python -m torch.distributed.run` dies before starting any worker.
// The binary carries it so that scale runs work for any suite, wherever
// its scripts live.
//
//go:embed workloads/torchrun_compat.py
var torchrunCompat []byte

// LauncherName is the file name of the torchrun launcher in a campaign's
// logs directory.
const LauncherName = "torchrun_compat.py"

// writeLauncher writes the torchrun launcher into dir and returns its path.
func writeLauncher(dir string) (string, error) {
	path := filepath.Join(dir, LauncherName)
	if err := os.WriteFile(path, torchrunCompat, 0o644); err != nil {
		return "", err
	}
	return path, nil
}

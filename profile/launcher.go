package profile

import (
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/benchmarks"
)

// launcherName is the file name of the torchrun launcher in a campaign's
// logs directory.
const launcherName = "torchrun_compat.py"

// writeLauncher writes the torchrun launcher into dir and returns its path.
func writeLauncher(dir string) (string, error) {
	path := filepath.Join(dir, launcherName)
	if err := os.WriteFile(path, benchmarks.TorchrunCompat, 0o644); err != nil {
		return "", err
	}
	return path, nil
}

package reports_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/reports"
)

// A report of Pollux's scaling measurements: the scaling curves with the
// degree coloc chooses, and the warnings section.
func Example() {
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	cfg := reports.DefaultConfig()
	cfg.Data = []string{"../datasets/reference/pollux"}
	cfg.Out = filepath.Join(dir, "report")
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	sum, err := reports.Build(cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println(filepath.Base(sum.Index), sum.Sections, sum.Warnings)
	// Output:
	// index.html [scaling 1] 0
}

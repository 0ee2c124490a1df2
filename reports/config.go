package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/coloc-dev/coloc/model"
)

// Config says what a report holds: the files earlier stages wrote, which
// the report reads and draws and never recomputes. `coloc report` fills it
// from its flags; package reports/paper runs the stages on the shipped
// reference data and fills it with their files. Validate checks all of it
// before Build opens a table.
type Config struct {
	Out   string
	Title string
	Intro string
	// Root, when set, is the directory input paths are shown relative to
	// in the page, so that the page does not depend on where the inputs
	// lie (a file inside Out, or written by Stages, is shown relative to
	// Out).
	Root string

	// Data are dataset directories: heat maps of their pairs, scaling
	// curves of their scaling tables. The first with a pairs table is the
	// one the fitted models' predictions are drawn on.
	Data []string
	// ScalingDevices limits the scaling figures to these device types
	// (all when empty).
	ScalingDevices []string

	// Models is a model directory written by `coloc fit`: its predictions
	// of the measured pairs of the first dataset with pairs are drawn, on
	// Devices (default: eval's default devices of that dataset).
	Models  string
	Devices []string
	// EvalFile is a result file of `coloc eval -o`: the MAE table and
	// the MAE against the fraction of observed pairs.
	EvalFile string
	// PredictionsFile is a file of `coloc eval --predictions`: the
	// held-out predictions of one split, drawn as predicted against
	// measured values and errors.
	PredictionsFile string
	// ActiveFile is a file of `coloc eval --protocol active -o`: the
	// learning curves of choosing the pairs to profile.
	ActiveFile string
	// SimFiles are files of `coloc simulate -o`, one replay of a trace on
	// a cluster each, with the same policies in the same order.
	SimFiles []string

	Campaign string // a coloc campaign directory (runs.arrow, samples.arrow)

	// Stages, when set, runs after Validate and before anything is read,
	// with the directory the report is being built in: it may write the
	// files of earlier stages there (they are installed into Out with the
	// page, as one change, and listed in its manifest, so a stopped run
	// leaves Out as it was) and point cfg's file fields at them. The
	// paper (package reports/paper) runs the pipeline's stages this way.
	Stages func(dir string, cfg *Config) error

	// Progress, when not nil, receives one line per step.
	Progress io.Writer
}

// DefaultConfig holds the defaults of `coloc report`.
func DefaultConfig() Config { return Config{Title: "coloc report"} }

// Validate refuses settings that would otherwise fail only after work:
// it checks that every input exists, opening no table. Build calls it
// first.
func (c Config) Validate() error {
	if c.Out == "" {
		return fmt.Errorf("no report directory (--out)")
	}
	if c.Models != "" && len(c.Data) == 0 {
		return fmt.Errorf("--models: drawing the models' predictions needs the measured pairs: give --data")
	}
	if len(c.Data) == 0 && c.Campaign == "" && c.EvalFile == "" && c.PredictionsFile == "" && c.ActiveFile == "" && len(c.SimFiles) == 0 {
		return fmt.Errorf("nothing to report: give --data, --eval, --predictions, --active, --sim or --campaign")
	}
	files := []struct{ flag, path string }{{"--eval", c.EvalFile}, {"--predictions", c.PredictionsFile}, {"--active", c.ActiveFile}}
	for _, s := range c.SimFiles {
		files = append(files, struct{ flag, path string }{"--sim", s})
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if err := isFile(f.path); err != nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
	}
	for _, d := range c.Data {
		if err := isDir(d); err != nil {
			return fmt.Errorf("--data: %w", err)
		}
	}
	if c.Campaign != "" {
		if err := isDir(c.Campaign); err != nil {
			return fmt.Errorf("--campaign: %w", err)
		}
	}
	if c.Models != "" {
		if err := isFile(filepath.Join(c.Models, model.IndexFile)); err != nil {
			return fmt.Errorf("--models: %w", err)
		}
	}
	return checkOutDir(filepath.Clean(c.Out))
}

// checkOutDir refuses, before any work, a report directory whose manifest
// is unreadable or whose index.html (which every report writes) no
// earlier report wrote; install checks every other file at the end.
func checkOutDir(out string) error {
	old, err := readManifest(out)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(filepath.Join(out, "index.html")); err == nil && !slices.Contains(old, "index.html") {
		return fmt.Errorf("report directory %s: index.html exists and no earlier coloc report wrote it (its %s does not list it): move it or choose another --out",
			out, ManifestFile)
	}
	return nil
}

func isFile(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory, want a file", p)
	}
	return nil
}

func isDir(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", p)
	}
	return nil
}

package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
	"github.com/coloc-dev/coloc/sim/policies"
)

// Config says what a report holds. `coloc report` fills it from its
// flags, `coloc report paper` from the shipped reference data
// (PaperConfig). Validate checks all of it before Build does any work.
type Config struct {
	Out   string
	Title string
	Intro string
	// Root, when set, is the directory input paths are shown relative to
	// in the page, so that the page does not depend on where the inputs
	// lie.
	Root string

	// Data are dataset directories: heat maps of their pairs, scaling
	// curves of their scaling tables. The first with a pairs table is the
	// one models are evaluated and policies simulated on.
	Data []string
	// ScalingDevices limits the scaling figures to these device types
	// (all when empty).
	ScalingDevices []string

	// Models is a model directory written by `coloc fit`: its predictions
	// of the measured pairs are drawn, and the simulated policies get it.
	// When empty and a policy other than a baseline is simulated, the
	// report fits every model on all measured pairs into OUT/models.
	Models string
	// EvalFile is a result file of `coloc eval -o`; when empty and
	// EvalModels is set, the evaluation is computed.
	EvalFile      string
	EvalModels    []string // models evaluated on the fly; none: no held-out figures
	EvalFractions []float64
	EvalSeeds     int
	EvalDevices   []string // empty: eval's default devices
	// EvalWorkers is how many fits the computed evaluation runs at once
	// (eval.Options.Workers); the result does not depend on it.
	EvalWorkers int
	// EvalCache, when set, is a directory where a computed evaluation is
	// kept under a key of the data's SHA-256, the evaluation options and
	// the tool version (eval.RunCached), and reused by the next report
	// with the same key: the report is the same either way. The models
	// fitted for the policies are kept there too (models-<key>).
	EvalCache string
	// ActiveSeeds, when above 0, adds the learning curves of active
	// selection (eval.RunActive, `coloc eval --protocol active`) over
	// seeds 1 to ActiveSeeds, of ActiveModel (default iasp) and
	// ActiveStrategies (default all, coloc profile next's first) on
	// ActiveDevices (default EvalDevices); kept in EvalCache when set.
	ActiveSeeds      int
	ActiveModel      string
	ActiveStrategies []string
	ActiveDevices    []string
	// ScatterFraction and ScatterSeed name the split (protocol pairs)
	// whose held-out pairs the predicted-vs-measured figures show, on
	// each evaluated device.
	ScatterFraction float64
	ScatterSeed     int

	Scenarios []Scenario // traces replayed, each on its cluster
	Policies  []string   // simulated policies, in order
	Seed      uint64     // seed of the randomised policies

	Campaign string // a coloc campaign directory (runs.arrow, samples.arrow)

	// Progress, when not nil, receives one line per step.
	Progress io.Writer
}

// Scenario is one trace replayed on one cluster.
type Scenario struct{ Trace, Cluster string }

// DefaultConfig holds the defaults of `coloc report`: every model
// evaluated as `coloc eval` does by default, the held-out figures of the
// split at fraction 0.5, seed 1, and every policy simulated.
func DefaultConfig() Config {
	return Config{
		Title:           "coloc report",
		EvalModels:      model.StandardNames(),
		EvalFractions:   eval.DefaultOptions.Fractions,
		EvalSeeds:       eval.DefaultOptions.Seeds,
		EvalWorkers:     eval.DefaultWorkers(),
		ScatterFraction: 0.5,
		ScatterSeed:     1,
		Policies:        PolicyNames(),
		Seed:            1,
	}
}

// knownPolicies are the policies a report can simulate: those of `coloc
// simulate`, in its order.
func knownPolicies() []sim.PolicyInfo { return experiment.All(policies.Config{}) }

// PolicyNames lists the names of the policies a report can simulate.
func PolicyNames() []string {
	var out []string
	for _, p := range knownPolicies() {
		out = append(out, p.Name)
	}
	return out
}

// Validate refuses settings that would otherwise fail only after minutes
// of work: it checks every name and that every input exists, opening no
// table. Build calls it first.
func (c Config) Validate() error {
	if c.Out == "" {
		return fmt.Errorf("no report directory (--out)")
	}
	if len(c.Data) == 0 && c.Campaign == "" && c.EvalFile == "" {
		return fmt.Errorf("nothing to report: give --data, --campaign or --eval")
	}
	for _, m := range c.EvalModels {
		if _, err := model.ParseNames(m); err != nil {
			return err
		}
	}
	if len(c.EvalModels) > 0 {
		if !(c.ScatterFraction >= 0 && c.ScatterFraction < 1) {
			return fmt.Errorf("--scatter-fraction %v: want a fraction in [0, 1)", c.ScatterFraction)
		}
		if c.ScatterSeed < 1 {
			return fmt.Errorf("--scatter-seed %d: want 1 or more", c.ScatterSeed)
		}
		if c.EvalFile == "" && c.EvalSeeds < 1 {
			return fmt.Errorf("--eval-seeds %d: want 1 or more", c.EvalSeeds)
		}
		for _, f := range c.EvalFractions {
			if !(f >= 0 && f < 1) {
				return fmt.Errorf("--eval-fractions: %v is not a fraction in [0, 1)", f)
			}
		}
	}
	if err := c.validateActive(); err != nil {
		return err
	}
	if len(c.Scenarios) > 0 {
		if len(c.Policies) == 0 {
			return fmt.Errorf("no policy to simulate (--policy)")
		}
		known := knownPolicies()
		for _, p := range c.Policies {
			if _, err := sim.Lookup(known, strings.TrimSpace(p)); err != nil {
				return fmt.Errorf("--policy: %w", err)
			}
		}
		if len(c.Data) == 0 {
			return fmt.Errorf("simulating traces needs measured rates: give --data with a dataset that has solo and pairs tables")
		}
	}
	for _, sc := range c.Scenarios {
		for _, p := range []string{sc.Trace, sc.Cluster} {
			if err := isFile(p); err != nil {
				return err
			}
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
	if c.EvalFile != "" {
		if err := isFile(c.EvalFile); err != nil {
			return fmt.Errorf("--eval: %w", err)
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

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/reports"
	"github.com/spf13/cobra"
)

// coloc report: the figures and index.html of report.go and report_*.go.
// Plotting is package reports'; evaluation data come from model/eval.
//
// Choices where the issue and the papers are silent, with the reason:
//
//   - Heat maps: one per (device type, degree) with an ok pair, rows and
//     columns the workloads of that slot in natural order ("batch size 5"
//     before "10"); a slot whose matrix equals one already drawn cell for
//     cell is named, not drawn again (Gavel's "_unconsolidated" single-GPU
//     pairs copy the base type's), so the page shows no duplicate.
//   - Scaling curves: per (workload, device type), place.ScalingCurve, the
//     curve the policy export decides on: one per-GPU batch size, the one
//     measured at the most degrees (the smallest on ties; mixing batch
//     sizes would mix workloads), and at each degree the throughput on one
//     node, or on the fewest nodes where no node ran it. Curves of one model family share a figure, at most six a
//     figure; the throughput axis is logarithmic when a figure's values
//     span more than 30x. The chosen degree is policy.ChooseDegree's at
//     policy.DefaultThresholds.ScalingEfficiency, the rule the policy
//     export uses.
//   - Predicted against measured: the held-out pairs of one split of
//     protocol pairs (fraction 0.5, seed 1 by default), from the same fits
//     the evaluation scores (eval.Predict), so the figures show prediction,
//     not fit. With --models the fitted models' predictions of the data's
//     pairs are drawn too, and called in-sample when the models' provenance
//     names exactly the data's files.
//   - The evaluation the report computes spreads the models over the CPUs
//     (one eval.Run per model, joined in model order): the same cells as
//     one eval.Run, in less time.
//   - Models, evaluation and simulation use the first dataset with a pairs
//     table; the others add heat maps and scaling curves only.
//   - Policies: models are fitted for the simulation (into OUT/models,
//     every model, seed 1) only when a model-driven policy is chosen and
//     no --models is given. Average JCT and
//     makespan bars are relative to fifo (or the first policy without
//     fifo), because traces differ by orders of magnitude in hours; the
//     hours are in the tables.
//   - Campaign counters: the first ok pair run of runs.arrow and the first
//     ok solo run of the same workload, device type and degree (else the
//     first ok solo run), on the first device each used: one solo and one
//     pair run, as the issue asks, compared like for like.
//   - The report is built in a temporary directory beside OUT and renamed
//     into place, so OUT never holds half a report; an existing OUT is
//     replaced only if it is empty or an earlier coloc report (its
//     index.html says so), so a mistyped --out cannot delete other files.
//   - The page holds no time and no absolute path of the report: the same
//     inputs give the same bytes (the footer lists each input's SHA-256,
//     named relative to --root for coloc report paper).

// reportConfig says what a report holds. `coloc report` fills it from its
// flags, `coloc report paper` from the shipped reference data (paperConfig).
type reportConfig struct {
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
	// ScatterSplit is the split (protocol pairs) whose held-out pairs the
	// predicted-vs-measured figures show, on each evaluated device.
	ScatterFraction float64
	ScatterSeed     int

	Scenarios []scenario // traces replayed, each on its cluster
	Policies  []string   // simulated policies, in order
	Seed      uint64     // seed of the randomised policies

	Campaign string // a coloc campaign directory (runs.arrow, samples.arrow)
}

// scenario is one trace replayed on one cluster.
type scenario struct{ Trace, Cluster string }

// defaultReportConfig holds the defaults of `coloc report`.
func defaultReportConfig() reportConfig {
	var pols []string
	for _, p := range simPolicies() {
		pols = append(pols, p.Name)
	}
	return reportConfig{
		Title:           "coloc report",
		EvalModels:      model.StandardNames(),
		EvalFractions:   eval.DefaultOptions.Fractions,
		EvalSeeds:       eval.DefaultOptions.Seeds,
		ScatterFraction: 0.5,
		ScatterSeed:     1,
		Policies:        pols,
		Seed:            1,
	}
}

func newReportCmd(e *env) *cobra.Command {
	cfg := defaultReportConfig()
	var traces, clusters []string
	var evalModels, fractions string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "report --out DIR [--data DIR[,DIR...]] [--trace T --cluster C] [--campaign DIR]",
		Short: "Figures and an HTML report of data, models and simulated policies",
		Long: `Writes DIR/index.html and its figures (each as SVG, PNG and the data drawn as
CSV) from what the flags name:

  --data DIR[,DIR...]  heat maps of the pairwise normalized throughput per
                       device type (pairs.arrow), scaling curves of throughput
                       against GPUs with the degree coloc chooses marked
                       (scaling.arrow)
  model accuracy       on the first dataset with pairs: MAE against the
                       fraction of observed pairs per model (--eval FILE, a
                       result of 'coloc eval -o', or computed with the --eval-*
                       flags), predicted against measured values and the CDF of
                       absolute errors on the held-out pairs of one split
                       (protocol pairs, --scatter-fraction, --scatter-seed),
                       and with --models M the predictions of fitted models
  --trace T --cluster C  JCT CDF, average JCT, GPU utilisation and makespan per
                       policy: every trace on every cluster, with the measured
                       rates of the first dataset with pairs
  --campaign DIR       counter time series of one solo and one pair run of a
                       coloc campaign (runs.arrow, samples.arrow)

The page captions say what each figure shows and from which data; its
footer gives the tool version and the SHA-256 of every input. The same
inputs give the same bytes. The report is built in a temporary directory
beside DIR and renamed into place; an existing DIR is replaced only when it
is empty or holds an earlier coloc report. Progress goes to stderr.`,
		Example: `  coloc report --data datasets/reference/gavel,datasets/reference/pollux --out out/report
  coloc report --data out/data/gavel --eval out/eval.arrow --models out/models \
    --trace examples/traces/msr/ed69ec.trace --cluster examples/cluster-gavel-48.yaml --out out/report
  coloc report --campaign out/campaign --eval-models none --out out/campaign-report
  coloc report paper --out out/paper`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if cfg.EvalModels, err = parseEvalModels(evalModels); err != nil {
				return err
			}
			if cfg.EvalFractions, err = parseFractions(fractions); err != nil {
				return err
			}
			if len(traces) > 0 && len(clusters) == 0 || len(clusters) > 0 && len(traces) == 0 {
				return fmt.Errorf("--trace and --cluster go together")
			}
			for _, c := range clusters {
				for _, t := range traces {
					cfg.Scenarios = append(cfg.Scenarios, scenario{Trace: t, Cluster: c})
				}
			}
			if len(cfg.Data) == 0 && cfg.Campaign == "" && cfg.EvalFile == "" {
				return fmt.Errorf("nothing to report: give --data, --campaign or --eval")
			}
			var progress io.Writer
			if !quiet {
				progress = e.stderr
			}
			return writeReport(e, cfg, progress)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&cfg.Out, "out", "o", "", "report directory")
	f.StringVar(&cfg.Title, "title", cfg.Title, "title of the page")
	f.StringSliceVar(&cfg.Data, "data", nil, "dataset directories, comma-separated")
	f.StringSliceVar(&cfg.ScalingDevices, "scaling-device", nil, "device types of the scaling figures (default: all)")
	f.StringVar(&cfg.Models, "models", "", "model directory written by 'coloc fit' (default: fit on the fly when a policy needs models)")
	f.StringVar(&cfg.EvalFile, "eval", "", "result file of 'coloc eval -o' (default: compute the evaluation)")
	f.StringVar(&evalModels, "eval-models", "all", "models evaluated on the fly, comma-separated, or none")
	f.StringVar(&fractions, "eval-fractions", "0.1,0.2,0.5,0.8", "fractions of observed pairs of the computed evaluation")
	f.IntVar(&cfg.EvalSeeds, "eval-seeds", cfg.EvalSeeds, "seeds of the computed evaluation (1..N)")
	f.StringSliceVar(&cfg.EvalDevices, "eval-device", nil, "devices evaluated (default: those with measured pairs, except _unconsolidated)")
	f.Float64Var(&cfg.ScatterFraction, "scatter-fraction", cfg.ScatterFraction, "fraction of observed pairs of the split the predicted-vs-measured figures show")
	f.IntVar(&cfg.ScatterSeed, "scatter-seed", cfg.ScatterSeed, "seed of that split")
	f.StringSliceVar(&traces, "trace", nil, "Gavel job traces to replay, comma-separated")
	f.StringSliceVar(&clusters, "cluster", nil, "cluster specs to replay them on, comma-separated")
	f.StringSliceVar(&cfg.Policies, "policy", cfg.Policies, "policies to simulate, comma-separated")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the randomised policies")
	f.StringVar(&cfg.Campaign, "campaign", "", "campaign directory (runs.arrow, samples.arrow)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	cmd.MarkFlagRequired("out")
	cmd.AddCommand(newReportPaperCmd(e))
	return cmd
}

func parseEvalModels(list string) ([]string, error) {
	if list == "none" || list == "" {
		return nil, nil
	}
	return model.ParseNames(list)
}

// writeReport builds the report in a temporary directory beside cfg.Out
// and renames it into place.
func writeReport(e *env, cfg reportConfig, progress io.Writer) error {
	start := time.Now()
	if cfg.Out == "" {
		return fmt.Errorf("no report directory (--out)")
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	out := filepath.Clean(cfg.Out)
	if err := replaceable(out); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	stage, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage) // gone after the rename; cleans up on error
	if err := os.Chmod(stage, 0o755); err != nil {
		return err
	}
	b := &reportBuilder{cfg: cfg, dir: stage, progress: progress, inputs: map[string]bool{}}
	if err := b.build(); err != nil {
		return err
	}
	old := stage + ".old"
	if _, err := os.Stat(out); err == nil {
		if err := os.Rename(out, old); err != nil {
			return err
		}
	}
	if err := os.Rename(stage, out); err != nil {
		return err
	}
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d figures (%s)\n", filepath.Join(out, "index.html"), b.figures, strings.Join(b.made, ", "))
	if progress != nil {
		fmt.Fprintf(progress, "report: done in %.1fs\n", time.Since(start).Seconds())
	}
	return nil
}

// validate refuses settings that would fail only after minutes of work.
func (c reportConfig) validate() error {
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
	}
	for _, sc := range c.Scenarios {
		for _, p := range []string{sc.Trace, sc.Cluster} {
			if _, err := os.Stat(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// generator marks the index.html of a coloc report (its meta generator),
// so that a later report may replace the directory.
const generator = "coloc report"

// replaceable refuses an existing report directory that is neither empty
// nor an earlier coloc report.
func replaceable(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("report directory %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || !strings.Contains(string(b), `<meta name="generator" content="`+generator+`">`) {
		return fmt.Errorf("report directory %s exists and is not a coloc report: choose another or remove it", dir)
	}
	return nil
}

// reportBuilder writes the figures of one report into dir and collects
// the page.
type reportBuilder struct {
	cfg      reportConfig
	dir      string
	progress io.Writer
	page     reports.Page
	figures  int
	made     []string // section titles, for the summary line
	inputs   map[string]bool
	sums     [][]string // input, bytes, SHA-256
	opened   map[string]*datasets.Dataset
	models   *modelData // the first dataset with pairs, loaded once
}

func (b *reportBuilder) build() error {
	b.page.Title = b.cfg.Title
	b.page.Intro = b.cfg.Intro
	steps := []struct {
		name string
		on   bool
		run  func() ([]reports.Section, error)
	}{
		{"interference", len(b.cfg.Data) > 0, b.interference},
		{"scaling", len(b.cfg.Data) > 0, b.scaling},
		{"models", b.cfg.EvalFile != "" || len(b.cfg.Data) > 0 && (len(b.cfg.EvalModels) > 0 || b.cfg.Models != ""), b.accuracy},
		{"policies", len(b.cfg.Scenarios) > 0, b.policies},
		{"campaign", b.cfg.Campaign != "", b.campaign},
	}
	for _, st := range steps {
		if !st.on {
			continue
		}
		t0, n0 := time.Now(), b.figures
		secs, err := st.run()
		if err != nil {
			return err
		}
		b.page.Sections = append(b.page.Sections, secs...)
		if len(secs) > 0 {
			b.made = append(b.made, fmt.Sprintf("%s %d", st.name, b.figures-n0))
		}
		b.logf("%-12s %3d figures %6.1fs", st.name, b.figures-n0, time.Since(t0).Seconds())
	}
	if len(b.page.Sections) == 0 {
		return fmt.Errorf("nothing to report: the inputs hold no pairs, scaling, evaluation, trace or campaign")
	}
	b.page.Footer = fmt.Sprintf("Written by coloc %s (coloc report). The same inputs give the same files. Inputs:", version.String())
	b.page.FooterTable = &reports.Table{Header: []string{"input", "bytes", "SHA-256"}, Rows: b.sums}
	b.page.Generator = generator
	return reports.WriteIndex(b.dir, b.page)
}

func (b *reportBuilder) logf(format string, args ...any) {
	if b.progress != nil {
		fmt.Fprintf(b.progress, "report: "+format+"\n", args...)
	}
}

// show returns how a path appears in the page: relative to Root when one
// is set, else as given.
func (b *reportBuilder) show(path string) string {
	if b.cfg.Root != "" {
		if rel, err := filepath.Rel(b.cfg.Root, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

// input records an input file for the footer: its name, size and SHA-256.
func (b *reportBuilder) input(path string) error {
	name := b.show(path)
	if b.inputs[name] {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	b.inputs[name] = true
	b.sums = append(b.sums, []string{name, fmt.Sprint(n), hex.EncodeToString(h.Sum(nil))})
	return nil
}

// inputDir records the tables (and workloads.json) of a dataset
// directory, sorted by name.
func (b *reportBuilder) inputDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && !strings.HasPrefix(n, ".") && (strings.HasSuffix(n, ".arrow") || n == "workloads.json") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := b.input(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// figure writes a figure with its caption and counts it.
func (b *reportBuilder) figure(w interface {
	Write(dir, name string, opt reports.Options) (reports.Figure, error)
}, name, caption string, opt reports.Options) (reports.Figure, error) {
	f, err := w.Write(b.dir, name, opt)
	if err != nil {
		return f, err
	}
	f.Caption = caption
	b.figures++
	return f, nil
}

// figName makes a figure name from parts: letters, digits, '.', '_' and
// '-' only, lower case.
func figName(parts ...string) string {
	var sb strings.Builder
	for i, p := range parts {
		if i > 0 {
			sb.WriteByte('-')
		}
		for _, r := range strings.ToLower(p) {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_':
				sb.WriteRune(r)
			default:
				sb.WriteByte('-')
			}
		}
	}
	s := strings.Trim(sb.String(), "-.")
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	if s == "" {
		s = "figure"
	}
	return s
}

// label is a short name of a dataset directory: its base name.
func label(dir string) string { return filepath.Base(filepath.Clean(dir)) }

// sizes of the figures.
var (
	wideFigure   = reports.Options{Width: 20, Height: 11, DPI: 150}
	squareFigure = reports.Options{Width: 20, Height: 18, DPI: 150}
)

package main

import (
	"path/filepath"
	"strings"

	"github.com/coloc-dev/coloc/reports"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/budget"
	"github.com/coloc-dev/coloc/sim/policies"
	"github.com/spf13/cobra"
)

func newSimulateBudgetCmd(e *env) *cobra.Command {
	var o budget.Options
	var markdown, figure string
	cmd := &cobra.Command{
		Use:   "budget --traces T[,T...] --clusters C[,C...] --data DIR --work DIR --markdown FILE",
		Short: "Measure what profiling a GPU type's pairs buys in coloc's decisions",
		Long: `For each GPU type of DIR with measured pairs, fits coloc's models (iasp,
iapp, similarity) on every pair of the other types and on a share of this
type's (--fractions), taken at random or in the order 'coloc profile next'
would choose them (--orders, --seeds random starts each), replays the traces
on the clusters under coloc (durations unknown), and writes a page: coloc's
average JCT over its average JCT with every pair, per type, order and share,
and with --figure the same as a line chart (FILE.svg, FILE.png, FILE.csv).

Each point is appended to WORK/points.jsonl when done, kept on a stop: run
again with the same options, it resumes (other options are refused).`,
		Example: `  coloc simulate budget --traces examples/traces/msr/103959.trace \
    --clusters examples/cluster-gavel-16.yaml --data datasets/reference/gavel \
    --max-jobs 200 --work out/budget --markdown docs/profiling-budget.md \
    --figure docs/profiling-budget`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Sweep.Options = sim.DefaultOptions
			o.Sweep.Env, o.Sweep.Config = sim.Env{Seed: 1}, policies.Config{Durations: "attained"}
			o.Progress = e.stderr
			res, err := budget.Run(o)
			if err != nil {
				return err
			}
			e.say("warning:", res.Warnings...)
			fig := ""
			if figure != "" {
				f, err := reports.BudgetFigure(filepath.Dir(figure), filepath.Base(figure), res)
				if err != nil {
					return err
				}
				if fig, err = filepath.Rel(filepath.Dir(markdown), filepath.Join(filepath.Dir(figure), f.SVG())); err != nil {
					return err
				}
			}
			var buf strings.Builder
			if err := res.WriteMarkdown(&buf, o.Command(), fig); err != nil {
				return err
			}
			return writeAtomic(markdown, []byte(buf.String()), 0o644)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&o.Sweep.Traces, "traces", nil, "Gavel trace files, comma-separated")
	fl.StringSliceVar(&o.Sweep.Clusters, "clusters", nil, "cluster specs, comma-separated")
	fl.StringVar(&o.Sweep.Data, "data", "", "dataset directory: the ground truth and the pairs the models are fit on")
	fl.StringSliceVar(&o.Sweep.Degrees, "degree", []string{sim.DegreeTrace, sim.DegreePolicy}, "degree modes to run, comma-separated")
	fl.IntVar(&o.Sweep.MaxJobs, "max-jobs", 200, "replay the first N jobs of each trace (0: all)")
	fl.IntVar(&o.Sweep.Parallel, "parallel", 1, "cases replayed at once")
	fl.StringSliceVar(&o.Devices, "devices", nil, "GPU types whose pairs are cut, one at a time (default: every type with pairs)")
	fl.Float64SliceVar(&o.Fractions, "fractions", budget.DefaultFractions, "shares of a type's pairs profiled, in [0, 1) (every pair is the reference)")
	fl.StringSliceVar(&o.Orders, "orders", budget.Orders, "orders the pairs are profiled in: random, next")
	fl.IntVar(&o.Seeds, "seeds", 3, "random orders (and random starts of next) per type")
	fl.StringVar(&o.Work, "work", "", "directory of the checkpoint (points.jsonl) and of the models while they are used")
	fl.StringVar(&markdown, "markdown", "", "write the page to this file")
	fl.StringVar(&figure, "figure", "", "also draw the figure as FILE.svg, FILE.png and FILE.csv")
	for _, name := range []string{"traces", "clusters", "data", "work", "markdown"} {
		cmd.MarkFlagRequired(name)
	}
	completeValues(cmd, "orders", budget.Orders)
	return cmd
}

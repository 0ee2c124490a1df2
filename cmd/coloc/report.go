package main

import (
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/reports"
	"github.com/coloc-dev/coloc/reports/paper"
	"github.com/spf13/cobra"
)

// coloc report: flags → reports.Config → reports.Build. What the report
// holds and every choice it makes are in package reports (doc.go).

func newReportCmd(e *env) *cobra.Command {
	cfg := reports.DefaultConfig()
	var quiet bool
	cmd := &cobra.Command{
		Use:   "report --out DIR [--data DIR[,DIR...]] [--eval F] [--predictions F] [--active F] [--sim F[,F...]] [--models M] [--campaign DIR]",
		Short: "Figures and an HTML report of what the pipeline's stages wrote",
		Long: `Writes DIR/index.html and its figures (each as SVG, PNG and the data drawn as
CSV) from the files the earlier stages wrote; it computes nothing of its own:

  --data DIR[,DIR...]  heat maps of the pairwise normalized throughput per
                       device type (pairs.arrow), scaling curves of throughput
                       against GPUs with the degree coloc chooses marked
                       (scaling.arrow)
  --eval FILE          model accuracy: MAE against the fraction of observed
                       pairs per model ('coloc eval -o FILE')
  --predictions FILE   predicted against measured values and the CDF of
                       absolute errors on the held-out pairs of one split
                       ('coloc eval --predictions FILE')
  --models M           the predictions of fitted models ('coloc fit -o M') of
                       the measured pairs of the first --data with pairs, on
                       --device
  --active FILE        learning curves of choosing the pairs to profile
                       ('coloc eval --protocol active -o FILE')
  --sim F[,F...]       JCT CDF, average JCT, GPU utilisation and makespan per
                       policy, one replay of a trace on a cluster per file
                       ('coloc simulate -o F'), the same policies in each
  --campaign DIR       counter time series of one solo and one pair run of a
                       coloc campaign (runs.arrow, samples.arrow)

Every warning of the data, the models, the stages and the simulator is
listed in a section of its own. The page captions say what each figure
shows and from which file; its footer gives the tool version and the SHA-256
of every input. The same inputs give the same bytes. Every input is checked
before any work. DIR may hold other files: the report lists the files it
writes in DIR/` + reports.ManifestFile + ` and the next report replaces or
removes only those. Progress goes to stderr.`,
		Example: `  coloc report --data datasets/reference/gavel,datasets/reference/pollux --out out/report
  coloc eval --data out/data/gavel -o out/eval.arrow --predictions out/predictions.arrow
  coloc simulate --trace examples/traces/msr/ed69ec.trace --cluster examples/cluster-gavel-48.yaml \
    --data out/data/gavel --models out/models -o out/sim-ed69ec.json
  coloc report --data out/data/gavel --eval out/eval.arrow --predictions out/predictions.arrow \
    --sim out/sim-ed69ec.json --out out/report
  coloc report --campaign out/campaign --out out/campaign-report
  coloc report paper --out out/paper`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !quiet {
				cfg.Progress = e.stderr
			}
			return buildReport(e, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&cfg.Out, "out", "o", "", "report directory")
	f.StringVar(&cfg.Title, "title", cfg.Title, "title of the page")
	f.StringSliceVar(&cfg.Data, "data", nil, "dataset directories, comma-separated")
	f.StringSliceVar(&cfg.ScalingDevices, "scaling-device", nil, "device types of the scaling figures (default: all)")
	f.StringVar(&cfg.Models, "models", "", "model directory written by 'coloc fit': its predictions of the measured pairs")
	f.StringSliceVar(&cfg.Devices, "device", nil, "devices of the fitted models' predictions (default: those with measured pairs, except spread device types)")
	f.StringVar(&cfg.EvalFile, "eval", "", "result file of 'coloc eval -o'")
	f.StringVar(&cfg.PredictionsFile, "predictions", "", "held-out predictions of 'coloc eval --predictions'")
	f.StringVar(&cfg.ActiveFile, "active", "", "learning curves of 'coloc eval --protocol active -o'")
	f.StringSliceVar(&cfg.SimFiles, "sim", nil, "replays of 'coloc simulate -o', comma-separated")
	f.StringVar(&cfg.Campaign, "campaign", "", "campaign directory (runs.arrow, samples.arrow)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	cmd.MarkFlagRequired("out")
	completeDirs(cmd, "out", "data", "models", "campaign")
	completeFiles(cmd, "eval", "arrow")
	completeFiles(cmd, "predictions", "arrow")
	completeFiles(cmd, "active", "json")
	completeFiles(cmd, "sim", "json")
	cmd.AddCommand(newReportPaperCmd(e))
	return cmd
}

func newReportPaperCmd(e *env) *cobra.Command {
	var out, root, cache string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "paper --out DIR",
		Short: "Regenerate the whole figure set from the shipped reference data",
		Long: `Runs the pipeline's stages on the shipped reference data, writes their files
into DIR/stages, and draws them into DIR as 'coloc report' does: heat maps of
Gavel's pairwise normalized throughput on k80, p100 and v100; scaling curves
of Gavel (k80, p100, v100) and Pollux (t4) with the chosen degree marked;
every standard model fitted on all of Gavel's measured pairs
(DIR/stages/models, 'coloc fit') and evaluated on its pairs (protocol pairs,
fractions 0.1, 0.2, 0.5 and 0.8, seeds 1 to 5: eval.arrow, 'coloc eval -o')
with the held-out predictions of fraction 0.5, seed 1 (predictions.arrow,
'coloc eval --predictions'); the learning curves of choosing the pairs to
profile (IASP, seeds 1 to 5: active.json, 'coloc eval --protocol active
-o'); and the physical-cluster traces and the msr traces 103959, 2869ce and
ed69ec replayed on examples/cluster-gavel.yaml and
examples/cluster-gavel-48.yaml under every policy of 'coloc simulate'
(seed 1; one replay-*.json each, 'coloc simulate -o').

Run it in the repository, or give --root. The same inputs give the same bytes.
Progress goes to stderr.`,
		Example: `  coloc report paper --out out/paper
  coloc report paper --out out/paper --eval-cache ~/.cache/coloc   # the second run reuses the fits`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := paper.New(root, out)
			if err != nil {
				return err
			}
			p.Cache = cache
			if !quiet {
				p.Progress = e.stderr
			}
			sum, err := p.Build()
			if err != nil {
				return err
			}
			printSummary(e, sum)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "report directory")
	cmd.Flags().StringVar(&root, "root", ".", "the coloc repository (where datasets/reference and examples are)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	cmd.Flags().StringVar(&cache, "eval-cache", "", "keep the evaluation, the learning curves and the fitted models in this directory and reuse them when the data, settings and coloc version are the same")
	cmd.MarkFlagRequired("out")
	completeDirs(cmd, "out", "root")
	return cmd
}

// buildReport builds the report and prints its summary line.
func buildReport(e *env, cfg reports.Config) error {
	sum, err := reports.Build(cfg)
	if err != nil {
		return err
	}
	printSummary(e, sum)
	return nil
}

// printSummary prints what a report wrote, in one line.
func printSummary(e *env, sum *reports.Summary) {
	fmt.Fprintf(e.stdout, "wrote %s: %d figures (%s), %d warnings\n", sum.Index, sum.Figures, strings.Join(sum.Sections, ", "), sum.Warnings)
}

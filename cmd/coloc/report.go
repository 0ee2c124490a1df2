package main

import (
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/internal/textlist"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/reports"
	"github.com/spf13/cobra"
)

// coloc report: flags → reports.Config → reports.Build. What the report
// holds and every choice it makes are in package reports (doc.go).

func newReportCmd(e *env) *cobra.Command {
	cfg := reports.DefaultConfig()
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
  --active-seeds N     learning curves of choosing the pairs to profile
                       ('coloc eval --protocol active', IASP, every strategy)
  --trace T --cluster C  JCT CDF, average JCT, GPU utilisation and makespan per
                       policy: every trace on every cluster, with the measured
                       rates of the first dataset with pairs
  --campaign DIR       counter time series of one solo and one pair run of a
                       coloc campaign (runs.arrow, samples.arrow)

Every warning of the data, the models and the simulator is listed in a
section of its own. The page captions say what each figure shows and from
which data; its footer gives the tool version and the SHA-256 of every
input. The same inputs give the same bytes. Every setting and input is
checked before any work. DIR may hold other files: the report lists the
files it writes in DIR/` + reports.ManifestFile + ` and the next report
replaces or removes only those. Progress goes to stderr.`,
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
			if cfg.EvalFractions, err = textlist.Shares("--fractions", fractions); err != nil {
				return err
			}
			if len(traces) > 0 && len(clusters) == 0 || len(clusters) > 0 && len(traces) == 0 {
				return fmt.Errorf("--trace and --cluster go together")
			}
			for _, c := range clusters {
				for _, t := range traces {
					cfg.Scenarios = append(cfg.Scenarios, reports.Scenario{Trace: t, Cluster: c})
				}
			}
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
	f.StringVar(&cfg.Models, "models", "", "model directory written by 'coloc fit' (default: fit on the fly when a policy needs models)")
	f.StringVar(&cfg.EvalFile, "eval", "", "result file of 'coloc eval -o' (default: compute the evaluation)")
	f.StringVar(&cfg.EvalCache, "eval-cache", "", "keep a computed evaluation in this directory and reuse it when the data, settings and coloc version are the same")
	f.StringVar(&evalModels, "eval-models", "all", "models evaluated on the fly, comma-separated, or none")
	f.StringVar(&fractions, "eval-fractions", "0.1,0.2,0.5,0.8", "fractions of observed pairs of the computed evaluation")
	f.IntVar(&cfg.EvalSeeds, "eval-seeds", cfg.EvalSeeds, "seeds of the computed evaluation (1..N)")
	f.StringSliceVar(&cfg.EvalDevices, "eval-device", nil, "devices evaluated (default: those with measured pairs, except spread device types)")
	f.IntVar(&cfg.ActiveSeeds, "active-seeds", 0, "learning curves of active selection ('coloc eval --protocol active') over this many seeds (0: none)")
	f.Float64Var(&cfg.ScatterFraction, "scatter-fraction", cfg.ScatterFraction, "fraction of observed pairs of the split the predicted-vs-measured figures show")
	f.IntVar(&cfg.ScatterSeed, "scatter-seed", cfg.ScatterSeed, "seed of that split")
	f.StringSliceVar(&traces, "trace", nil, "Gavel job traces to replay, comma-separated")
	f.StringSliceVar(&clusters, "cluster", nil, "cluster specs to replay them on, comma-separated")
	f.StringSliceVar(&cfg.Policies, "policy", cfg.Policies, "policies to simulate, comma-separated")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the randomised policies")
	f.StringVar(&cfg.Campaign, "campaign", "", "campaign directory (runs.arrow, samples.arrow)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	cmd.MarkFlagRequired("out")
	completeValues(cmd, "policy", reports.PolicyNames())
	completeValues(cmd, "eval-models", append(model.Names(), "all", "none"))
	completeDirs(cmd, "out", "data", "models", "campaign")
	completeFiles(cmd, "eval", "arrow")
	completeFiles(cmd, "trace", "trace", "yaml", "yml", "json")
	completeFiles(cmd, "cluster", "yaml", "yml")
	cmd.AddCommand(newReportPaperCmd(e))
	return cmd
}

func newReportPaperCmd(e *env) *cobra.Command {
	var out, root, evalCache string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "paper --out DIR",
		Short: "Regenerate the whole figure set from the shipped reference data",
		Long: `Writes the report of the shipped reference data into DIR: heat maps of Gavel's
pairwise normalized throughput on k80, p100 and v100; scaling curves of Gavel
(k80, p100, v100) and Pollux (t4) with the chosen degree marked; every model
evaluated on Gavel's pairs (protocol pairs, fractions 0.1, 0.2, 0.5 and 0.8,
seeds 1 to 5) with predicted against measured values of the held-out pairs of
fraction 0.5, seed 1; the learning curves of choosing the pairs to profile
('coloc eval --protocol active', IASP, seeds 1 to 5); and the physical-cluster traces and the msr traces
103959, 2869ce and ed69ec replayed on examples/cluster-gavel.yaml and
examples/cluster-gavel-48.yaml under every
policy of 'coloc simulate' (seed 1), the model-driven ones with models fitted
on all of Gavel's measured pairs (DIR/models).

Run it in the repository, or give --root. The same inputs give the same bytes.
Progress goes to stderr.`,
		Example: `  coloc report paper --out out/paper`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := reports.PaperConfig(root, out)
			if err != nil {
				return err
			}
			cfg.EvalCache = evalCache
			if !quiet {
				cfg.Progress = e.stderr
			}
			return buildReport(e, cfg)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "report directory")
	cmd.Flags().StringVar(&root, "root", ".", "the coloc repository (where datasets/reference and examples are)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	cmd.Flags().StringVar(&evalCache, "eval-cache", "", "keep the computed evaluation in this directory and reuse it when the data, settings and coloc version are the same")
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
	fmt.Fprintf(e.stdout, "wrote %s: %d figures (%s), %d warnings\n", sum.Index, sum.Figures, strings.Join(sum.Sections, ", "), sum.Warnings)
	return nil
}

func parseEvalModels(list string) ([]string, error) {
	if list == "none" || list == "" {
		return nil, nil
	}
	return model.ParseNames(list)
}

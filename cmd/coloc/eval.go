package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/internal/textlist"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/model/eval/evalfile"
	"github.com/spf13/cobra"
)

func newEvalCmd(e *env) *cobra.Command {
	var data, protocols, fractions, models, devices, out, predictions string
	var seeds, workers, splitSeed int
	var splitFraction float64
	var asJSON, markdown, quiet, includeUnsettled bool
	var versus []string
	o0 := eval.DefaultOptions
	cmd := &cobra.Command{
		Use:   "eval --data DIR",
		Short: "Score every model on held-out measured pairs",
		Long: `Evaluates the models on the measured pairs of the dataset in DIR (status ok;
suspect and infeasible pairs are never trained on nor scored), for each
protocol, device, fraction F and seed 1..N. Every model gets the same splits
for the same seed.

Protocols:
  pairs         F of the measured ordered pairs of the device are observed,
                the rest are predicted (matrix completion)
  new-job       each workload in turn is hidden with all its pairs on the
                device; it is predicted from its features and F of its pairs
                with the others (all other pairs of the device are observed)
  cross-device  all measured pairs of the other evaluated devices and F of
                the target device's pairs are observed; the rest of the
                target's are predicted
  active        (alone) simulates choosing the pairs to profile: from a
                random 5% of the unordered pairs, each strategy (width:
                coloc profile next's default, uncertainty, random) adds 5%
                a round up to 50%; the model (--models, one; default iasp)
                is refit each round and scored on the pairs not yet chosen.
                Prints learning curves (median over seeds) and the MAE of a
                fit on 90% of the pairs (all-pairs reference); -o writes
                every seed's curves to a JSON file (format
                coloc.active-curves, version 2).

Metrics: MAE, RMSE, MAPE, R2 and Spearman's rho of normalized throughput,
and agreement: the share of test pairs {A, B} (both orders held out) on
which "co-locate if both normalized throughputs are >= 0.8" decided on the
predictions matches the decision on the measurements. Printed values are
medians over seeds; -o writes every seed's scores to an Arrow table "eval"
(version 2). --predictions also writes the per-pair view of one split of
protocol pairs (--split-fraction, --split-seed) on each device: every
held-out pair with its measurement and each model's prediction, an Arrow
table "predictions" (version 1) that coloc report draws.

Trust: cover is the share of test pairs whose measurement falls in the
prediction's interval (nominal --coverage, default 0.9; intervals are
calibrated by cross-conformal prediction on each fit's training pairs, so
every fit is repeated --folds times), width the intervals' mean width, and
oor% the share of raw predictions over all pairs the fit did not train on
(measured or not) that fall outside the plausible range. Predictions are
bounded to that range before they are scored. A cell that cannot be fit
(too few pairs at a small fraction) is reported and skipped. Models choose their hyper-parameters on validation splits of
the observed pairs only.

By default the devices are those with measured pairs, except spread
device types (GPUs on several servers), whose single-GPU pairs repeat the base type's.
Progress goes to stderr. Fits run on --workers goroutines (default: all
cores); the scores are those of one worker.`,
		Example: `  coloc eval --data datasets/reference/gavel
  coloc eval --data datasets/reference/gavel --protocol pairs --fractions 0.2,0.5 --json
  coloc eval --data datasets/reference/gavel --protocol new-job --models iapp,similarity,bias -o out/eval.arrow
  coloc eval --data datasets/reference/gavel --models mean,bias,iasp -o out/eval.arrow --predictions out/predictions.arrow --split-fraction 0.5
  coloc eval --data datasets/reference/gavel --protocol active --models iasp --seeds 2 -o out/active.json
  coloc eval --data datasets/reference/gavel --fractions 0.2,0.5 --models committee,iasp,gbt,forest --folds 0 --markdown --versus gbt,forest
  coloc eval --data datasets/reference/counters --fractions 0.2 --models committee,stack,gbt,forest,gbt-sums --folds 0 --markdown --versus gbt,forest --versus gbt-sums`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPredictionFlags(cmd, predictions, protocols, splitFraction, splitSeed); err != nil {
				return err
			}
			if protocols == "active" {
				return runActive(e, data, models, devices, out, seeds, asJSON, quiet)
			}
			o := eval.DefaultOptions
			o.Trust = o0.Trust
			var err error
			if o.Protocols, err = eval.ParseProtocols(protocols); err != nil {
				return err
			}
			if o.Models, err = model.ParseNames(models); err != nil {
				return err
			}
			if o.Fractions, err = textlist.Shares("--fractions", fractions); err != nil {
				return err
			}
			var vs [][]string
			if len(versus) > 0 && !markdown {
				return errors.New("--versus adds a row to the --markdown tables; give --markdown too")
			}
			for _, g := range versus {
				if strings.TrimSpace(g) == "" || strings.TrimSpace(g) == "all" {
					return fmt.Errorf("--versus %q: name the baseline models", g)
				}
				names, err := model.ParseNames(g)
				if err != nil {
					return fmt.Errorf("--versus: %w", err)
				}
				vs = append(vs, names)
			}
			if err := eval.CheckVersus(o.Models, vs); err != nil {
				return fmt.Errorf("--versus: %w", err)
			}
			o.Seeds = seeds
			o.Workers = workers
			if devices != "" {
				o.Devices = strings.Split(devices, ",")
			}
			if !quiet {
				o.Progress = e.stderr
			}
			d, err := model.LoadDataWith(data, model.DataOptions{IncludeUnsettled: includeUnsettled})
			if err != nil {
				return err
			}
			if !quiet {
				e.say("warning:", d.Warnings...)
			}
			start := time.Now()
			res, err := eval.Run(d, o)
			if err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintf(e.stderr, "eval: %s fits scored in %.1fs (%s cells)\n", model.Count(res.Fits), time.Since(start).Seconds(), model.Count(len(res.Cells)))
			}
			for _, w := range res.Warnings[len(d.Warnings):] {
				if !quiet {
					fmt.Fprintln(e.stderr, "warning:", w)
				}
			}
			if out != "" {
				if err := res.Write(out); err != nil {
					return err
				}
			}
			if predictions != "" {
				sp := eval.Split{Protocol: "pairs", Fraction: splitFraction, Seed: splitSeed}
				if err := writePredictions(e, d, o, sp, predictions, quiet); err != nil {
					return err
				}
			}
			switch {
			case asJSON:
				return res.WriteJSON(e.stdout)
			case markdown:
				return res.WriteMarkdown(e.stdout, vs...)
			}
			return res.WriteText(e.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "dataset directory")
	f.StringVar(&protocols, "protocol", "pairs", "comma-separated protocols: pairs, new-job, cross-device, or all; or active (alone)")
	f.StringVar(&fractions, "fractions", "0.1,0.2,0.5,0.8", "comma-separated fractions of observed pairs")
	f.IntVar(&seeds, "seeds", 5, "number of seeds (1..N)")
	f.IntVar(&workers, "workers", 0, "fits run at once (0: GOMAXPROCS); the scores do not depend on it")
	f.StringVar(&models, "models", "all", "comma-separated models")
	f.StringVar(&devices, "device", "", "comma-separated devices (default: all with measured pairs)")
	f.BoolVar(&asJSON, "json", false, "print one JSON object per (model, protocol, device, fraction)")
	f.BoolVar(&markdown, "markdown", false, "print median MAE tables in Markdown")
	f.StringArrayVar(&versus, "versus", nil, "with --markdown: comma-separated baseline models (e.g. gbt,forest); a last row gives the best model named in no --versus over the best of these, per column (MAE ratio); repeat for one row per group")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress or warnings on stderr")
	f.BoolVar(&includeUnsettled, "include-unsettled", false, "also use suspect pairs of coloc's campaigns (runs that never settled or shared the GPU)")
	f.Float64Var(&o0.Trust.Coverage, "coverage", o0.Trust.Coverage, "nominal coverage of the prediction intervals scored")
	f.IntVar(&o0.Trust.Folds, "folds", o0.Trust.Folds, "cross-conformal folds per fit, to score interval coverage and width (0: no intervals, eleven times faster)")
	f.StringVarP(&out, "out", "o", "", "write every seed's scores to this Arrow file (with --protocol active: every seed's learning curves, as JSON)")
	f.StringVar(&predictions, "predictions", "", "also write each model's predictions of the pairs held out by one split of protocol pairs on each device to this Arrow file")
	f.Float64Var(&splitFraction, "split-fraction", 0.5, "with --predictions: the fraction of each device's measured pairs the split observes")
	f.IntVar(&splitSeed, "split-seed", 1, "with --predictions: the seed of the split")
	cmd.MarkFlagRequired("data")
	completeValues(cmd, "protocol", append(eval.Protocols, "all"))
	completeValues(cmd, "models", append(model.Names(), "all"))
	cmd.RegisterFlagCompletionFunc("device", completeDataDevices)
	return cmd
}

// checkPredictionFlags checks the flags of --predictions before any
// work: the split's, and the protocol (pairs, the split's own).
func checkPredictionFlags(cmd *cobra.Command, predictions, protocols string, fraction float64, seed int) error {
	if predictions == "" {
		for _, name := range []string{"split-fraction", "split-seed"} {
			if cmd.Flags().Changed(name) {
				return fmt.Errorf("--%s chooses the split of --predictions; give --predictions too", name)
			}
		}
		return nil
	}
	if ps, err := eval.ParseProtocols(protocols); protocols == "active" || err == nil && !slices.Equal(ps, []string{"pairs"}) {
		return fmt.Errorf("--predictions writes a split of protocol pairs; it goes with --protocol pairs (the default), not %s", protocols)
	}
	if !(fraction >= 0 && fraction < 1) {
		return fmt.Errorf("--split-fraction %v: want a fraction in [0, 1)", fraction)
	}
	if seed < 1 {
		return fmt.Errorf("--split-seed %d: want 1 or more", seed)
	}
	return nil
}

// writePredictions writes the predictions of o's models on the pairs the
// split sp holds out on each of o's devices (default: eval's) to path.
func writePredictions(e *env, d *model.Data, o eval.Options, sp eval.Split, path string, quiet bool) error {
	rows, err := evalfile.PredictSplit(d, o.Models, o.Devices, sp.Fraction, sp.Seed, o.Workers)
	if err != nil {
		return fmt.Errorf("--predictions: %w", err)
	}
	if err := evalfile.WritePredictions(path, &evalfile.Predictions{Split: sp, Rows: rows, Warnings: d.Warnings}); err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(e.stderr, "eval: %s predictions of held-out pairs (protocol pairs, fraction %g, seed %d) written to %s\n",
			model.Count(len(rows)), sp.Fraction, sp.Seed, path)
	}
	return nil
}

// runActive is `coloc eval --protocol active`; out, when set, receives the
// learning curves.
func runActive(e *env, data, models, devices, out string, seeds int, asJSON, quiet bool) error {
	o := eval.DefaultActiveOptions
	o.Seeds = seeds
	if models != "" && models != "all" {
		names, err := model.ParseNames(models)
		if err != nil {
			return err
		}
		if len(names) != 1 {
			return fmt.Errorf("--protocol active simulates one model; --models names %d", len(names))
		}
		o.Model = names[0]
	}
	if devices != "" {
		o.Devices = strings.Split(devices, ",")
	}
	if !quiet {
		o.Progress = e.stderr
	}
	d, err := model.LoadData(data)
	if err != nil {
		return err
	}
	res, err := eval.RunActive(d, o)
	if err != nil {
		return err
	}
	if !quiet {
		e.say("warning:", res.Warnings...)
	}
	if out != "" {
		if err := evalfile.WriteActive(out, &evalfile.Active{Options: o, Result: res}); err != nil {
			return err
		}
	}
	if asJSON {
		return res.WriteJSON(e.stdout)
	}
	return res.WriteText(e.stdout)
}

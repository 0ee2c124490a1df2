package main

import (
	"fmt"
	"path/filepath"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/spf13/cobra"
)

func newFitCmd(e *env) *cobra.Command {
	var data, out, models string
	var seed uint64
	var includeUnsettled bool
	var workers int
	trust := model.DefaultTrustOptions
	cmd := &cobra.Command{
		Use:   "fit --data DIR -o MODELDIR",
		Short: "Fit interference models on every measured pair of a dataset",
		Long: `Builds the features of the dataset in DIR, fits each model of --models
(by default iasp, iapp and similarity: the models 'policy export',
'simulate' and 'serve' decide with; --models all fits every kind) on all its
measured pairs (status ok; suspect and infeasible pairs are never used) and
writes MODELDIR/<model>.json and MODELDIR/index.json.

Models:
` + modelList() + `
A model file is versioned JSON: the jobs, slots (device type and degree) and
encoded features it knows, the scaler fit on its training rows, the learned
parameters, and provenance (SHA-256 of the data files, pairs, seed,
hyper-parameters, tool version). The same data and seed give the same bytes,
whatever --workers.
Problems that did not stop the fit (missing feature values) are kept in the
file as warnings and printed. A line on stderr says when each model is done
and about how long the rest will take.

Each file also keeps what 'coloc predict' and 'coloc policy export' need to
bound and qualify a prediction (see docs/predictions.md): the plausible
range (the span of the measured normalized throughputs; a prediction outside
is set to the nearest bound and flagged), each job's number of training
pairs per device (a job with none there is flagged unseen) and the
cross-conformal quantiles of held-out residuals that give each prediction
an interval at --coverage (default 0.9). Calibration fits each model --folds
more times.`,
		Example: `  coloc fit --data datasets/reference/gavel -o out/models
  coloc fit --data datasets/reference/gavel -o out/models --models iasp,bias --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			names, err := model.ParseNames(models)
			if err != nil {
				return err
			}
			ds, err := datasets.Open(data) // every file read and hashed once
			if err != nil {
				return err
			}
			d, err := model.DataOfWith(ds, model.DataOptions{IncludeUnsettled: includeUnsettled})
			if err != nil {
				return err
			}
			e.say("warning:", d.Warnings...)
			if w := model.SmallDataWarning(d); w != "" {
				fmt.Fprintln(e.stderr, "warning:", w)
			}
			fitted, err := place.FitWithProgress(d, names, seed, trust, workers, e.stderr)
			if err != nil {
				return err
			}
			if _, err := model.WriteDir(out, d, fitted); err != nil {
				return err
			}
			if len(fitted) > 0 {
				n := len(fitted[0].Warnings) - len(fitted[0].Calibration)
				e.say("warning:", fitted[0].Warnings[:n]...)
			}
			for _, f := range fitted {
				e.say("warning:", f.Calibration...)
			}
			for _, f := range fitted {
				fmt.Fprintf(e.stdout, "wrote %s (%d bytes)\n", filepath.Join(out, f.Name+".json"), len(f.Bytes))
			}
			fmt.Fprintf(e.stdout, "wrote %s: %d models, %d pairs, %d jobs\n", filepath.Join(out, model.IndexFile), len(fitted), len(d.Obs), len(d.Space.Jobs))
			return nil
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "dataset directory")
	cmd.Flags().StringVarP(&out, "out", "o", "", "model directory (created if needed)")
	cmd.Flags().StringVar(&models, "models", "iasp,iapp,similarity", "comma-separated models to fit, or all (the default: those predict, policy export, simulate and serve decide with)")
	cmd.Flags().Uint64Var(&seed, "seed", model.DefaultSeed, "seed of every random choice")
	cmd.Flags().BoolVar(&includeUnsettled, "include-unsettled", false, "also train on suspect pairs of coloc's campaigns (runs that never settled or shared the GPU)")
	cmd.Flags().IntVar(&workers, "workers", 0, "models fit at once (0: GOMAXPROCS); the files do not depend on it")
	cmd.Flags().Float64Var(&trust.Coverage, "coverage", trust.Coverage, "nominal coverage of the prediction intervals")
	cmd.Flags().IntVar(&trust.Folds, "folds", trust.Folds, "cross-conformal folds that calibrate the intervals (0: no intervals)")
	cmd.MarkFlagRequired("data")
	cmd.MarkFlagRequired("out")
	completeValues(cmd, "models", append(model.Names(), "all"))
	return cmd
}

func modelList() string {
	s := ""
	for _, n := range model.Names() {
		s += fmt.Sprintf("  %-11s %s\n", n, model.Describe(n))
	}
	return s
}

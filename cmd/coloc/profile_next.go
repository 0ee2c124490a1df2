package main

import (
	"fmt"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/profile/next"
	"github.com/spf13/cobra"
)

func newProfileNextCmd(e *env) *cobra.Command {
	var data, models, modelName, device, strategy, out string
	var budget int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "next --data DIR --budget N -o FILE",
		Short: "Choose the pairs to profile next and write them as a pair list",
		Long: `Ranks the pairs of the dataset's workloads that have not been profiled on a
device (a workload next to itself included) by the value of measuring them,
and writes the best --budget of them to a pair list that
'coloc profile run --pairs-from FILE' reads.

Strategies (see docs/predictions.md):
  width        (default) greedy: the pair whose measurement most narrows the
               prediction intervals of every pair not yet measured, plus its
               own; pairs already chosen count as measured, so a batch
               spreads over the workloads
  uncertainty  the pairs with the widest intervals, each on its own
  random       uniformly at random

An interval's width on a device is the model's conformal quantile there
(from --models, when given) times a difficulty that shrinks with the number
of measured pairs of each of the two workloads. Pairs already in the pairs
table (measured, suspect, infeasible or failed) are never chosen. The loop:
profile solo -> profile next -> profile run --pairs-from -> fit -> next.`,
		Example: `  coloc profile run --suite benchmarks/suites/tiny.yaml --out out/tiny --device cpu --pairs none
  coloc profile next --data out/tiny --budget 2 -o out/next.pairs
  coloc profile run --suite benchmarks/suites/tiny.yaml --out out/tiny2 --device cpu --pairs-from out/next.pairs
  coloc profile next --data datasets/reference/gavel --device v100 --models out/models --budget 20 -o next.pairs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ch, err := next.Choose(next.Options{Data: data, Models: models, Model: modelName, Device: device,
				Strategy: strategy, Budget: budget, Seed: seed})
			if err != nil {
				return err
			}
			if len(ch.Pairs) == 0 {
				fmt.Fprintf(e.stderr, "note: every pair of %s's workloads on %s has been profiled: nothing to choose\n", data, ch.Device)
			}
			notes := []string{fmt.Sprintf("chosen by coloc profile next --strategy %s --budget %d from %s (%d measured pairs, %d pairs in the table)", strategy, budget, data, ch.Measured, ch.InTable)}
			if err := model.WritePairList(out, ch.Pairs, notes, ch.Comments); err != nil {
				return err
			}
			for i, p := range ch.Pairs {
				fmt.Fprintf(e.stdout, "%3d  %s + %s  (%s)\n", i+1, p[0], p[1], ch.Comments[i])
			}
			fmt.Fprintf(e.stdout, "wrote %s: %d pairs (coloc profile run --pairs-from %s)\n", out, len(ch.Pairs), out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&data, "data", "", "dataset directory (solo runs at least)")
	fl.StringVar(&models, "models", "", "model directory written by 'coloc fit' (optional): its conformal quantiles scale the widths per device")
	fl.StringVar(&modelName, "model", "iasp", "model of --models whose intervals are used")
	fl.StringVar(&device, "device", "", "device type to choose pairs on (default: the dataset's only one)")
	fl.StringVar(&strategy, "strategy", model.StrategyWidth, "width, uncertainty or random")
	fl.IntVar(&budget, "budget", 10, "number of pair runs to choose")
	fl.Uint64Var(&seed, "seed", 1, "seed of the random order ties are broken in")
	fl.StringVarP(&out, "out", "o", "", "pair list to write")
	cmd.MarkFlagRequired("data")
	cmd.MarkFlagRequired("out")
	return cmd
}

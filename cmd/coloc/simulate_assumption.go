package main

import (
	"github.com/coloc-dev/coloc/sim/experiment"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// defaultAssumePairs is the default of --assume-multi-gpu-pairs, chosen
// by the evidence in docs/simulation.md (scripts/assume-sim.sh).
const defaultAssumePairs = false

// addAssumeFlags adds the multi-GPU pair assumption's flags to fl.
func addAssumeFlags(fl *pflag.FlagSet, assume, hide *bool) {
	fl.BoolVar(assume, "assume-multi-gpu-pairs", defaultAssumePairs, "let two jobs of the same degree share their GPUs where the data did not measure the pair at that degree, at the pair's normalized throughputs on one GPU (labelled assumed; false: only measured multi-GPU pairs share)")
	fl.BoolVar(hide, "hide-multi-gpu-pairs", false, "drop the pairs measured on more than one GPU, to test the assumption against them")
	fl.MarkHidden("hide-multi-gpu-pairs")
}

func newSimulateAssumptionCmd(e *env) *cobra.Command {
	var data string
	cmd := &cobra.Command{
		Use:   "assumption --data DIR",
		Short: "Compare the multi-GPU pair assumption with the pairs measured on several GPUs",
		Long: `For every pair the data measured on more than one GPU (and on one GPU of the
same type), compares the assumption of --assume-multi-gpu-pairs (a job's
normalized throughput next to its partner on one GPU) with the normalized
throughput measured at the degree, and prints a Markdown table per device
type and degree: pairs, mean absolute error, bias (assumed minus measured:
above 0 the assumption is optimistic) and the mean measured value.`,
		Example: `  coloc simulate assumption --data datasets/reference/gavel`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return experiment.WriteAssumption(e.stdout, data)
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "dataset directory with solo.arrow and pairs.arrow (iterations/s, or samples/s with batch sizes)")
	cmd.MarkFlagRequired("data")
	return cmd
}

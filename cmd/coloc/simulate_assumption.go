package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/policies"
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
			truth, err := policies.LoadTruth(data)
			if err != nil {
				return err
			}
			if es := truth.AssumptionErrors(); len(es) > 0 {
				return writeAssumption(e, es)
			}
			return writeUnmeasured(e, data)
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "dataset directory with solo.arrow and pairs.arrow (iterations/s, or samples/s with batch sizes)")
	cmd.MarkFlagRequired("data")
	return cmd
}

// writeUnmeasured says why nothing could be compared: the pair rows of
// the data in dir on more than one GPU, by status.
func writeUnmeasured(e *env, dir string) error {
	ds, err := datasets.Open(dir)
	if err != nil {
		return err
	}
	by := map[string]int{}
	n := 0
	if ds.Pairs != nil {
		for _, p := range ds.Pairs.Rows {
			if p.Degree > 1 {
				by[p.Status]++
				n++
			}
		}
	}
	var parts []string
	for _, st := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%d %s", by[st], st))
	}
	detail := ""
	if n > 0 {
		detail = fmt.Sprintf(" (of its %d pair rows on more than one GPU: %s)", n, strings.Join(parts, ", "))
	}
	_, err = fmt.Fprintf(e.stdout, "%s holds no status-ok pair measured on more than one GPU%s: nothing to compare the assumption with.\n", dir, detail)
	return err
}

func writeAssumption(e *env, es []sim.AssumptionError) error {
	fmt.Fprintln(e.stdout, "| device | degree | pairs | MAE | bias | mean measured |")
	fmt.Fprintln(e.stdout, "|---|---:|---:|---:|---:|---:|")
	var n int
	var mae, bias, y float64
	for _, x := range es {
		fmt.Fprintf(e.stdout, "| %s | %d | %d | %.3f | %+.3f | %.3f |\n", x.Device, x.Degree, x.Pairs, x.MAE, x.Bias, x.MeanMeasured)
		n += x.Pairs
		mae += x.MAE * float64(x.Pairs)
		bias += x.Bias * float64(x.Pairs)
		y += x.MeanMeasured * float64(x.Pairs)
	}
	_, err := fmt.Fprintf(e.stdout, "| all | | %d | %.3f | %+.3f | %.3f |\n", n, mae/float64(n), bias/float64(n), y/float64(n))
	return err
}

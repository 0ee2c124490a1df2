package main

import (
	"fmt"

	"github.com/coloc-dev/coloc/features"
	"github.com/spf13/cobra"
)

func newFeaturesCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "features",
		Short: "Build per-workload feature vectors from a dataset",
	}
	cmd.AddCommand(newFeaturesBuildCmd(e))
	return cmd
}

func newFeaturesBuildCmd(e *env) *cobra.Command {
	var data, out string
	cmd := &cobra.Command{
		Use:   "build --data DIR -o FILE",
		Short: "Write the feature table of a dataset (features.arrow)",
		Long: `Builds one feature row per solo row of the dataset in DIR (workload, device
type, degree):

  descriptors   params, flops_per_sample, batch_size, layers_<kind>, class,
                precision: from DIR/workloads.json when present, else from
                the job name and coloc's table of known models (Gavel's
                families; estimates are marked in the file's metadata)
  measured      throughput, sample_rate (iterations/s x batch size),
                peak_memory, the solo table's own feature columns, and for
                every counter of samples.arrow its mean, median, p95 and std
                over each solo run's steady window (averaged over repeats)

Columns without any value are left out. The file is an Arrow IPC table named
"features" (version 1) with each column's unit, group and log scale in its
field metadata, written atomically. Models standardize features themselves,
on their training rows only.`,
		Example: `  coloc features build --data datasets/reference/gavel -o out/features.arrow`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := features.BuildDir(data)
			if err != nil {
				return err
			}
			if err := features.Write(out, set); err != nil {
				return err
			}
			e.say("warning:", set.Warnings...)
			fmt.Fprintf(e.stdout, "wrote %s: %d rows, %d features\n", out, len(set.Rows), len(set.Columns))
			return nil
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "dataset directory")
	cmd.Flags().StringVarP(&out, "out", "o", "features.arrow", "output file")
	cmd.MarkFlagRequired("data")
	return cmd
}

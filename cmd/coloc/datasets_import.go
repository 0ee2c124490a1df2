package main

import (
	"fmt"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/spf13/cobra"
)

func newImportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Convert public or third-party measurements into dataset tables",
	}
	cmd.AddCommand(newImportGavelCmd(e), newImportPolluxCmd(e), newImportCSVCmd(e))
	return cmd
}

func newImportGavelCmd(e *env) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "gavel FILE -o DIR",
		Short: "Import Gavel's simulation_throughputs.json (solo, pairs, scaling)",
		Long: `Reads Gavel's measured throughputs (stanford-futuredata/gavel,
scheduler/simulation_throughputs.json: iterations/s of 26 job types on k80,
p100 and v100, solo and co-located in pairs) into DIR/solo.arrow,
DIR/pairs.arrow and DIR/scaling.arrow.

A pair measured as [0, 0] is recorded 'infeasible' (missing, not a 100%
slowdown). A pair whose co-located throughput equals the solo throughput
exactly is recorded 'suspect' and is never used to train or score a model.
Spread device types (Gavel's jobs with GPUs on several servers) stay
device types of their own.`,
		Example: `  coloc datasets import gavel simulation_throughputs.json -o data/gavel`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := inputfile.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			im, err := datasets.ImportGavel(f, args[0])
			if err != nil {
				return err
			}
			return writeImported(e, out, im)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output dataset directory (created if needed)")
	cmd.MarkFlagRequired("out")
	return cmd
}

func newImportPolluxCmd(e *env) *cobra.Command {
	var out string
	opts := datasets.DefaultPolluxOptions
	cmd := &cobra.Command{
		Use:   "pollux DIR -o OUT",
		Short: "Import Pollux's data-parallel scaling measurements",
		Long: `Reads Pollux's scaling measurements (petuum/adaptdl, osdi21-artifact,
simulator/traces/<model>/placements.csv and scalability.csv) into
OUT/scaling.arrow. Each model directory becomes a workload; throughput is
replicas x local_bsz / step_time in samples/s. The measurements were taken
on nodes of four NVIDIA T4 GPUs, so rows are labelled device type "t4"
unless --device-type says otherwise.`,
		Example: `  coloc datasets import pollux shared/data/pollux -o data/pollux`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			im, err := datasets.ImportPollux(args[0], opts)
			if err != nil {
				return err
			}
			return writeImported(e, out, im)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output dataset directory (created if needed)")
	cmd.Flags().StringVar(&opts.DeviceType, "device-type", opts.DeviceType, "GPU type to label the rows with")
	cmd.MarkFlagRequired("out")
	return cmd
}

func newImportCSVCmd(e *env) *cobra.Command {
	var out, table string
	cmd := &cobra.Command{
		Use:   "csv --table solo|pairs|scaling|runs|samples FILE -o OUT",
		Short: "Import anyone's measurements from CSV",
		Long: `Reads a CSV file whose header names the columns of a table (see
'coloc datasets schema') into OUT/<table>.arrow. A header field may carry the
column's unit as "name [unit]"; without it the column's default unit applies
(throughput: samples/s). Empty fields are null.

Extra numeric columns of a solo table become features, and of a samples
table counters; they must state their unit, e.g. "sm_util_mean [%]" (use [1]
for a dimensionless value).

Conveniences: solo, pairs and scaling files may leave out source (it becomes
csv:<file name>); a pairs file may leave out normalized_throughput (computed
as colocated/solo) and status (ok where a co-located throughput is given,
infeasible where it is empty).

Nothing is written unless the whole file is valid; every problem names its
line and column.`,
		Example: `  coloc datasets import csv --table pairs my-pairs.csv -o data/mine
  # my-pairs.csv:
  # workload,partner,device_type,degree,solo_throughput [samples/s],colocated_throughput [samples/s]
  # resnet50,lstm,a100,1,812.5,640.1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := datasets.ParseKind(table)
			if err != nil {
				return err
			}
			f, err := inputfile.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			t, err := datasets.ImportCSV(f, args[0], k)
			if err != nil {
				return err
			}
			if err := datasets.ReplaceDir(out, t); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s/%s: %d rows\n", out, t.Kind.FileName(), t.Len())
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output dataset directory (created if needed)")
	cmd.Flags().StringVar(&table, "table", "", "table the CSV holds: solo, pairs, scaling, runs or samples")
	cmd.MarkFlagRequired("out")
	cmd.MarkFlagRequired("table")
	return cmd
}

// writeImported writes an importer's tables into dir and reports what it
// wrote and any warnings.
func writeImported(e *env, dir string, im *datasets.Imported) error {
	tables := im.Tables()
	if err := datasets.ReplaceDir(dir, tables...); err != nil {
		return err
	}
	e.say("warning:", im.Warnings...)
	for _, t := range tables {
		fmt.Fprintf(e.stdout, "wrote %s/%s: %d rows\n", dir, t.Kind.FileName(), t.Len())
	}
	return nil
}

package main

import (
	"fmt"
	"os"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/spf13/cobra"
)

func newImportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Convert public or third-party measurements into dataset tables",
	}
	cmd.AddCommand(newImportGavelCmd(e))
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
'_unconsolidated' device types stay device types of their own.`,
		Example: `  coloc datasets import gavel simulation_throughputs.json -o data/gavel`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
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

// writeImported writes an importer's tables into dir and reports what it
// wrote and any warnings.
func writeImported(e *env, dir string, im *datasets.Imported) error {
	tables := im.Tables()
	if err := datasets.WriteDir(dir, tables...); err != nil {
		return err
	}
	for _, w := range im.Warnings {
		fmt.Fprintln(e.stderr, "warning:", w)
	}
	for _, t := range tables {
		fmt.Fprintf(e.stdout, "wrote %s/%s: %d rows\n", dir, t.Kind.FileName(), t.Len())
	}
	return nil
}

package main

import (
	"fmt"

	"github.com/coloc-dev/coloc/datasets/export"
	"github.com/spf13/cobra"
)

func newExportCmd(e *env) *cobra.Command {
	var out, format string
	cmd := &cobra.Command{
		Use:   "export --format csv|parquet FILE -o OUT",
		Short: "Export a table to CSV or Parquet",
		Long: `Writes a table as CSV or Parquet for other tools.

CSV: the header gives units as "name [unit]", nulls are empty, times are
RFC 3339 (UTC); 'coloc datasets import csv' reads it back unchanged.
Parquet: zstd-compressed, with the Arrow schema (table, version, units)
stored in the file's metadata.`,
		Example: `  coloc datasets export --format csv datasets/reference/gavel/pairs.arrow -o pairs.csv
  coloc datasets export --format parquet out/campaign/samples.arrow -o samples.parquet`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := readTable(args[0])
			if err != nil {
				return err
			}
			if err := export.Write(out, format, t); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s: %s, %d rows\n", out, format, t.Len())
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file")
	cmd.Flags().StringVar(&format, "format", export.CSV, "csv or parquet")
	cmd.MarkFlagRequired("out")
	completeValues(cmd, "format", export.Formats)
	return cmd
}

package main

import (
	"encoding/json"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/spf13/cobra"
)

func newInspectCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Show a table's kind, version, rows and a summary of each column",
		Long: `Reads and validates a table file, then prints its table kind, schema
version and row count, and for each column its type, unit, number of nulls
and the minimum, median and maximum of its values (distinct count for
strings, first and last time for timestamps).`,
		Example: `  coloc datasets inspect datasets/reference/gavel/pairs.arrow
  coloc datasets inspect --json out/campaign/samples.arrow`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := readTable(args[0])
			if err != nil {
				return err
			}
			s := datasets.Summarize(t, args[0])
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			return s.WriteText(e.stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"text/tabwriter"

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
			fmt.Fprintf(e.stdout, "%s: table %s, version %d, %d rows\n", s.File, s.Table, s.Version, s.Rows)
			for _, k := range slices.Sorted(maps.Keys(s.Meta)) {
				fmt.Fprintf(e.stdout, "  %s = %s\n", k, s.Meta[k])
			}
			tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "column\ttype\tunit\tnulls\tmin\tmedian\tmax\tdistinct")
			for _, c := range s.Columns {
				min, med, max, dist := "", "", "", ""
				switch {
				case c.Min != nil:
					min, med, max = num(*c.Min), num(*c.Median), num(*c.Max)
				case c.MinTime != "":
					min, max = c.MinTime, c.MaxTime
				}
				if c.Type == "string" {
					dist = fmt.Sprint(c.Distinct)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", c.Name, c.Type, c.Unit, c.Nulls, min, med, max, dist)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

func num(v float64) string { return fmt.Sprintf("%.6g", v) }

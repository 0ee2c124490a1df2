package main

import (
	"fmt"
	"os"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/spf13/cobra"
)

func newValidateCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate FILE|DIR...",
		Short: "Check table files (or dataset directories) against their schema",
		Long: `Reads each file and checks it: table kind and schema version, required
columns, types, units, nulls, allowed values, value ranges (no NaN, no
infinite or negative throughput), unique keys, time order within a run, and
normalized = co-located / solo for pairs. A directory is read as a dataset:
every table in it is checked, and pairs are checked against the solo table
(a pair naming a workload without a solo row is an error), samples.arrow
included. Every table coloc writes carries checksums, verified as it is
read: a file changed since (a flipped bit, an edit, two files joined) is
refused; a file without them is validated and said to be.

Prints "ok" lines for valid inputs and one line per problem (file, row or
line, column) otherwise; the exit status is 1 when any input is invalid.`,
		Example: `  coloc datasets validate datasets/reference/gavel
  coloc datasets validate out/campaign/runs.arrow out/campaign/samples.arrow`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, path := range args {
				var err error
				var what string
				if st, serr := os.Stat(path); serr == nil && st.IsDir() {
					what, err = datasets.Check(path)
				} else {
					var t *datasets.Table
					if t, err = readTable(path); err == nil {
						what = t.Describe()
					}
				}
				if err != nil {
					bad++
					for _, p := range datasets.ProblemsOf(err) {
						if p.File == "" {
							fmt.Fprintf(e.stdout, "%s: %s\n", path, p)
						} else {
							fmt.Fprintln(e.stdout, p)
						}
					}
					continue
				}
				fmt.Fprintf(e.stdout, "%s: ok (%s)\n", path, what)
			}
			if bad > 0 {
				return &exitError{code: 1, msg: fmt.Sprintf("%d of %d inputs invalid", bad, len(args))}
			}
			return nil
		},
	}
	return cmd
}

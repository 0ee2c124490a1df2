package main

import (
	"fmt"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/spf13/cobra"
)

func newMergeCmd(e *env) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge -o OUT IN...",
		Short: "Merge table files of one kind into one",
		Long: `Merges files of the same table kind into OUT. Rows are identified by the
table's key (for pairs: workload, partner, device_type, degree; see 'coloc
datasets schema'): rows that are exact duplicates collapse into one, rows
with the same key and different values are an error that names the key and
both inputs. Columns are the union of the inputs' columns and must agree in
type and unit (samples/s and iterations/s are never mixed).`,
		Example: `  coloc datasets merge -o all/pairs.arrow a/pairs.arrow b/pairs.arrow`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			tables := make([]*datasets.Table, len(args))
			for i, p := range args {
				t, err := datasets.Read(p)
				if err != nil {
					return err
				}
				tables[i] = t
			}
			m, err := datasets.Merge(tables, args)
			if err != nil {
				return err
			}
			if err := datasets.Write(out, m); err != nil {
				return err
			}
			total := 0
			for _, t := range tables {
				total += t.Len()
			}
			fmt.Fprintf(e.stdout, "wrote %s: table %s, %d rows from %d input rows\n", out, m.Kind, m.Len(), total)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output table file")
	cmd.MarkFlagRequired("out")
	return cmd
}

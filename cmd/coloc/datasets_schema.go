package main

import (
	"fmt"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/spf13/cobra"
)

func newSchemaCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "schema [TABLE]",
		Short: "Print the columns, types and units of the dataset tables",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds := datasets.Kinds
			if len(args) == 1 {
				k, err := datasets.ParseKind(args[0])
				if err != nil {
					return err
				}
				kinds = []datasets.Kind{k}
			}
			for i, k := range kinds {
				if i > 0 {
					fmt.Fprintln(e.stdout)
				}
				fmt.Fprint(e.stdout, datasets.Describe(k))
			}
			return nil
		},
	}
}

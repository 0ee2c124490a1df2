package main

import (
	"github.com/spf13/cobra"
)

func newDatasetsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "datasets",
		Short: "Import, inspect, validate, merge and export dataset tables",
		Long: `A dataset is a directory of Arrow IPC tables (schema version 1):

  runs.arrow     one row per workload execution
  samples.arrow  counter time series of the runs
  solo.arrow     solo throughput per workload, device type and degree, plus features
  pairs.arrow    normalized throughput of each ordered pair on one GPU (or set of GPUs)
  scaling.arrow  throughput against the number of GPUs

Each file names its table and version in its schema metadata and gives every
column's unit in field metadata. Reading a file validates it; writes are atomic.
Run 'coloc datasets schema' for the columns of every table.`,
	}
	cmd.AddCommand(newImportCmd(e), newInspectCmd(e), newValidateCmd(e), newMergeCmd(e), newExportCmd(e), newSchemaCmd(e), newSynthCmd(e))
	return cmd
}

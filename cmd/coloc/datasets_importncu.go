package main

import (
	"fmt"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/spf13/cobra"
)

// newProfileImportNCUCmd is `coloc profile import-ncu`; the profile command
// adds it.
func newProfileImportNCUCmd(e *env) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "import-ncu FILE -o OUT",
		Short: "Turn Nsight Compute CSV (ncu --csv) into a per-kernel table",
		Long: `Reads what 'ncu --csv' prints and writes OUT, an Arrow file with one row
per profiled kernel launch: its launch ID, process, kernel name, block and
grid sizes, device and compute capability, then one column per metric.

Both of ncu's CSV pages are read:
  details (the default): one line per kernel and metric, with section names
  raw (--page raw):      one line per kernel, a line of units under the header

The profiled program's own output before the CSV header and ncu's ==PROF==
lines are skipped, so 'ncu --csv python train.py > FILE' can be imported as
it is. ncu scales units per value (usecond here, msecond there); every metric
is converted to one unit (seconds, bytes, cycle/s, ...), written in the
column's "unit" metadata. Text-valued metrics (cache configuration names)
are left out with a warning; a value that is neither a number nor n/a
stops the import with the file's line and column.

OUT names its format in its schema metadata: coloc.table=ncu_kernels,
coloc.version=1. It is written atomically.`,
		Example: `  ncu --csv --set full python train.py > resnet.csv
  coloc profile import-ncu resnet.csv -o resnet-kernels.arrow
  ncu --csv --page raw --metrics gpu__time_duration.sum,dram__bytes_read.sum ./app > raw.csv
  coloc profile import-ncu raw.csv -o app-kernels.arrow`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := inputfile.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			tab, warnings, err := sampler.ParseNCU(f, args[0])
			if err != nil {
				return err
			}
			if len(tab.Kernels) == 0 {
				return fmt.Errorf("%s: no kernel in the file (did ncu profile anything?)", args[0])
			}
			if err := sampler.WriteNCU(out, tab, args[0]); err != nil {
				return err
			}
			e.say("warning:", warnings...)
			fmt.Fprintf(e.stdout, "wrote %s: %d kernels, %d metrics (ncu %s page)\n", out, len(tab.Kernels), len(tab.Metrics), tab.Format)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output Arrow file")
	cmd.MarkFlagRequired("out")
	return cmd
}

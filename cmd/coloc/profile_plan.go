package main

import (
	"fmt"

	"github.com/coloc-dev/coloc/profile"
	"github.com/spf13/cobra"
)

func newProfilePlanCmd(e *env) *cobra.Command {
	var (
		pf     planFlags
		rf     runFlags
		cf     campaignFlags
		gpus   int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "plan --suite FILE",
		Short: "Print the runs of a campaign and its estimated duration",
		Long: `Prints the runs 'coloc profile run' would make with the same flags, each
with its estimated time (start-up plus --duration; a protocol-none workload
takes steps × est_step_s), and the total. --shard i/n prints one shard: runs
are dealt longest first to the shard with the least time so far.

It takes every flag of 'coloc profile run', so a command line can be tried
here first by changing run to plan. With --out it says what a run would do in
that directory: how many runs are finished, failed or unsettled, and how many
it would (re)do with --retry-failed, --retry-unsettled or --retry-shared.`,
		Example: `  coloc profile plan --suite benchmarks/suites/default.yaml --gpus 8
  coloc profile plan --suite benchmarks/suites/default.yaml --gpus 8 --shard 2/4 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("gpus") {
				m, err := profile.OpenMachine(e.openGPU(), pf.device)
				if err != nil {
					return err
				}
				if m.Kind == "cuda" {
					gpus = len(m.Hardware.Devices)
				}
				m.Close()
			}
			s, full, err := pf.plan(gpus)
			if err != nil {
				return err
			}
			p := full
			if pf.shard != "" {
				i, n, _ := profile.ParseShard(pf.shard)
				if p, err = full.Shard(i, n); err != nil {
					return err
				}
			}
			if err := rf.check(); err != nil {
				return err
			}
			if asJSON {
				return profile.WritePlanJSON(e.stdout, s, full, p, pf.shard)
			}
			if err := profile.WritePlanText(e.stdout, s, full, p, pf.shard, gpus); err != nil {
				return err
			}
			if cf.out == "" {
				return nil
			}
			pr, err := profile.ReadPlanProgress(cf.out, p, cf.force, cf.retry)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: %s\n", cf.out, pr)
			return nil
		},
	}
	pf.register(cmd)
	rf.register(cmd)
	cf.register(cmd)
	cmd.Annotations = map[string]string{readsOut: "it shows a campaign, which may be running"}
	cmd.Flags().IntVar(&gpus, "gpus", 0, "plan for this many GPUs (default: the GPUs found here)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan as JSON")
	return cmd
}

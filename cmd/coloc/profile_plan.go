package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/coloc-dev/coloc/datasets"
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
it would (re)do with --retry-failed or --retry-unsettled.`,
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
				return writePlanJSON(e.stdout, s, full, p, pf.shard)
			}
			if err := writePlanText(e.stdout, s, full, p, pf.shard, gpus); err != nil {
				return err
			}
			if cf.out == "" {
				return nil
			}
			recs, _, err := profile.ReadCampaignJournal(cf.out)
			if err != nil {
				return err
			}
			var failed, unsettled, finished int
			for _, r := range p.Runs {
				rec := recs[r.ID]
				if rec == nil {
					continue
				}
				finished++
				if rec.Status == datasets.StatusFailed {
					failed++
				}
				if rec.Unsettled() {
					unsettled++
				}
			}
			todo := p
			if !cf.force {
				todo = &profile.Plan{Runs: profile.Pending(p, recs, cf.retryFailed, cf.retryUnsettled)}
			}
			fmt.Fprintf(e.stdout, "%s: %d of these runs finished (%d failed, %d unsettled); a run would do %d, estimated %s\n",
				cf.out, finished, failed, unsettled, len(todo.Runs), todo.Total())
			return nil
		},
	}
	pf.register(cmd)
	rf.register(cmd)
	cf.register(cmd)
	cmd.Flags().IntVar(&gpus, "gpus", 0, "plan for this many GPUs (default: the GPUs found here)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan as JSON")
	return cmd
}

func writePlanJSON(w io.Writer, s *profile.Suite, full, p *profile.Plan, shard string) error {
	v := struct {
		Suite     string               `json:"suite"`
		SuiteHash string               `json:"suite_hash"`
		PlanHash  string               `json:"plan_hash"`
		Shard     string               `json:"shard,omitempty"`
		EstS      float64              `json:"estimated_s"`
		Notes     []string             `json:"notes,omitempty"`
		Runs      []profile.PlannedRun `json:"runs"`
	}{s.Name, s.Hash(), full.Hash(), shard, p.Total().Seconds(), p.Notes, p.Runs}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writePlanText(w io.Writer, s *profile.Suite, full, p *profile.Plan, shard string, gpus int) error {
	bw := bufio.NewWriter(w)
	modes := map[string]int{}
	for _, r := range p.Runs {
		modes[r.Mode]++
	}
	fmt.Fprintf(bw, "suite %s (%s): %d workloads, %d GPUs\n", s.Name, s.Hash()[:19], len(s.Workloads), gpus)
	if shard != "" {
		fmt.Fprintf(bw, "shard %s: %d of %d runs\n", shard, len(p.Runs), len(full.Runs))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(bw, "note: %s\n", n)
	}
	fmt.Fprintln(bw)
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tMODE\tDEGREE\tREPEAT\tESTIMATE")
	for _, r := range p.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", r.ID, r.Mode, r.Degree, r.Repeat, r.Est)
	}
	tw.Flush()
	fmt.Fprintf(bw, "\n%d runs (%d solo, %d pair, %d scale), estimated %s\n", len(p.Runs),
		modes[datasets.ModeSolo], modes[datasets.ModePair], modes[datasets.ModeScale], p.Total())
	return bw.Flush()
}

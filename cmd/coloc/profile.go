package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/coloc-dev/coloc/internal/textlist"
	"github.com/coloc-dev/coloc/profile"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func newProfileCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Measure a workload suite solo, in pairs and at parallel degrees",
		Long: `Profiling runs the training scripts of a suite file and measures their
throughput alone (solo), two at a time on one GPU (pairs), and data-parallel
over k GPUs (scale), recording hardware counters as they run.

  coloc profile plan   show the runs a campaign would make and how long it takes
  coloc profile run    run them into a dataset directory (resumable)
  coloc profile slurm  run them on a fleet as a Slurm job array, one shard a task
  coloc profile k8s    the same as a Kubernetes Indexed Job
  coloc profile merge  join a fleet's shards into one campaign
  coloc profile next   choose the pairs to profile next (a pair list for run --pairs-from)

A workload is any command. One that prints the JSON lines of the coloc
protocol (meta, step, end; see README) is measured over its steady window
after warm-up; one that does not (protocol: none in the suite) is measured
by wall time over a given number of steps.`,
	}
	cmd.AddCommand(newProfileRunCmd(e), newProfilePlanCmd(e))
	cmd.AddCommand(newProfileSlurmCmd(e), newProfileK8sCmd(e), newProfileMergeCmd(e))
	cmd.AddCommand(newProfileImportNCUCmd(e))
	cmd.AddCommand(newProfileNextCmd(e))
	return cmd
}

// planFlags are the flags that choose the runs, shared by run and plan.
type planFlags struct {
	suite    string
	pairs    string
	degrees  string
	duration time.Duration
	repeats  int
	device   string
	shard    string
	seed     uint64
}

func (f *planFlags) register(cmd *cobra.Command) {
	f.registerPlan(cmd)
	cmd.Flags().StringVar(&f.shard, "shard", "", "run only shard i of n of the plan, e.g. 2/4 (shards balance estimated time)")
}

// registerPlan registers the flags that choose the runs, all but --shard.
func (f *planFlags) registerPlan(cmd *cobra.Command) {
	d := profile.DefaultPlanOptions
	fl := cmd.Flags()
	fl.StringVar(&f.suite, "suite", "", "suite file (YAML, version 1), e.g. benchmarks/suites/tiny.yaml")
	fl.StringVar(&f.pairs, "pairs", d.Pairs, "pair runs: all, none, fraction:F (a seeded random subset) or a list a+b,c+d")
	fl.StringVar(&f.degrees, "degrees", textlist.JoinInts(d.Degrees), "parallel degrees to measure; those above the GPUs present are skipped")
	fl.DurationVar(&f.duration, "duration", d.Duration, "training time of each run, warm-up included")
	fl.IntVar(&f.repeats, "repeats", d.Repeats, "runs of each measurement (for the 95% confidence intervals)")
	fl.StringVar(&f.device, "device", "", "cuda or cpu (default cuda when a GPU is found, else cpu)")
	fl.Uint64Var(&f.seed, "seed", d.Seed, "seed of the random subset of --pairs fraction:F")
	cmd.MarkFlagRequired("suite")
	completeValues(cmd, "device", []string{"cuda", "cpu"})
}

// plan loads the suite and builds the whole plan for gpus devices (a CPU
// campaign when there are none).
func (f *planFlags) plan(gpus int) (*profile.Suite, *profile.Plan, error) {
	s, err := profile.LoadSuite(f.suite)
	if err != nil {
		return nil, nil, err
	}
	degrees, err := textlist.Ints(f.degrees)
	if err != nil {
		return nil, nil, fmt.Errorf("--degrees: %w", err)
	}
	o := profile.DefaultPlanOptions
	o.Pairs, o.Degrees, o.Duration, o.Repeats, o.GPUs, o.Seed = f.pairs, degrees, f.duration, f.repeats, gpus, f.seed
	if gpus == 0 {
		o.Overhead = profile.CPUOverhead
	}
	p, err := profile.NewPlan(s, o)
	if err != nil {
		return nil, nil, err
	}
	if f.shard != "" {
		if _, _, err := profile.ParseShard(f.shard); err != nil {
			return nil, nil, err
		}
	}
	return s, p, nil
}

// args are the flags that give `coloc profile run` this plan, less
// --suite, --device and --shard.
func (f *planFlags) args() []string {
	return []string{"--pairs", f.pairs, "--degrees", f.degrees, "--duration", f.duration.String(),
		"--repeats", strconv.Itoa(f.repeats), "--seed", strconv.FormatUint(f.seed, 10)}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

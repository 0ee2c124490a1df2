package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile"
	"github.com/spf13/cobra"
)

func newProfileRunCmd(e *env) *cobra.Command {
	var (
		pf   planFlags
		rf   runFlags
		cf   campaignFlags
		gpus int
		from string
	)
	cmd := &cobra.Command{
		Use:   "run --suite FILE --out DIR",
		Short: "Run a profiling campaign into a dataset directory",
		Long: `Runs every workload of the suite solo (--repeats times), every selected pair
of workloads together on one GPU, and every workload at each --degrees that
fits the GPUs present, and writes into DIR:

  manifest.json   hardware, driver/CUDA/torch/tool versions, suite hash, plan
  runs.jsonl      the journal: one line per finished run, synced to disk
  runs.arrow samples.arrow solo.arrow pairs.arrow scaling.arrow
  samples/ logs/  per-run counter samples and workload stderr

Throughput is measured over the steady window after warm-up (at least
--warmup, then until the step time's running median settles); a pair uses
only the window where both workloads are steady. A pair whose solo peak
memories cannot fit on the GPU is recorded infeasible and not run. A crash,
out-of-memory or timeout makes a failed run and the campaign goes on.

A run whose step time never settles is measured over the best window it has
and recorded ok but unsettled, with a wider confidence interval; the pairs
built from it are suspect. A run beside another tenant's processes (NVML)
is recorded "shared"; runs alone are preferred, pairs from shared ones are
suspect. Before the first run every workload's command (and
the Python's torch) is checked, so a missing program fails at once.

Ctrl-C stops the running workloads and keeps every finished run. Running the
same command again resumes: finished runs are skipped, the interrupted one is
redone; --retry-failed, --retry-unsettled and --retry-shared also redo
the failed, unsettled or shared runs. --pairs-from on a campaign directory extends its campaign:
the pairs of the list it lacks are added to its plan and run, every finished
run is kept (the list of a round names only its new pairs). A directory
holding another suite, plan or settings is refused (--force discards its campaign and starts over); a directory holding
files but no campaign is always refused. One campaign at a time holds a
directory (a lock naming its PID). A campaign killed outright (kill -9, the
OOM killer) leaves its running workloads, and its MPS daemon, behind; the
next run on the directory stops them first and says so (docs/profiling.md).
Compute processes of others on the campaign's GPUs are named as it starts,
and in the warnings of every run that shared a GPU with them.

Exit status: 0 when every run is ok (settled or not) or infeasible, 3 when
the campaign finished with failed runs (their tables are written; fix the
cause and rerun with --retry-failed), 1 on any other error.`,
		Example: `  # the tiny suite on a laptop CPU, solo and all pairs, a few seconds a run
  coloc profile run --suite benchmarks/suites/tiny.yaml --out out/tiny --device cpu \
      --duration 5s --warmup 1s --repeats 2 --degrees 1

  # a GPU node: all pairs and degrees 1-8, 3 repeats of 60 s (the defaults)
  coloc profile run --suite benchmarks/suites/default.yaml --out data/h200

  # one shard of a fleet campaign (coloc profile slurm and k8s write the
  # commands of every shard; coloc profile merge joins them)
  coloc profile run --suite S --out DIR/shards/1 --shard 1/2 --gpus 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := rf.check(); err != nil {
				return err
			}
			if from != "" {
				if cmd.Flags().Changed("pairs") {
					return errors.New("--pairs-from and --pairs: give one")
				}
				list, err := profile.ReadPairList(from)
				if err != nil {
					return err
				}
				if len(list) == 0 {
					return fmt.Errorf("--pairs-from %s: no pairs", from)
				}
				items := make([]string, len(list))
				for i, p := range list {
					items[i] = p[0] + "+" + p[1]
				}
				pf.pairs = strings.Join(items, ",")
			}
			m, err := profile.OpenMachine(e.openGPU(), pf.device)
			if err != nil {
				return err
			}
			defer m.Close()
			e.say("note:", m.Warnings()...)
			hw, kind := m.Hardware, m.Kind
			switch {
			case kind == "cuda":
				cvd, set := os.LookupEnv("CUDA_VISIBLE_DEVICES")
				devs, note, err := profile.SelectGPUs(hw.Devices, gpus, cvd, set)
				if err != nil {
					return err
				}
				if note != "" {
					fmt.Fprintln(e.stderr, "note:", note)
				}
				hw.Devices = devs
			case gpus > 0:
				return fmt.Errorf("--gpus %d: a CPU campaign uses no GPU", gpus)
			}
			ngpu := 0
			if kind == "cuda" {
				ngpu = len(hw.Devices)
			}
			s, plan, err := pf.plan(ngpu)
			if err != nil {
				return err
			}
			e.say("note:", plan.Notes...)
			mon, err := m.Monitor(rf.interval)
			if err != nil {
				return err
			}
			ro := profile.DefaultRunOptions
			ro.Python, ro.DeviceKind, ro.Devices, ro.Duration = rf.python, kind, hw.Devices, pf.duration
			ro.Window.MinWarmup, ro.Timeout, ro.Share = rf.warmup, rf.timeout, rf.share
			c := &profile.Campaign{
				Dir: cf.out, Suite: s, Plan: plan, Shard: pf.shard, Hardware: hw, Force: cf.force,
				Retry: cf.retry, Extend: from != "",
				Runner:   &profile.Runner{Suite: s, Options: ro, Monitor: mon},
				Progress: profile.NewProgress(e.stdout, isTerminal(e.stdout)),
			}
			if rf.share == datasets.ShareMPS {
				if kind != "cuda" {
					return errors.New("--share mps needs --device cuda")
				}
				if c.MPS, err = profile.NewMPS("", profile.DeviceIndices(hw.Devices)); err != nil {
					return err
				}
			}
			sum, err := c.Execute(cmd.Context())
			if sum == nil {
				return err
			}
			e.say("warning:", sum.Warnings...)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s: %d runs rows, %d solo rows, %d pairs rows\n",
				cf.out, len(sum.Tables.Runs.Rows), len(sum.Tables.Solo.Rows), len(sum.Tables.Pairs.Rows))
			e.say("note:", sum.Notes()...)
			if sum.Failed > 0 {
				return failedRuns(e.stderr, cf.out, sum)
			}
			return nil
		},
	}
	pf.register(cmd)
	rf.register(cmd)
	cf.register(cmd)
	cmd.Flags().IntVar(&gpus, "gpus", 0, "use this many GPUs, the first of those CUDA_VISIBLE_DEVICES lets through (default all; the plan's degrees fit them)")
	cmd.Flags().StringVar(&from, "pairs-from", "", "run the pairs of this pair list (written by 'coloc profile next') instead of --pairs; on a campaign directory, add them to its campaign")
	cmd.MarkFlagRequired("out")
	cmd.Annotations = map[string]string{stopsItself: "a campaign stops its workloads and keeps its runs"}
	return cmd
}

// exitFailedRuns is the exit status of a campaign that finished with
// failed runs.
const exitFailedRuns = 3

// failedRuns lists the failed runs of a campaign and returns the error
// that exits with exitFailedRuns.
func failedRuns(w io.Writer, dir string, sum *profile.Summary) error {
	sum.WriteFailed(w)
	return &exitError{code: exitFailedRuns, msg: fmt.Sprintf("%d runs failed (exit status %d); fix the cause and rerun the same command with --retry-failed (the tables of %s hold the other runs)",
		sum.Failed, exitFailedRuns, dir)}
}

// campaignFlags are the flags of `coloc profile run` about the campaign
// directory; `coloc profile plan` takes them too, to show what a run would
// do there.
type campaignFlags struct {
	out   string
	force bool
	retry profile.Retry
}

func (f *campaignFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "campaign directory (created; an existing one of the same campaign is resumed)")
	fl.BoolVar(&f.force, "force", false, "discard the campaign in --out (its runs, tables, samples and logs) and start over; files a campaign did not write are never removed")
	fl.BoolVar(&f.retry.Failed, "retry-failed", false, "also run again the runs --out holds as failed")
	fl.BoolVar(&f.retry.Unsettled, "retry-unsettled", false, "also run again the runs --out holds as ok but unsettled")
	fl.BoolVar(&f.retry.Shared, "retry-shared", false, "also run again the runs --out holds as ok but measured beside another tenant's processes on the GPU")
}

// runFlags are the flags of `coloc profile run` that decide how runs
// execute, shared with the fleet commands that write its command line.
type runFlags struct {
	warmup   time.Duration
	interval time.Duration
	python   string
	share    string
	timeout  time.Duration
}

func (f *runFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&f.warmup, "warmup", profile.DefaultWindowOptions.MinWarmup, "least training time discarded as warm-up at the start of each run")
	fl.DurationVar(&f.interval, "interval", 100*time.Millisecond, "counter sampling interval")
	fl.StringVar(&f.python, "python", profile.DefaultRunOptions.Python, "Python interpreter that replaces {python} in suite commands")
	fl.StringVar(&f.share, "share", datasets.ShareTimeSlice, "how a pair shares its GPU: timeslice, or mps (CUDA MPS; needs nvidia-cuda-mps-control)")
	fl.DurationVar(&f.timeout, "timeout", 0, "kill a run that takes longer than this (default --duration + 2m)")
}

func (f *runFlags) check() error {
	if f.interval <= 0 {
		return fmt.Errorf("--interval must be positive, got %s", f.interval)
	}
	if f.share != datasets.ShareTimeSlice && f.share != datasets.ShareMPS {
		return fmt.Errorf("--share %q: want timeslice or mps", f.share)
	}
	return nil
}

// args are these flags for `coloc profile run`, less --python.
func (f *runFlags) args() []string {
	a := []string{"--warmup", f.warmup.String(), "--interval", f.interval.String(), "--share", f.share}
	if f.timeout > 0 {
		a = append(a, "--timeout", f.timeout.String())
	}
	return a
}

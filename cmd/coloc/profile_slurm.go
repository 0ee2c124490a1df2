package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/profile/fleet"
	"github.com/spf13/cobra"
)

func newProfileSlurmCmd(e *env) *cobra.Command {
	var (
		ff     fleetFlags
		so     fleet.SlurmOptions
		coloc  string
		submit bool
	)
	cmd := &cobra.Command{
		Use:   "slurm --suite FILE --out DIR --shards N",
		Short: "Write (and submit) a campaign as a Slurm job array, one shard a task",
		Long: `Splits the campaign 'coloc profile run' would make into --shards shards of
about equal estimated time (a run, both workloads of a pair included, is
never split: a pair runs in one task, on one GPU) and writes into DIR:

  fleet.json        the fleet manifest: suite hash, plan hash, each shard's
                    runs, the settings; what 'coloc profile merge' checks
  campaign.sbatch   a job array of N tasks; task i runs
                    coloc profile run --shard i/N ... --out DIR/shards/i
                    on whatever node Slurm gives it, logging to
                    DIR/shards/i/slurm-<job>_<i>.out
  shards/1..N       the shards' campaign directories

DIR, the suite, its workloads, coloc (this binary, unless --coloc) and the
--python interpreter must be at the same paths on the nodes (a shared file
system). Each task asks for --gpus-per-node GPUs (--gres=gpu:G) and uses
those Slurm gives it (CUDA_VISIBLE_DEVICES); the plan's degrees fit G. With
--device cpu no GPU is asked for.

Without --submit it prints the sbatch command; with --submit it runs
sbatch --parsable and prints the job id. A cancelled, failed or timed-out
task resumes its shard when submitted again (sbatch --array=i): finished runs
are kept. 'coloc profile merge DIR' joins the shards into one campaign.

Heterogeneous fleets: a fleet is one plan, and each shard records the
device type of its node, so a fleet whose tasks land on several GPU types
holds several device types (its tables keep them apart, and a pair is
normalized by solo runs of its own type only). To measure every run on
each GPU type, write one fleet per type, each restricted to its nodes with
--constraint (a Slurm node feature), into sub-directories of one directory,
and merge that directory: see the examples.`,
		Example: `  # a CPU campaign of the tiny suite in two tasks, submitted
  coloc profile slurm --suite benchmarks/suites/tiny.yaml --out /shared/tiny --shards 2 \
      --device cpu --python /usr/bin/python3 --duration 5s --warmup 1s --repeats 2 --submit

  # the default suite on 8 H200 nodes of partition gpu, 1 GPU a task
  coloc profile slurm --suite benchmarks/suites/default.yaml --out /shared/camp/h200 --shards 8 \
      --partition gpu --constraint h200 --gpus-per-node 1 --time 12:00:00 --submit

  # the same plan on the A100 nodes too, then one campaign of both types
  coloc profile slurm --suite benchmarks/suites/default.yaml --out /shared/camp/a100 --shards 8 \
      --partition gpu --constraint a100 --gpus-per-node 1 --time 12:00:00 --submit
  coloc profile merge /shared/camp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, dir, err := ff.fleet(cmd, "gpus-per-node")
			if err != nil {
				return err
			}
			so.Coloc, so.Suite, so.Python = coloc, f.Suite.Path, ff.rf.python
			if err := so.ResolvePrograms(); err != nil {
				return err
			}
			if so.JobName == "" {
				so.JobName = "coloc-" + f.Name
			}
			f.Slurm = &so
			script, err := fleet.SlurmScript(dir, f)
			if err != nil {
				return err
			}
			if err := fleet.Prepare(dir, f); err != nil {
				return err
			}
			path := filepath.Join(dir, fleet.SlurmScriptName)
			if err := writeAtomic(path, []byte(script), 0o755); err != nil {
				return err
			}
			fmt.Fprint(e.stdout, f.Describe())
			fmt.Fprintf(e.stdout, "wrote %s and %s\n", filepath.Join(dir, fleet.FileName), path)
			if !submit {
				fmt.Fprintf(e.stdout, "submit with:\n  sbatch %s\nthen merge with:\n  coloc profile merge %s\n", path, dir)
				return nil
			}
			id, err := fleet.Sbatch(dir, path)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "submitted job array %s (%d tasks)\n", id, len(f.Plan.Shards))
			fmt.Fprintf(e.stdout, "watch with squeue -j %s; merge with coloc profile merge %s\n", id, dir)
			return nil
		},
	}
	ff.register(cmd, "gpus-per-node", "GPUs each task asks for and uses (--gres=gpu:G); 0 with --device cpu")
	fl := cmd.Flags()
	fl.StringVar(&so.Partition, "partition", "", "Slurm partition (default: the cluster's default)")
	fl.StringVar(&so.Constraint, "constraint", "", "Slurm node feature the tasks need, e.g. the GPU type h200 (one fleet per GPU type)")
	fl.StringVar(&so.Time, "time", "", "time limit of each task in Slurm's format, e.g. 12:00:00 (default: the partition's)")
	fl.IntVar(&so.CPUsPerTask, "cpus-per-task", 0, "CPUs each task asks for (default: Slurm's)")
	fl.StringVar(&so.JobName, "job-name", "", "Slurm job name (default coloc-<name of DIR>)")
	fl.StringVar(&coloc, "coloc", "", "path of coloc on the nodes (default: this binary)")
	fl.BoolVar(&submit, "submit", false, "submit the array with sbatch and print its job id")
	return cmd
}

// writeAtomic writes data to path atomically with the given mode
// (internal/atomicfile).
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	return atomicfile.WriteMode(path, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

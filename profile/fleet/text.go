package fleet

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/coloc-dev/coloc/internal/textlist"
)

// Device settles the device kind and the GPUs per shard of a fleet
// from what was asked: device "cuda", "cpu" or "" (cuda, or cpu with no
// GPU), gpus per shard, and whether gpus was given at all (a CPU fleet
// takes none). gpusFlag names the GPU setting in messages.
func Device(device string, gpus int, gpusSet bool, gpusFlag string) (string, int, error) {
	switch {
	case gpus < 0:
		return "", 0, fmt.Errorf("--%s %d: want 0 or more", gpusFlag, gpus)
	case device == "cpu" && gpusSet && gpus > 0:
		return "", 0, fmt.Errorf("--%s %d with --device cpu: a CPU campaign uses no GPU", gpusFlag, gpus)
	case device == "cpu":
		gpus = 0
	case device == "cuda" && gpus == 0:
		return "", 0, fmt.Errorf("--device cuda with --%s 0: a CUDA campaign needs a GPU", gpusFlag)
	case device == "" && gpus == 0:
		device = "cpu"
	case device == "":
		device = "cuda"
	case device != "cuda":
		return "", 0, fmt.Errorf("--device %q: want cuda or cpu", device)
	}
	return device, gpus, nil
}

// Describe says what the fleet is: its suite, runs, device and GPUs a
// shard, its shards' longest and total estimated time, and the plan's
// notes, one a line.
func (f *Fleet) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fleet %s: suite %s, %d runs on %s", f.Name, f.Suite.Name, len(f.Plan.Runs), f.Settings.Device)
	if f.Settings.GPUs > 0 {
		fmt.Fprintf(&b, " (%d GPU%s a shard)", f.Settings.GPUs, map[bool]string{true: "s"}[f.Settings.GPUs > 1])
	}
	fmt.Fprintf(&b, ", %d shards of %s at most (estimated; %s in all)\n", len(f.Plan.Shards),
		fmtSeconds(f.longestShard()), fmtSeconds(f.Plan.EstS))
	for _, n := range f.Plan.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// WriteText reports the merge of the fleet in dir for a reader: the
// shards and their state, the counts, the failed and missing runs, and
// how to run the missing ones again with the fleet's cluster manager.
// The warnings are not written (they are r.Warnings).
func (r *MergeResult) WriteText(w io.Writer, dir string) {
	f := r.Fleet
	fmt.Fprintf(w, "fleet %s: suite %s, %d runs in %d shards\n", f.Name, f.Suite.Name, r.Planned, len(f.Plan.Shards))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SHARD\tSTATE\tDEVICE\tHOST\tRUNS")
	for _, s := range r.Shards {
		state, dev, host := "done", s.DeviceType, s.Host
		switch {
		case !s.Started:
			state, dev, host = "not started", "-", "-"
		case s.Finished < s.Planned:
			state = "unfinished"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d/%d\n", s.Index, state, dev, host, s.Finished, s.Planned)
	}
	tw.Flush()
	types := strings.Join(r.DeviceTypes, ", ")
	if types == "" {
		types = "no device yet"
	}
	t := r.Tables
	fmt.Fprintf(w, "merged into %s: %d of %d runs finished (%d ok, %d failed, %d infeasible) on %s; tables: runs %d rows, solo %d, pairs %d",
		dir, r.OK+r.Failed+r.Infeasible, r.Planned, r.OK, r.Failed, r.Infeasible,
		types, len(t.Runs.Rows), len(t.Solo.Rows), len(t.Pairs.Rows))
	if t.Scaling != nil {
		fmt.Fprintf(w, ", scaling %d", len(t.Scaling.Rows))
	}
	fmt.Fprintln(w)
	for _, rec := range r.FailedRuns {
		line, _, _ := strings.Cut(rec.Error, "\n")
		fmt.Fprintf(w, "failed: %s (shard %d): %s\n", rec.RunID, r.Owner[rec.RunID], line)
	}
	if r.Complete() {
		fmt.Fprintln(w, "complete: every run of the plan is finished")
		return
	}
	fmt.Fprintf(w, "missing: %d runs\n", len(r.Missing))
	for _, pr := range r.Missing {
		fmt.Fprintf(w, "  %s (shard %d)\n", pr.ID, r.Owner[pr.ID])
	}
	list := textlist.JoinInts(r.incompleteShards())
	switch {
	case f.Slurm != nil:
		fmt.Fprintf(w, "when no task of these shards is still queued or running, resubmit them (they resume):\n  sbatch --array=%s %s\n",
			list, filepath.Join(dir, SlurmScriptName))
	case f.K8s != nil:
		fmt.Fprintf(w, "shards %s are unfinished: when the Job has given up on them, run their pods again (they resume), e.g. kubectl replace --force -f %s\n",
			list, filepath.Join(dir, K8sManifestName))
	default:
		fmt.Fprintf(w, "shards %s are unfinished\n", list)
	}
}

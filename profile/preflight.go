package profile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// preflightTimeout bounds each check of preflight (importing torch takes a
// few seconds on a cold cache).
const preflightTimeout = 2 * time.Minute

// preflight checks, once per distinct command, that the runs can start:
// every workload's program exists and is executable, a script given to the
// Python interpreter exists, and an interpreter that runs a .py script can
// import torch (every protocol workload of the bundled suites needs it).
// It fails on the first problem with the fix named, before any run, so a
// campaign never records a run failed for a reason known in advance.
func (r *Runner) preflight(runs []PlannedRun) error {
	if err := r.checkComputeModes(runs); err != nil {
		return err
	}
	seen := map[string]bool{}
	torch := map[string]bool{}
	for _, pr := range runs {
		for _, name := range pr.Workloads {
			if seen[name] {
				continue
			}
			seen[name] = true
			w, ok := r.Suite.workloadNamed(name)
			if !ok {
				return fmt.Errorf("run %s: no workload %q in suite %s", pr.ID, name, r.Suite.Name)
			}
			argv, err := r.argv(w, 1, 0)
			if err != nil {
				return fmt.Errorf("workload %s: %w", name, err)
			}
			if _, err := exec.LookPath(argv[0]); err != nil {
				what := "command"
				if len(w.Command) > 0 && w.Command[0] == placeholderPython {
					what = "Python interpreter (--python)"
				}
				return fmt.Errorf("workload %s: the %s %q cannot be run: %v; install it, put it on PATH or fix the command in %s",
					name, what, argv[0], errors.Unwrap(err), r.Suite.Path)
			}
			if len(w.Command) < 2 || w.Command[0] != placeholderPython || strings.HasPrefix(argv[1], "-") {
				continue
			}
			if _, err := os.Stat(argv[1]); err != nil {
				return fmt.Errorf("workload %s: its script %s: %v; fix the command in %s", name, argv[1], errors.Unwrap(err), r.Suite.Path)
			}
			if strings.HasSuffix(argv[1], ".py") {
				torch[argv[0]] = true
			}
		}
	}
	for python := range torch {
		if err := importsTorch(python); err != nil {
			return err
		}
	}
	return nil
}

// importsTorch checks that python can import torch.
func importsTorch(python string) error {
	ctx, cancel := context.WithTimeout(context.Background(), preflightTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-c", "import torch").CombinedOutput()
	if err == nil {
		return nil
	}
	last := lastLine(string(out))
	if last == "" {
		last = err.Error()
	}
	return fmt.Errorf("%s cannot import torch (%s): install PyTorch for this interpreter (pip install torch, or apt-get install python3-torch for /usr/bin/python3) or pass --python with one that has it",
		python, last)
}

// lastLine is the last line of s that says something: not blank, not a
// line of a progress bar redrawn with \r.
func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:197] + "..."
			}
			return l
		}
	}
	return ""
}

// checkComputeModes refuses runs the GPUs' compute modes forbid, which
// would otherwise fail one by one: any run on a GPU in mode prohibited,
// and a pair run sharing a GPU in an exclusive mode by time slicing (the
// second job cannot create a CUDA context there; under MPS both are
// clients of the one server process, which is what exclusive_process is
// for). A device whose mode NVML did not give passes.
func (r *Runner) checkComputeModes(runs []PlannedRun) error {
	o := r.Options
	if o.DeviceKind != "cuda" {
		return nil
	}
	for _, pr := range runs {
		if pr.Degree > len(o.Devices) {
			continue // Run refuses it with its reason
		}
		for _, d := range o.Devices[:pr.Degree] {
			fix := fmt.Sprintf("nvidia-smi -i %d -c DEFAULT, or give the campaign other GPUs with CUDA_VISIBLE_DEVICES", d.Index)
			switch {
			case d.ComputeMode == "prohibited":
				return fmt.Errorf("run %s: GPU %d is in compute mode prohibited, where no process may use it; %s", pr.ID, d.Index, fix)
			case pr.Mode == datasets.ModePair && shareMode(pr, o.Share) == datasets.ShareTimeSlice &&
				(d.ComputeMode == "exclusive_process" || d.ComputeMode == "exclusive_thread"):
				return fmt.Errorf("run %s: GPU %d is in compute mode %s, where the second job of a pair cannot start, so every pair run would fail; %s, or share it through MPS (--share mps)",
					pr.ID, d.Index, d.ComputeMode, fix)
			}
		}
	}
	return nil
}

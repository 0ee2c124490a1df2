package profile

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/optional"
)

// The end-to-end test runs the real tiny suite (PyTorch on CPU), solo and
// all pairs, in a child process that it kills with SIGKILL part way, then
// resumes the campaign in-process. It needs torch in the Python named by
// COLOC_PYTHON (default /usr/bin/python3, where Debian's python3-torch
// installs it). Without torch it skips, unless COLOC_REQUIRE_TORCH=1 (CI),
// where it fails.
//
// It asserts only what the harness guarantees whatever the machine's load:
// every planned run is recorded exactly once, ok (settled or not),
// infeasible, or failed with a reason; both ordered rows exist for every
// pair whose run completed; the resume after the kill adds no duplicate and
// loses no record; the tables validate. It never asserts the value of a
// measurement: on a busy machine throughputs move by tens of per cent and
// normalized throughputs above 1 are data. On failure it logs every run's
// status and reason and keeps the campaign directory, logs included.

const tinySuite = "../benchmarks/suites/tiny.yaml"

// e2eHelperEnv, when set, makes TestEndToEndHelper run the campaign in the
// directory it names: the child process the end-to-end test kills.
const e2eHelperEnv = "COLOC_E2E_CAMPAIGN_DIR"

func torchPython(t *testing.T) string {
	t.Helper()
	python := os.Getenv("COLOC_PYTHON")
	if python == "" {
		python = "/usr/bin/python3"
	}
	out, err := exec.Command(python, "-c", "import torch").CombinedOutput()
	if err != nil {
		optional.Missing(t, "torch", "COLOC_REQUIRE_TORCH", python+" cannot import torch ("+err.Error()+"): "+string(out)+" (install python3-torch)")
	}
	return python
}

// tinyCampaign is the end-to-end campaign in dir: one repeat of each run
// (values are not asserted, so more repeats would only cost time), 3 s a
// run, a generous timeout (a run that hits it is a failed run, which the
// test accepts).
func tinyCampaign(t *testing.T, dir, python string) *Campaign {
	t.Helper()
	s, err := LoadSuite(tinySuite)
	if err != nil {
		t.Fatal(err)
	}
	po := DefaultPlanOptions
	po.Pairs, po.Repeats, po.Degrees, po.GPUs, po.Duration, po.Overhead = "all", 1, []int{1}, 0, 3*time.Second, CPUOverhead
	plan, err := NewPlan(s, po)
	if err != nil {
		t.Fatal(err)
	}
	ro := DefaultRunOptions
	ro.Python, ro.DeviceKind, ro.Devices, ro.Duration = python, "cpu", []Device{{Index: 0, Type: "cpu"}}, po.Duration
	ro.Window.MinWarmup, ro.Timeout, ro.KillGrace = 500*time.Millisecond, 3*time.Minute, 5*time.Second
	return &Campaign{Dir: dir, Suite: s, Plan: plan, Runner: &Runner{Suite: s, Options: ro, Monitor: nopMonitor{}},
		Hardware: Hardware{Devices: ro.Devices}}
}

// TestEndToEndHelper is the child process of TestEndToEndTinySuite; it does
// nothing in a normal test run.
func TestEndToEndHelper(t *testing.T) {
	dir := os.Getenv(e2eHelperEnv)
	if dir == "" {
		t.Skip("the child process of TestEndToEndTinySuite")
	}
	if _, err := tinyCampaign(t, dir, os.Getenv("COLOC_PYTHON")).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestEndToEndTinySuite(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	if _, err := os.Stat(tinySuite); errors.Is(err, os.ErrNotExist) {
		t.Skipf("skipping the end-to-end test: %s is not in this tree (it comes with the workload scripts)", tinySuite)
	}
	python := torchPython(t)
	dir, err := os.MkdirTemp("", "coloc-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("campaign directory kept for its logs: %s", dir)
			logRuns(t, dir)
			return
		}
		os.RemoveAll(dir)
	})
	c := tinyCampaign(t, dir, python)
	plan := c.Plan
	start := time.Now()

	// The child runs the campaign; it is killed with SIGKILL once two runs
	// are in its journal and a third has started (the live file names its
	// processes), so that its workloads are left running.
	child := exec.Command(os.Args[0], "-test.run=^TestEndToEndHelper$", "-test.timeout=20m")
	child.Env = append(os.Environ(), e2eHelperEnv+"="+dir, "COLOC_PYTHON="+python)
	var childOut strings.Builder
	child.Stdout, child.Stderr = &childOut, &childOut
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	killed := false
	for !killed {
		select {
		case err := <-done:
			t.Fatalf("the campaign process ended before it was killed (%v):\n%s", err, childOut.String())
		case <-time.After(100 * time.Millisecond):
		}
		recs, _, err := ReadCampaignJournal(dir)
		live, _, lerr := readLive(filepath.Join(dir, liveFile))
		if err == nil && len(recs) >= 2 && lerr == nil && len(live.Procs) > 0 {
			_ = child.Process.Signal(syscall.SIGKILL)
			<-done
			killed = true
		}
	}
	before, warns, err := ReadCampaignJournal(dir)
	if err != nil {
		t.Fatalf("journal after SIGKILL: %v", err)
	}
	for _, w := range warns {
		t.Log("after SIGKILL:", w)
	}

	// The workloads of the run in progress outlive the killed campaign
	// (each in its own process group); the live file names them.
	leftover, _, err := readLive(filepath.Join(dir, liveFile))
	if err != nil {
		t.Fatalf("live file after SIGKILL: %v", err)
	}

	// Resume in this process.
	sum, err := c.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The resume stopped them first (or they had ended).
	for _, p := range leftover.Procs {
		if p.alive() {
			t.Errorf("workload %s (pid %d) of run %s, left by the killed campaign, still runs after the resume", p.Label, p.PID, leftover.Run)
		}
	}
	t.Logf("the killed campaign left %d workload processes of run %q; warnings: %q", len(leftover.Procs), leftover.Run, sum.Warnings)
	t.Logf("%d runs (%d done before the kill), estimated %s, took %s with the killed attempt; %d ok (%d unsettled), %d failed, %d infeasible",
		len(plan.Runs), len(before), plan.Total(), time.Since(start).Round(time.Second), sum.OK, sum.Unsettled, sum.Failed, sum.Infeasible)
	if sum.Skipped != len(before) || sum.Skipped+sum.Ran != len(plan.Runs) {
		t.Errorf("resume skipped %d and ran %d of %d runs; want the %d finished before the kill skipped and the rest run",
			sum.Skipped, sum.Ran, len(plan.Runs), len(before))
	}

	// Every planned run exactly once in the journal, none lost by the kill.
	ids := readJournal(t, dir)
	count := map[string]int{}
	for _, id := range ids {
		count[id]++
	}
	recs, _, err := ReadCampaignJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range plan.Runs {
		if count[pr.ID] != 1 {
			t.Errorf("run %s is %d times in the journal, want once", pr.ID, count[pr.ID])
		}
		r := recs[pr.ID]
		if r == nil {
			continue
		}
		switch r.Status {
		case datasets.StatusOK, datasets.StatusInfeasible:
		case datasets.StatusFailed:
			if strings.TrimSpace(r.Error) == "" {
				t.Errorf("run %s failed without a reason", pr.ID)
			}
			t.Logf("run %s failed: %s", pr.ID, FailureLine(r))
		default:
			t.Errorf("run %s has status %q", pr.ID, r.Status)
		}
	}
	if len(ids) != len(plan.Runs) {
		t.Errorf("journal holds %d records, the plan %d runs", len(ids), len(plan.Runs))
	}
	for id, b := range before {
		if a := recs[id]; a == nil || !a.Start.Equal(b.Start) || a.Status != b.Status {
			t.Errorf("run %s, finished before the kill, was lost or redone by the resume", id)
		}
	}

	// The tables validate (Open validates every table) and hold a row for
	// every side of every run, and both ordered rows of every pair whose
	// run completed.
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sides := 0
	for _, r := range recs {
		sides += len(r.Sides)
	}
	if len(ds.Runs.Rows) != sides {
		t.Errorf("%d runs rows, want %d (one per side of every run)", len(ds.Runs.Rows), sides)
	}
	rows := map[[2]string]datasets.Pair{}
	for _, p := range ds.Pairs.Rows {
		rows[[2]string{p.Workload, p.Partner}] = p
	}
	soloOK := map[string]bool{}
	for _, pr := range plan.Runs {
		if r := recs[pr.ID]; r != nil && pr.Mode == datasets.ModeSolo && r.Status == datasets.StatusOK {
			soloOK[pr.Workloads[0]] = true
		}
	}
	for _, pr := range plan.Runs {
		r := recs[pr.ID]
		if pr.Mode != datasets.ModePair || r == nil || r.Status != datasets.StatusOK {
			continue
		}
		a, b := pr.Workloads[0], pr.Workloads[1]
		for _, k := range [][2]string{{a, b}, {b, a}} {
			p, ok := rows[k]
			switch {
			case !soloOK[k[0]]:
				// No solo value to normalize by: the row is left out, with a warning.
			case !ok:
				t.Errorf("pair run %s completed but pairs lacks the ordered row %s|%s", pr.ID, k[0], k[1])
			case p.Status != datasets.StatusOK && p.Status != datasets.StatusSuspect:
				t.Errorf("pair %s|%s: status %s from a completed run", k[0], k[1], p.Status)
			}
		}
	}
	// The meta lines of the ok solo runs become the workloads file.
	if len(soloOK) > 0 {
		wl, err := datasets.ReadWorkloads(datasets.WorkloadsPath(dir))
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, m := range wl {
			have[m.Workload] = true
		}
		for w := range soloOK {
			if !have[w] {
				t.Errorf("workloads.json does not describe %s, whose solo run was ok", w)
			}
		}
	}
	if t.Failed() {
		return
	}
	for _, w := range sum.Warnings {
		t.Log("warning:", w)
	}
}

// logRuns logs the status and reason of every run in the campaign in dir.
func logRuns(t *testing.T, dir string) {
	recs, warns, err := ReadCampaignJournal(dir)
	if err != nil {
		t.Logf("journal: %v", err)
		return
	}
	for _, w := range warns {
		t.Log("journal:", w)
	}
	ids := make([]string, 0, len(recs))
	for id := range recs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := recs[id]
		line := r.Status
		if r.unsettled() {
			line += " (unsettled)"
		}
		if r.Status != datasets.StatusOK {
			line += ": " + FailureLine(r)
		}
		t.Logf("run %s: %s", id, line)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, logsDir, "*.stderr"))
	t.Logf("%d stderr logs in %s", len(logs), filepath.Join(dir, logsDir))
}

package profile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/version"
)

// Sharer sets up GPU sharing for a campaign (MPS); Start returns the
// environment the workloads need.
type Sharer interface {
	Start() (env []string, err error)
	Stop() error
}

// Campaign runs a plan into a directory: DIR/manifest.json, the journal
// DIR/runs.jsonl, per-run sample files DIR/samples/<run>.arrow, stderr logs
// DIR/logs/, and the tables runs, samples, solo, pairs (and scaling) .arrow.
// Executing it again resumes: finished runs are skipped.
type Campaign struct {
	Dir string
	// Name is the campaign's name in the tables; default the base name of
	// Dir.
	Name  string
	Suite *Suite
	// Plan is the whole plan; Shard ("i/n", "" for all) selects the runs
	// this directory executes. Tables cover every finished run in the
	// journal, so the journals of all shards merged into one directory give
	// the tables of the whole plan.
	Plan     *Plan
	Shard    string
	Runner   *Runner
	Hardware Hardware
	// MPS is started before the first run and stopped after the last when
	// the runner's Share is mps.
	MPS Sharer
	// Force discards the campaign files of the directory (whatever
	// campaign they belong to) and starts over. It never removes a file a
	// campaign did not write: a directory that holds other files and no
	// campaign is refused, with or without Force.
	Force bool
	// Retry says which finished runs to run again; the new record
	// replaces the old one.
	Retry Retry
	// Extend lets Plan add pair runs to the campaign the directory holds
	// (extend.go): its runs are kept and the new pairs appended, instead
	// of the plan being refused as another campaign's.
	Extend   bool
	Progress Progress
}

// Summary is what an Execute did.
type Summary struct {
	// Skipped counts the runs finished before and not redone; Retried the
	// finished runs run again (Retry).
	Planned, Skipped, Retried, Ran int
	OK, Failed, Infeasible         int
	// Unsettled counts the ok runs with a side whose step time never
	// settled; Shared those that shared their GPUs with another tenant.
	Unsettled, Shared int
	Tables            *Tables
	Warnings          []string
	// Records are the finished runs of the plan (or shard), by run ID.
	Records map[string]*RunRecord
}

// Notes are what a user of the campaign is advised to do about its ok
// runs: unsettled ones and ones that shared their GPUs.
func (s *Summary) Notes() []string {
	var out []string
	if s.Unsettled > 0 {
		out = append(out, fmt.Sprintf("%d runs never settled (ok, with a wider interval; their pairs are suspect): raise --duration, or rerun them with --retry-unsettled", s.Unsettled))
	}
	if s.Shared > 0 {
		out = append(out, fmt.Sprintf("%d runs shared their GPU with another tenant's processes (ok, but measured with that load; pairs with no run alone beside them are suspect): free the GPU, then rerun them with --retry-shared", s.Shared))
	}
	return out
}

// errInterrupted is wrapped by Execute's error when its context was
// cancelled; every finished run is kept.
var errInterrupted = errors.New("interrupted")

// Execute runs every run of the plan (or shard) that the journal does not
// hold yet, then writes the tables. A workload that fails makes a failed
// run and the campaign goes on; cancelling ctx kills the running workloads,
// keeps every finished run, writes the tables and returns an error wrapping
// errInterrupted.
func (c *Campaign) Execute(ctx context.Context) (*Summary, error) {
	todo := c.Plan
	if c.Shard != "" {
		i, n, err := ParseShard(c.Shard)
		if err != nil {
			return nil, err
		}
		if todo, err = c.Plan.Shard(i, n); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return nil, err
	}
	if c.Name == "" {
		c.Name = filepath.Base(abs)
	}
	if err := checkForeign(c.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(c.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Before anything else: the workloads a killed predecessor left
	// running would share the device with every run to come.
	c.Runner.LiveFile = filepath.Join(c.Dir, liveFile)
	prog := c.Progress
	if prog == nil {
		prog = nopProgress{}
	}
	leftWarns, err := stopLeftovers(c.Runner.LiveFile, c.Runner.Options.KillGrace)
	if err != nil {
		return nil, err
	}
	// Then any other process of this directory's campaigns, named or not.
	leftWarns = append(leftWarns, stopMarked(abs, c.Runner.Options.KillGrace)...)
	if mark := campaignEnv + "=" + abs; !slices.Contains(c.Runner.Env, mark) {
		c.Runner.Env = append(c.Runner.Env, mark)
	}
	if w, err := stopLeftoverMPS(filepath.Join(c.Dir, mpsFile)); err != nil {
		return nil, err
	} else if w != "" {
		leftWarns = append(leftWarns, w)
	}
	// Then what others run on the campaign's GPUs, which no resume stops.
	if tl, ok := c.Runner.Monitor.(tenantLister); ok && c.Runner.Options.DeviceKind == "cuda" {
		idx := make([]int, len(c.Runner.Options.Devices))
		for i, d := range c.Runner.Options.Devices {
			idx[i] = d.Index
		}
		leftWarns = append(leftWarns, tl.Tenants(idx)...)
	}
	for _, w := range leftWarns {
		prog.Warn(w)
	}
	man, hwWarns, err := c.prepare()
	if err != nil {
		return nil, err
	}
	for _, w := range hwWarns {
		prog.Warn(w)
	}
	leftWarns = append(leftWarns, hwWarns...)
	if c.Shard == "" {
		todo = c.Plan // extended by prepare
	}
	j, recs, warns, err := openJournal(filepath.Join(c.Dir, journalName))
	if err != nil {
		return nil, err
	}
	defer j.Close()
	sum := &Summary{Planned: len(todo.Runs), Warnings: append(leftWarns, warns...)}
	pending := pending(todo, recs, c.Retry)
	for _, pr := range todo.Runs {
		if recs[pr.ID] != nil {
			sum.Skipped++
		}
	}
	for _, pr := range pending {
		if recs[pr.ID] != nil {
			sum.Skipped--
			sum.Retried++
		}
	}
	if err := c.Runner.preflight(pending); err != nil {
		return nil, err
	}
	if len(pending) > 0 && c.Runner.Options.Share == datasets.ShareMPS {
		if c.MPS == nil {
			return nil, errors.New("--share mps: no MPS control for this device")
		}
		if m, ok := c.MPS.(*MPS); ok {
			m.StateFile = filepath.Join(c.Dir, mpsFile)
		}
		env, err := c.MPS.Start()
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := c.MPS.Stop(); err != nil {
				sum.Warnings = append(sum.Warnings, fmt.Sprintf("stopping MPS: %v", err))
			}
		}()
		c.Runner.Env = append(c.Runner.Env, env...)
	}
	prog.Begin(pending, sum.Skipped)
	var runErr error
	for i, pr := range pending {
		prog.Start(i, pr)
		rec, err := c.runOne(ctx, pr, recs)
		if err != nil {
			if ctx.Err() != nil {
				runErr = fmt.Errorf("%w after %d of %d runs (run %s was stopped and will be redone): rerun the same command to resume",
					errInterrupted, sum.Skipped+sum.Ran, sum.Planned, pr.ID)
			} else {
				runErr = err
			}
			break
		}
		if err := j.Append(rec); err != nil {
			runErr = err
			break
		}
		recs[pr.ID] = rec
		sum.Ran++
		if err := c.writeTables(man, recs, false); err != nil {
			runErr = err
			break
		}
		prog.Done(i, pr, rec)
	}
	if err := c.writeTables(man, recs, true); err != nil && runErr == nil {
		runErr = err
	}
	sum.Tables = buildTables(c.Name, c.Suite, c.Plan, recs)
	sum.Warnings = append(sum.Warnings, sum.Tables.Warnings...)
	sum.Records = map[string]*RunRecord{}
	for _, pr := range todo.Runs {
		if r := recs[pr.ID]; r != nil {
			sum.Records[pr.ID] = r
			switch r.Status {
			case datasets.StatusOK:
				sum.OK++
				if r.unsettled() {
					sum.Unsettled++
				}
				if r.sharedGPU() {
					sum.Shared++
				}
			case datasets.StatusInfeasible:
				sum.Infeasible++
			default:
				sum.Failed++
			}
			for _, w := range slices.Concat(r.Warnings, r.Shared) {
				sum.Warnings = append(sum.Warnings, r.RunID+": "+w)
			}
		}
	}
	prog.End(sum)
	return sum, runErr
}

// Retry says which finished runs a campaign runs again.
type Retry struct {
	// Failed: the runs held as failed; Unsettled: the ok runs whose step
	// time never settled; Shared: the ok runs that shared their GPUs with
	// another tenant's processes.
	Failed, Unsettled, Shared bool
}

// again reports whether r is to be run again.
func (rt Retry) again(r *RunRecord) bool {
	return rt.Failed && r.Status == datasets.StatusFailed || rt.Unsettled && r.unsettled() || rt.Shared && r.sharedGPU()
}

// pending returns the runs of plan to do: those recs does not hold, and
// those it holds that retry asks for.
func pending(plan *Plan, recs map[string]*RunRecord, retry Retry) []PlannedRun {
	var out []PlannedRun
	for _, pr := range plan.Runs {
		if r := recs[pr.ID]; r == nil || retry.again(r) {
			out = append(out, pr)
		}
	}
	return out
}

// tenantLister is a Monitor that can list the processes of others on the
// devices before the first run (recorderMonitor, through the NVML
// sampler).
type tenantLister interface {
	Tenants(devices []int) []string
}

// checkForeign refuses a directory that holds files a campaign would
// replace (its tables: any .arrow file, or a journal) but no campaign (an
// imported dataset, say). Other files are left alone and do not count: a
// batch system's output file (Slurm writes slurm-<job>.out into the shard
// directory before coloc starts) or a user's notes. What a campaign
// creates before its manifest (the lock, samples/ and logs/) does not
// count either.
func checkForeign(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var other []string
	for _, e := range entries {
		switch e.Name() {
		case "manifest.json", fleetFile:
			return nil
		case lockFile, liveFile, mpsFile, samplesDir, logsDir:
		default:
			if e.Name() == journalName || strings.HasSuffix(e.Name(), ".arrow") {
				other = append(other, e.Name())
			}
		}
	}
	if len(other) == 0 {
		return nil
	}
	if len(other) > 3 {
		other = append(other[:3], "...")
	}
	return fmt.Errorf("%s is not a campaign directory (no manifest.json) but holds %s: a campaign would replace its tables; choose another --out (--force never removes files a campaign did not write)",
		dir, strings.Join(other, ", "))
}

// prepare creates or checks the directory and writes the manifest. On a
// resumed campaign it also says what of the hardware changed since its
// earlier runs (manifest.hardwareChanges).
func (c *Campaign) prepare() (*manifest, []string, error) {
	o := c.Runner.Options
	man := &manifest{
		Format: manifestFormat, Version: manifestVersion, Campaign: c.Name, Tool: version.String(),
		Created: time.Now().UTC(),
		Suite:   ManifestSuite{Name: c.Suite.Name, Path: c.Suite.Path, Hash: c.Suite.Hash()},
		Settings: settings{
			Device: o.DeviceKind, DeviceType: o.Devices[0].Type, DurationS: o.Duration.Seconds(),
			WarmupS: o.Window.MinWarmup.Seconds(), Share: o.Share,
		},
		Hardware: c.Hardware,
		Plan: manifestPlan{Hash: c.Plan.Hash(), Shard: c.Shard, EstS: c.Plan.Total().Seconds(),
			Notes: c.Plan.Notes, Runs: c.Plan.Runs},
	}
	if _, err := os.Stat(filepath.Join(c.Dir, fleetFile)); err == nil {
		return nil, nil, fmt.Errorf("%s holds a fleet (%s): its campaign is merged from its shards by coloc profile merge, and a merge would drop runs made here; run a shard instead (--out %s --shard i/n)",
			c.Dir, fleetFile, filepath.Join(c.Dir, shardsDir, "i"))
	}
	path := filepath.Join(c.Dir, "manifest.json")
	old, err := ReadManifest(path)
	discard := false
	var warns []string
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		if !c.Force {
			return nil, nil, fmt.Errorf("%w (pass --force to discard the directory's campaign files)", err)
		}
		discard = true
	case c.Force:
		discard = true
	default:
		extended := false
		if c.Extend && c.Shard == "" && old.Plan.Hash != man.Plan.Hash {
			if p, ok := extendPlan(old.Plan.Runs, c.Plan); ok {
				c.Plan, extended = p, true
				man.Plan = manifestPlan{Hash: p.Hash(), EstS: p.Total().Seconds(), Notes: p.Notes, Runs: p.Runs}
			}
		}
		if d := man.differences(old, extended); len(d) > 0 {
			if !c.Force {
				return nil, nil, fmt.Errorf("%s holds another campaign: %s; rerun with its settings, choose another --out, or pass --force to discard its runs and start over",
					c.Dir, strings.Join(d, "; "))
			}
			discard = true
		} else {
			man.Created, man.Campaign = old.Created, old.Campaign
			c.Name = old.Campaign
			warns = man.hardwareChanges(old)
		}
	}
	if discard {
		if err := removeCampaign(c.Dir); err != nil {
			return nil, nil, err
		}
	}
	for _, d := range []string{c.Dir, filepath.Join(c.Dir, samplesDir), filepath.Join(c.Dir, logsDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, nil, err
		}
	}
	c.Runner.LogDir = filepath.Join(c.Dir, logsDir)
	if c.Runner.Options.Launcher == "" {
		launcher, err := writeLauncher(c.Runner.LogDir)
		if err != nil {
			return nil, nil, err
		}
		c.Runner.Options.Launcher = launcher
	}
	return man, warns, writeManifest(path, man)
}

// runOne runs pr, or records it infeasible, and stores its samples.
func (c *Campaign) runOne(ctx context.Context, pr PlannedRun, recs map[string]*RunRecord) (*RunRecord, error) {
	if pr.Mode == datasets.ModePair {
		if rec := c.memoryCheck(pr, recs); rec != nil {
			return rec, nil
		}
	}
	rec, samples, err := c.Runner.run(ctx, pr)
	if err != nil {
		return nil, err
	}
	if samples != nil && samples.Len() > 0 {
		rel := filepath.Join(samplesDir, pr.ID+".arrow")
		if err := datasets.Write(filepath.Join(c.Dir, rel), samples); err != nil {
			rec.Warnings = append(rec.Warnings, fmt.Sprintf("samples not kept: %v", err))
		} else {
			rec.Samples = rel
		}
	}
	return rec, nil
}

// writeTables writes the tables of the finished runs and the manifest;
// final also gathers the per-run sample files into samples.arrow (too
// costly to redo after every run).
func (c *Campaign) writeTables(man *manifest, recs map[string]*RunRecord, final bool) error {
	if _, err := writeTables(c.Dir, c.Name, c.Suite, c.Plan, recs, final); err != nil {
		return err
	}
	man.Updated = time.Now().UTC()
	man.tally(c.Plan, recs)
	if err := writeWorkloads(c.Dir, man); err != nil {
		return err
	}
	return writeManifest(filepath.Join(c.Dir, "manifest.json"), man)
}

// writeTables writes the tables of the records recs of plan into dir (the
// samples table too when withSamples: it concatenates the per-run files of
// dir/samples) and returns them.
func writeTables(dir, name string, s *Suite, plan *Plan, recs map[string]*RunRecord, withSamples bool) (*Tables, error) {
	t := buildTables(name, s, plan, recs)
	tables := t.list()
	if withSamples {
		st, err := gatherSamples(dir, plan, recs)
		if err != nil {
			return nil, err
		}
		if st != nil {
			tables = append(tables, st)
		}
	}
	if err := datasets.WriteDir(dir, tables...); err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	return t, nil
}

// tally counts the finished runs of plan by status into m.Progress and
// takes the torch version and each workload's meta line from the records.
func (m *manifest) tally(plan *Plan, recs map[string]*RunRecord) {
	m.Progress = manifestProgress{}
	for _, pr := range plan.Runs {
		r := recs[pr.ID]
		if r == nil {
			continue
		}
		m.Progress.Finished++
		switch r.Status {
		case datasets.StatusOK:
			m.Progress.OK++
		case datasets.StatusInfeasible:
			m.Progress.Infeasible++
		default:
			m.Progress.Failed++
		}
		for _, s := range r.Sides {
			if s.Meta == nil {
				continue
			}
			if m.Torch == "" {
				m.Torch = s.Meta.Torch
			}
			if m.Workloads == nil {
				m.Workloads = map[string]*meta{}
			}
			if m.Workloads[s.Workload] == nil && r.Mode == datasets.ModeSolo {
				m.Workloads[s.Workload] = s.Meta
			}
		}
	}
}

// writeWorkloads writes dir's workloads file from the meta lines tallied
// into m (nothing when no workload printed one).
func writeWorkloads(dir string, m *manifest) error {
	if len(m.Workloads) == 0 {
		return nil
	}
	return datasets.WriteWorkloads(datasets.WorkloadsPath(dir), workloadsOf(m))
}

// workloadsOf turns the meta lines the workloads printed in their solo
// runs into the dataset's workloads file, from which features are built.
// The protocol's flops_per_sample counts forward and backward passes, taken
// as three forward passes; the file holds the forward FLOPs.
func workloadsOf(man *manifest) []datasets.WorkloadMeta {
	var out []datasets.WorkloadMeta
	for name, m := range man.Workloads {
		wm := datasets.WorkloadMeta{
			Workload: name, Model: m.Model, Class: m.Class, Params: float64(m.Params),
			Layers: m.Layers, BatchSize: m.BatchSize, Precision: m.Precision,
			Source: "meta line of its solo run in campaign " + man.Campaign,
		}
		if m.FlopsPerSample != nil {
			wm.ForwardFLOPs = *m.FlopsPerSample / 3
		}
		out = append(out, wm)
	}
	return out
}

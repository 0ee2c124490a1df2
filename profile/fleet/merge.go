package fleet

import (
	"fmt"
	"slices"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile"
)

// MergeResult is what Merge found and wrote.
type MergeResult struct {
	Fleet  *Fleet
	Shards []profile.MergedShard
	// Planned counts the runs of the plan; OK, Failed and Infeasible the
	// finished ones by status.
	Planned, OK, Failed, Infeasible int
	// Missing are the runs of the plan that no shard has finished (not
	// run yet, or interrupted), in plan order; Owner gives their shard.
	Missing []profile.PlannedRun
	Owner   map[string]int
	// FailedRuns are the records of failed runs, in plan order.
	FailedRuns []*profile.RunRecord
	// DeviceTypes are the device types the shards ran on, sorted.
	DeviceTypes []string
	Tables      *profile.Tables
	Warnings    []string
}

// Complete reports whether every run of the plan is finished.
func (r *MergeResult) Complete() bool { return len(r.Missing) == 0 }

// incompleteShards returns the shards that own a missing run, ascending.
func (r *MergeResult) incompleteShards() []int {
	var out []int
	for _, pr := range r.Missing {
		if i := r.Owner[pr.ID]; !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// Merge merges the shards of the fleet in dir (dir/fleet.json, the
// shards in dir/shards/<i>) into one campaign in dir (profile.MergeShards: the
// journal in plan order, the sample files, the tables and a manifest whose
// Shards say where each shard ran). It reads the shards without changing
// them, so it may run while shards still run, and running it again gives
// the same campaign. A suite file changed since the fleet was written, or
// a shard of another suite, plan, shard split or settings, is refused and
// nothing is written. A campaign with missing runs is still written; the
// result lists them.
func Merge(dir string) (*MergeResult, error) {
	f, err := Read(dir)
	if err != nil {
		return nil, err
	}
	s, err := profile.LoadSuite(f.Suite.Path)
	if err != nil {
		return nil, fmt.Errorf("fleet %s: %w", dir, err)
	}
	if h := s.Hash(); h != f.Suite.Hash {
		return nil, fmt.Errorf("fleet %s: suite file %s changed since the fleet was written (hash %s, now %s)", dir, f.Suite.Path, profile.ShortHash(f.Suite.Hash), profile.ShortHash(h))
	}
	plan := f.planOf()
	c := &profile.ShardedCampaign{Name: f.Name, Suite: s, Plan: plan, Created: f.Created,
		Device: f.Settings.Device, DurationS: f.Settings.DurationS, WarmupS: f.Settings.WarmupS, Share: f.Settings.Share}
	res := &MergeResult{Fleet: f, Planned: len(plan.Runs), Owner: map[string]int{}}
	for _, sh := range f.Plan.Shards {
		c.Shards = append(c.Shards, profile.ShardOwner{Dir: ShardDir(sh.Index), Runs: sh.Runs})
		for _, id := range sh.Runs {
			res.Owner[id] = sh.Index
		}
	}
	m, err := profile.MergeShards(dir, c)
	if err != nil {
		return nil, err
	}
	res.Shards, res.DeviceTypes, res.Tables, res.Warnings = m.Shards, m.DeviceTypes, m.Tables, m.Warnings
	for _, pr := range plan.Runs {
		switch r := m.Records[pr.ID]; {
		case r == nil:
			res.Missing = append(res.Missing, pr)
		case r.Status == datasets.StatusOK:
			res.OK++
		case r.Status == datasets.StatusInfeasible:
			res.Infeasible++
		default:
			res.Failed++
			res.FailedRuns = append(res.FailedRuns, r)
		}
	}
	return res, nil
}

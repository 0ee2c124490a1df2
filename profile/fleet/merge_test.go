package fleet

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/profile"
)

// TestMerge merges a fleet whose shards all ran: the campaign
// (profile.MergeShards, whose tests check its files) is complete, and a
// campaign run in the fleet directory itself is refused.
func TestMerge(t *testing.T) {
	s := loadSuite(t, "two")
	po := planOpts("all", 2, 0, 1) // 2 × (2 solo + 3 pairs)
	dir, f := newTestFleet(t, s, po, 3)
	for i := 1; i <= 3; i++ {
		runShard(t, dir, s, po, i, 3, "cpu")
	}
	res, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete() || res.Planned != 10 || res.OK != 10 || len(res.Missing) != 0 || !slices.Equal(res.DeviceTypes, []string{"cpu"}) {
		t.Fatalf("merge: complete %v, planned %d, ok %d, missing %v, devices %v", res.Complete(), res.Planned, res.OK, res.Missing, res.DeviceTypes)
	}
	for i, sh := range res.Shards {
		if !sh.Started || sh.Finished != sh.Planned || sh.Planned != len(f.Plan.Shards[i].Runs) || sh.Dir != ShardDir(i+1) || sh.Host == "" {
			t.Errorf("shard %+v", sh)
		}
	}
	if recs, _, err := profile.ReadCampaignJournal(dir); err != nil || len(recs) != len(f.Plan.Runs) {
		t.Errorf("merged journal: %d runs (%v), want the plan's %d", len(recs), err, len(f.Plan.Runs))
	}

	// Running the plan in the fleet directory itself is refused (package
	// profile knows FileName): the next merge would drop its runs.
	plan, _ := profile.NewPlan(s, po)
	o := shardOptions
	o.DeviceKind, o.Devices = "cpu", []profile.Device{{Index: 0, Type: "cpu"}}
	c := &profile.Campaign{Dir: dir, Suite: s, Plan: plan, Runner: &profile.Runner{Suite: s, Options: o}}
	if _, err := c.Execute(context.Background()); err == nil || !strings.Contains(err.Error(), "holds a fleet ("+FileName+")") {
		t.Errorf("a campaign run in the fleet directory: %v, want a refusal", err)
	}
}

func TestMergeMissing(t *testing.T) {
	s := loadSuite(t, "bad")
	po := planOpts("all", 1, 0, 1) // solo a, solo bad, a+a, a+bad, bad+bad
	dir, f := newTestFleet(t, s, po, 2)
	runShard(t, dir, s, po, 1, 2, "cpu")
	res, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, pr := range res.Missing {
		missing = append(missing, pr.ID)
	}
	if res.Complete() || !slices.Equal(missing, f.Plan.Shards[1].Runs) || !slices.Equal(res.incompleteShards(), []int{2}) {
		t.Errorf("missing %v (shards %v), want shard 2's runs %v", missing, res.incompleteShards(), f.Plan.Shards[1].Runs)
	}
	if res.Shards[1].Started || res.Shards[1].Finished != 0 || !res.Shards[0].Started {
		t.Errorf("shards %+v", res.Shards)
	}
	// Shard 1's failed runs are listed; what is there is tabulated.
	for _, r := range res.FailedRuns {
		if !strings.Contains(r.RunID, "bad") || res.Owner[r.RunID] != 1 {
			t.Errorf("failed run %s (shard %d)", r.RunID, res.Owner[r.RunID])
		}
	}
	if res.Failed != len(res.FailedRuns) || res.Failed == 0 || res.OK+res.Failed != len(f.Plan.Shards[0].Runs) {
		t.Errorf("%d ok, %d failed (%d listed) of shard 1's %d runs", res.OK, res.Failed, len(res.FailedRuns), len(f.Plan.Shards[0].Runs))
	}
	if _, err := datasets.Open(dir); err != nil {
		t.Errorf("partial campaign: %v", err)
	}
	if recs, _, err := profile.ReadCampaignJournal(dir); err != nil || len(recs) != len(f.Plan.Shards[0].Runs) {
		t.Errorf("merged journal: %d runs (%v), want shard 1's %d", len(recs), err, len(f.Plan.Shards[0].Runs))
	}

	// Once shard 2 has run, the campaign is complete.
	runShard(t, dir, s, po, 2, 2, "cpu")
	if res, err = Merge(dir); err != nil || !res.Complete() || res.Failed != 3 || res.OK != 2 {
		t.Errorf("after shard 2: %v, complete %v, %d ok, %d failed", err, res.Complete(), res.OK, res.Failed)
	}
}

// TestMergeRefuses: a suite file changed since the fleet was written, and
// a shard of another campaign (profile.MergeShards' tests have every
// kind), are refused, and nothing is written.
func TestMergeRefuses(t *testing.T) {
	s := loadSuite(t, "two")
	po := planOpts("all", 1, 0, 1)
	tests := []struct {
		name string
		edit func(t *testing.T, dir string)
		want string
	}{
		{"suite changed", func(t *testing.T, dir string) {
			path := filepath.Join(dir, FileName)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			other := loadSuite(t, "other").Path
			b = []byte(strings.Replace(string(b), s.Path, other, 1))
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "changed since the fleet was written"},
		{"another split", func(t *testing.T, dir string) { runShard(t, dir, s, po, 2, 2, "cpu") },
			`it ran shard "2/2", want 2/3`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := newTestFleet(t, s, po, 3)
			runShard(t, dir, s, po, 1, 3, "cpu")
			tc.edit(t, dir)
			if _, err := Merge(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("merge: %v, want %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
				t.Error("a refused merge wrote the campaign manifest")
			}
		})
	}
}

// TestUnionCampaigns joins the fleets of two GPU types into one dataset.
func TestUnionCampaigns(t *testing.T) {
	s := loadSuite(t, "two")
	po := planOpts("all", 1, 0, 1)
	parent := t.TempDir()
	for _, dev := range []string{"h200", "a100"} {
		plan, _ := profile.NewPlan(s, po)
		f, err := New(dev, s, plan, 2, fleetSettings, nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(parent, dev)
		if err := Prepare(dir, f); err != nil {
			t.Fatal(err)
		}
		runShard(t, dir, s, po, 1, 2, dev)
		runShard(t, dir, s, po, 2, 2, dev)
		res, err := Merge(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.DeviceTypes, []string{dev}) {
			t.Errorf("fleet %s: device types %v", dev, res.DeviceTypes)
		}
	}
	subs, err := Dirs(parent)
	if err != nil || len(subs) != 2 || filepath.Base(subs[0]) != "a100" {
		t.Fatalf("fleet dirs %v (%v)", subs, err)
	}
	if _, err := UnionCampaigns(parent, subs); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Open(parent)
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.Pairs.DeviceTypes(); !slices.Equal(got, []string{"a100", "h200"}) || len(ds.Pairs.Rows) != 8 || len(ds.Solo.Rows) != 4 || len(ds.Runs.Rows) != 2*(2+3*2) {
		t.Errorf("joined: device types %v, %d pairs, %d solo, %d runs rows", got, len(ds.Pairs.Rows), len(ds.Solo.Rows), len(ds.Runs.Rows))
	}
}

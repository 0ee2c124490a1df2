package profile

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

// twoWorkloads is a suite of two fake workloads, a at 80 samples/s and b
// at 40 (4 samples a step of 0.05 s and 0.1 s).
func twoWorkloads(t *testing.T) *Suite {
	return fleetSuite(t, "two", [2]string{"a", "ok --warm 3"}, [2]string{"b", "ok --dt 0.1 --steps 20"})
}

func TestMergeFleet(t *testing.T) {
	s := twoWorkloads(t)
	po := planOpts("all", 2, 0, 1) // 2 × (2 solo + 3 pairs)
	dir, f := newTestFleet(t, s, po, 3)
	for i := 1; i <= 3; i++ {
		runShard(t, dir, s, po, i, 3, "cpu")
	}
	res, err := MergeFleet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete() || res.Planned != 10 || res.OK != 10 || len(res.Missing) != 0 || !slices.Equal(res.DeviceTypes, []string{"cpu"}) {
		t.Fatalf("merge: complete %v, planned %d, ok %d, missing %v, devices %v", res.Complete(), res.Planned, res.OK, res.Missing, res.DeviceTypes)
	}
	for _, sh := range res.Shards {
		if !sh.Started || sh.Finished != sh.Planned || sh.Host == "" || sh.DeviceType != "cpu" {
			t.Errorf("shard %+v", sh)
		}
	}
	// The journal holds every run of the plan once, in plan order.
	ids := readJournal(t, dir)
	var want []string
	for _, r := range f.Plan.Runs {
		want = append(want, r.ID)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("merged journal %v, want the plan's runs %v", ids, want)
	}
	// The tables are those of a one-node campaign of the same plan.
	ds, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Runs.Rows) != 4+2*3*2 || len(ds.Solo.Rows) != 2 || len(ds.Pairs.Rows) != 4 || ds.SamplesPath == "" {
		t.Fatalf("merged tables: %d runs, %d solo, %d pairs rows, samples %q", len(ds.Runs.Rows), len(ds.Solo.Rows), len(ds.Pairs.Rows), ds.SamplesPath)
	}
	for _, r := range ds.Runs.Rows {
		if r.Campaign != "camp" {
			t.Errorf("run %s of campaign %q, want camp", r.RunID, r.Campaign)
		}
	}
	for _, r := range ds.Solo.Rows {
		want := map[string]float64{"a": 80, "b": 40}[r.Workload]
		if math.Abs(r.Throughput-want) > 1e-6 || r.Repeats != 2 {
			t.Errorf("solo %+v, want %v samples/s over 2 repeats", r, want)
		}
	}
	for _, p := range ds.Pairs.Rows {
		if p.Status != datasets.StatusOK || math.Abs(p.Normalized-1) > 1e-6 || p.Repeats != 2 {
			t.Errorf("pair %s|%s: %+v, want normalized 1 over 2 repeats", p.Workload, p.Partner, p)
		}
	}
	st, err := datasets.Read(ds.SamplesPath)
	if err != nil {
		t.Fatal(err)
	}
	if st.Len() != 4*2+6*3 { // a device row and one per process, per run
		t.Errorf("%d sample rows, want 26", st.Len())
	}
	man, err := ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if man.Plan.Shard != "" || man.Progress.Finished != 10 || len(man.Shards) != 3 || man.Shards[1].Shard != "2/3" ||
		man.Shards[1].Hardware == nil || man.Shards[1].Hardware.Host != "node2" || man.Settings.DeviceType != "cpu" || man.Torch != "0.0-fake" {
		t.Errorf("merged manifest %+v", man)
	}

	// Running the plan in the fleet directory itself is refused: the next
	// merge would drop its runs.
	plan, _ := NewPlan(s, po)
	c := &Campaign{Dir: dir, Suite: s, Plan: plan, Runner: &Runner{Suite: s, Options: fakeOptions(t), Monitor: nopMonitor{}}}
	if _, err := c.Execute(context.Background()); err == nil || !strings.Contains(err.Error(), "holds a fleet") {
		t.Errorf("a campaign run in the fleet directory: %v, want a refusal", err)
	}

	// Merging again writes the same campaign.
	before := readFiles(t, dir, "runs.jsonl", "runs.arrow", "pairs.arrow", "solo.arrow", "samples.arrow")
	if _, err := MergeFleet(dir); err != nil {
		t.Fatal(err)
	}
	after := readFiles(t, dir, "runs.jsonl", "runs.arrow", "pairs.arrow", "solo.arrow", "samples.arrow")
	for name, b := range before {
		if !bytes.Equal(b, after[name]) {
			t.Errorf("%s changed on a second merge", name)
		}
	}
}

func readFiles(t *testing.T, dir string, names ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

func TestMergeFleetMissing(t *testing.T) {
	s := fleetSuite(t, "bad", [2]string{"a", "ok"}, [2]string{"bad", "crash"})
	po := planOpts("all", 1, 0, 1) // solo a, solo bad, a+a, a+bad, bad+bad
	dir, f := newTestFleet(t, s, po, 2)
	runShard(t, dir, s, po, 1, 2, "cpu")
	res, err := MergeFleet(dir)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, pr := range res.Missing {
		missing = append(missing, pr.ID)
	}
	if res.Complete() || !slices.Equal(missing, f.Plan.Shards[1].Runs) || !slices.Equal(res.IncompleteShards(), []int{2}) {
		t.Errorf("missing %v (shards %v), want shard 2's runs %v", missing, res.IncompleteShards(), f.Plan.Shards[1].Runs)
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
	if ids := readJournal(t, dir); len(ids) != len(f.Plan.Shards[0].Runs) {
		t.Errorf("merged journal %v", ids)
	}

	// Once shard 2 has run, the campaign is complete.
	runShard(t, dir, s, po, 2, 2, "cpu")
	if res, err = MergeFleet(dir); err != nil || !res.Complete() || res.Failed != 3 || res.OK != 2 {
		t.Errorf("after shard 2: %v, complete %v, %d ok, %d failed", err, res.Complete(), res.OK, res.Failed)
	}
}

func TestMergeFleetRefuses(t *testing.T) {
	s := twoWorkloads(t)
	other := fleetSuite(t, "other", [2]string{"a", "ok"}, [2]string{"b", "ok"})
	po := planOpts("all", 1, 0, 1)
	tests := []struct {
		name  string
		shard func(t *testing.T, dir string)
		want  string
	}{
		{"another plan", func(t *testing.T, dir string) { runShard(t, dir, s, planOpts("all", 2, 0, 1), 2, 2, "cpu") },
			"it ran another plan (10 runs"},
		{"another suite", func(t *testing.T, dir string) { runShard(t, dir, other, po, 2, 2, "cpu") },
			"it ran suite other"},
		{"another split", func(t *testing.T, dir string) { runShard(t, dir, s, po, 2, 3, "cpu") },
			`it ran shard "2/3", want 2/2`},
		{"other settings", func(t *testing.T, dir string) {
			runShard(t, dir, s, po, 2, 2, "cpu")
			path := filepath.Join(dir, ShardDir(2), "manifest.json")
			m, err := ReadManifest(path)
			if err != nil {
				t.Fatal(err)
			}
			m.Settings.DurationS = 30
			if err := writeManifest(path, m); err != nil {
				t.Fatal(err)
			}
		}, "it ran with device cpu (cpu), duration 30s"},
		{"a run of another shard", func(t *testing.T, dir string) {
			runShard(t, dir, s, po, 2, 2, "cpu")
			src, err := os.ReadFile(filepath.Join(dir, ShardDir(1), journalName))
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(filepath.Join(dir, ShardDir(2), journalName), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(src)
			f.Close()
		}, "belongs to shard 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := newTestFleet(t, s, po, 2)
			runShard(t, dir, s, po, 1, 2, "cpu")
			tc.shard(t, dir)
			_, err := MergeFleet(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "shard 2 ("+filepath.Join(dir, "shards", "2")) {
				t.Errorf("merge: %v, want a refusal naming shard 2 and %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
				t.Error("a refused merge wrote the campaign manifest")
			}
		})
	}
}

// TestMergeFleetDeviceTypes merges shards that ran on two GPU types: the
// tables keep the types apart, a pair is normalized only by solo values of
// its own type, and a pair whose solo runs ran on the other type is left
// out with a warning.
func TestMergeFleetDeviceTypes(t *testing.T) {
	s := twoWorkloads(t)
	po := planOpts("all", 1, 0, 1)
	dir, f := newTestFleet(t, s, po, 2)
	runShard(t, dir, s, po, 1, 2, "h200")
	runShard(t, dir, s, po, 2, 2, "a100")
	res, err := MergeFleet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.DeviceTypes, []string{"a100", "h200"}) || res.Shards[0].DeviceType != "h200" || res.Shards[1].DeviceType != "a100" {
		t.Errorf("device types %v, shards %+v", res.DeviceTypes, res.Shards)
	}
	devOf := map[string]string{}
	for i, sh := range f.Plan.Shards {
		for _, id := range sh.Runs {
			devOf[id] = []string{"h200", "a100"}[i]
		}
	}
	ds, err := datasets.Open(dir) // checks every pair against a solo row of its type
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ds.Solo.Rows {
		if devOf["solo."+r.Workload+".r0"] != r.DeviceType {
			t.Errorf("solo %s on %s, its run ran on %s", r.Workload, r.DeviceType, devOf["solo."+r.Workload+".r0"])
		}
	}
	soloOn := func(w, dev string) bool { return devOf["solo."+w+".r0"] == dev }
	kept := 0
	for _, pr := range f.Plan.Runs {
		if pr.Mode != datasets.ModePair {
			continue
		}
		dev := devOf[pr.ID]
		if soloOn(pr.Workloads[0], dev) && soloOn(pr.Workloads[1], dev) {
			kept += 2 // both orders
			if pr.Workloads[0] == pr.Workloads[1] {
				kept-- // one row for a workload with itself
			}
		}
	}
	for _, p := range ds.Pairs.Rows {
		if !soloOn(p.Workload, p.DeviceType) {
			t.Errorf("pair %s|%s on %s normalized without a solo value there", p.Workload, p.Partner, p.DeviceType)
		}
	}
	if len(res.Warnings) == 0 || !strings.Contains(strings.Join(res.Warnings, "\n"), "no solo value of") {
		t.Errorf("warnings %q, want pairs left out for lack of a solo value on their type", res.Warnings)
	}
	man, err := ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil || man.Settings.DeviceType != "a100,h200" {
		t.Errorf("manifest device type %q (%v)", man.Settings.DeviceType, err)
	}
	if len(ds.Pairs.Rows) != kept || kept == 0 {
		t.Errorf("%d pair rows, want %d: the pair runs whose solo runs ran on their type", len(ds.Pairs.Rows), kept)
	}
}

// TestUnionCampaigns joins the fleets of two GPU types into one dataset.
func TestUnionCampaigns(t *testing.T) {
	s := twoWorkloads(t)
	po := planOpts("all", 1, 0, 1)
	parent := t.TempDir()
	for _, dev := range []string{"h200", "a100"} {
		plan, _ := NewPlan(s, po)
		f, err := NewFleet(dev, s, plan, 2, fleetSettings, nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(parent, dev)
		if err := PrepareFleet(dir, f); err != nil {
			t.Fatal(err)
		}
		runShard(t, dir, s, po, 1, 2, dev)
		runShard(t, dir, s, po, 2, 2, dev)
		if _, err := MergeFleet(dir); err != nil {
			t.Fatal(err)
		}
	}
	subs, err := FleetDirs(parent)
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

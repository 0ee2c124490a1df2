package profile

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// sharded is the campaign of suite s and plan options po split into n
// shards (Plan.Shard) in shards/<i>, as a fleet lays them out, with the
// settings of fakeOptions.
func sharded(t *testing.T, s *Suite, po PlanOptions, n int) *ShardedCampaign {
	t.Helper()
	plan, err := NewPlan(s, po)
	if err != nil {
		t.Fatal(err)
	}
	c := &ShardedCampaign{Name: "camp", Suite: s, Plan: plan, Created: time.Now().UTC(),
		Device: "cpu", DurationS: 1, Share: datasets.ShareTimeSlice}
	for i := 1; i <= n; i++ {
		sh, err := plan.Shard(i, n)
		if err != nil {
			t.Fatal(err)
		}
		o := ShardOwner{Dir: filepath.Join("shards", strconv.Itoa(i))}
		for _, r := range sh.Runs {
			o.Runs = append(o.Runs, r.ID)
		}
		c.Shards = append(c.Shards, o)
	}
	return c
}

// twoWorkloads is a suite of two fake workloads, a at 80 samples/s and b
// at 40 (4 samples a step of 0.05 s and 0.1 s).
func twoWorkloads(t *testing.T) *Suite {
	return fakeSuiteFile(t, "two", [2]string{"a", "ok --warm 3"}, [2]string{"b", "ok --dt 0.1 --steps 20"})
}

func TestMergeShards(t *testing.T) {
	s := twoWorkloads(t)
	po := planOpts("all", 2, 0, 1) // 2 × (2 solo + 3 pairs)
	c := sharded(t, s, po, 3)
	dir := t.TempDir()
	for i := 1; i <= 3; i++ {
		runShard(t, filepath.Join(dir, c.Shards[i-1].Dir), s, po, i, 3, "cpu")
	}
	m, err := MergeShards(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Records) != 10 || !slices.Equal(m.DeviceTypes, []string{"cpu"}) {
		t.Fatalf("merge: %d records, devices %v", len(m.Records), m.DeviceTypes)
	}
	for _, sh := range m.Shards {
		if !sh.Started || sh.Finished != sh.Planned || sh.Host == "" || sh.DeviceType != "cpu" {
			t.Errorf("shard %+v", sh)
		}
	}
	// The journal holds every run of the plan once, in plan order.
	ids := readJournal(t, dir)
	var want []string
	for _, r := range c.Plan.Runs {
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

	// Merging again writes the same campaign.
	before := readFiles(t, dir, "runs.jsonl", "runs.arrow", "pairs.arrow", "solo.arrow", "samples.arrow")
	if _, err := MergeShards(dir, c); err != nil {
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

func TestMergeShardsRefuses(t *testing.T) {
	s := twoWorkloads(t)
	other := fakeSuiteFile(t, "other", [2]string{"a", "ok"}, [2]string{"b", "ok"})
	po := planOpts("all", 1, 0, 1)
	shard2 := filepath.Join("shards", "2")
	tests := []struct {
		name  string
		shard func(t *testing.T, dir string)
		want  string
	}{
		{"another plan", func(t *testing.T, dir string) {
			runShard(t, filepath.Join(dir, shard2), s, planOpts("all", 2, 0, 1), 2, 2, "cpu")
		},
			"it ran another plan (10 runs"},
		{"another suite", func(t *testing.T, dir string) { runShard(t, filepath.Join(dir, shard2), other, po, 2, 2, "cpu") },
			"it ran suite other"},
		{"another split", func(t *testing.T, dir string) { runShard(t, filepath.Join(dir, shard2), s, po, 2, 3, "cpu") },
			`it ran shard "2/3", want 2/2`},
		{"other settings", func(t *testing.T, dir string) {
			runShard(t, filepath.Join(dir, shard2), s, po, 2, 2, "cpu")
			path := filepath.Join(dir, shard2, "manifest.json")
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
			runShard(t, filepath.Join(dir, shard2), s, po, 2, 2, "cpu")
			src, err := os.ReadFile(filepath.Join(dir, "shards", "1", journalName))
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(filepath.Join(dir, shard2, journalName), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(src)
			f.Close()
		}, "belongs to shard 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := sharded(t, s, po, 2)
			dir := t.TempDir()
			runShard(t, filepath.Join(dir, c.Shards[0].Dir), s, po, 1, 2, "cpu")
			tc.shard(t, dir)
			_, err := MergeShards(dir, c)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "shard 2 ("+filepath.Join(dir, shard2)) {
				t.Errorf("merge: %v, want a refusal naming shard 2 and %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
				t.Error("a refused merge wrote the campaign manifest")
			}
		})
	}
}

// TestMergeShardsDeviceTypes merges shards that ran on two GPU types: the
// tables keep the types apart, a pair is normalized only by solo values of
// its own type, and a pair whose solo runs ran on the other type is left
// out with a warning.
func TestMergeShardsDeviceTypes(t *testing.T) {
	s := twoWorkloads(t)
	po := planOpts("all", 1, 0, 1)
	c := sharded(t, s, po, 2)
	dir := t.TempDir()
	devs := []string{"h200", "a100"}
	for i, dev := range devs {
		runShard(t, filepath.Join(dir, c.Shards[i].Dir), s, po, i+1, 2, dev)
	}
	m, err := MergeShards(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.DeviceTypes, []string{"a100", "h200"}) || m.Shards[0].DeviceType != "h200" || m.Shards[1].DeviceType != "a100" {
		t.Errorf("device types %v, shards %+v", m.DeviceTypes, m.Shards)
	}
	devOf := map[string]string{}
	for i, sh := range c.Shards {
		for _, id := range sh.Runs {
			devOf[id] = devs[i]
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
	for _, pr := range c.Plan.Runs {
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
	if len(m.Warnings) == 0 || !strings.Contains(strings.Join(m.Warnings, "\n"), "no solo value of") {
		t.Errorf("warnings %q, want pairs left out for lack of a solo value on their type", m.Warnings)
	}
	man, err := ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil || man.Settings.DeviceType != "a100,h200" {
		t.Errorf("manifest device type %q (%v)", man.Settings.DeviceType, err)
	}
	if len(ds.Pairs.Rows) != kept || kept == 0 {
		t.Errorf("%d pair rows, want %d: the pair runs whose solo runs ran on their type", len(ds.Pairs.Rows), kept)
	}
}

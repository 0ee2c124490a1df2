package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/profile"
)

// loadSuite loads testdata/<name>.yaml by its absolute path, as New
// records it: a suite of fake workloads, profile's testdata/fake.sh.
func loadSuite(t *testing.T, name string) *profile.Suite {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := profile.LoadSuite(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func planOpts(pairs string, repeats, gpus int, degrees ...int) profile.PlanOptions {
	o := profile.DefaultPlanOptions
	o.Pairs, o.Repeats, o.GPUs, o.Degrees = pairs, repeats, gpus, degrees
	return o
}

// shardOptions are what runShard runs a shard with: profile's defaults on
// the CPU, with profile's testdata/fakepython.sh for Python; fleetSettings
// are their settings.
var (
	shardOptions  = profile.DefaultRunOptions
	fleetSettings = Settings{Device: "cpu", DurationS: shardOptions.Duration.Seconds(),
		WarmupS: shardOptions.Window.MinWarmup.Seconds(), Share: shardOptions.Share}
)

// newTestFleet writes the fleet of suite s and plan options po, in n shards,
// into a new directory and returns it.
func newTestFleet(t *testing.T, s *profile.Suite, po profile.PlanOptions, n int) (string, *Fleet) {
	t.Helper()
	plan, err := profile.NewPlan(s, po)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New("camp", s, plan, n, fleetSettings, []string{"--device", "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "camp")
	if err := Prepare(dir, f); err != nil {
		t.Fatal(err)
	}
	return dir, f
}

// runShard executes shard i of n of the fleet in dir, as `coloc profile run
// --shard i/n` on a node whose device type is dev does.
func runShard(t *testing.T, dir string, s *profile.Suite, po profile.PlanOptions, i, n int, dev string) {
	t.Helper()
	python, err := filepath.Abs(filepath.Join("..", "testdata", "fakepython.sh"))
	if err != nil {
		t.Fatal(err)
	}
	o := shardOptions
	o.Python, o.DeviceKind, o.Devices = python, "cpu", []profile.Device{{Index: 0, Type: dev}}
	c := &profile.Campaign{Dir: filepath.Join(dir, ShardDir(i)), Suite: s, Shard: fmt.Sprintf("%d/%d", i, n),
		Runner: &profile.Runner{Suite: s, Options: o}, Hardware: profile.Hardware{Host: fmt.Sprintf("node%d", i)}}
	if c.Plan, err = profile.NewPlan(s, po); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestNewShards(t *testing.T) {
	s := loadSuite(t, "three")
	plan, err := profile.NewPlan(s, planOpts("all", 2, 0, 1)) // 2 × (3 solo + 6 pairs)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 5, 18} {
		f, err := New("camp", s, plan, n, fleetSettings, nil)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if len(f.Plan.Shards) != n || f.Plan.Hash != plan.Hash() || !filepath.IsAbs(f.Suite.Path) {
			t.Fatalf("%d shards: fleet %+v", n, f.Plan)
		}
		var all []string
		for i, sh := range f.Plan.Shards {
			want, _ := plan.Shard(i+1, n)
			var ids []string
			for _, r := range want.Runs {
				ids = append(ids, r.ID)
			}
			if sh.Index != i+1 || len(sh.Runs) == 0 || !slices.Equal(sh.Runs, ids) || sh.EstS != want.Total().Seconds() {
				t.Errorf("%d shards: shard %d = %+v, want the runs of Plan.Shard %v", n, i+1, sh, ids)
			}
			all = append(all, sh.Runs...)
		}
		if err := f.check("fleet.json"); err != nil || len(all) != len(plan.Runs) {
			t.Errorf("%d shards: %d runs in all (plan %d), check: %v", n, len(all), len(plan.Runs), err)
		}
	}
	if _, err := New("camp", s, plan, 19, fleetSettings, nil); err == nil || !strings.Contains(err.Error(), "at most 18 shards") {
		t.Errorf("19 shards of 18 runs: %v", err)
	}
	if _, err := New("camp", s, plan, 0, fleetSettings, nil); err == nil {
		t.Error("0 shards accepted")
	}
}

func TestReadRefuses(t *testing.T) {
	s := loadSuite(t, "other")
	dir, _ := newTestFleet(t, s, planOpts("all", 1, 0, 1), 2)
	path := filepath.Join(dir, FileName)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"version", func(m map[string]any) { m["version"] = 7 }, "fleet manifest version 7 is not known"},
		{"format", func(m map[string]any) { m["format"] = "coloc.campaign" }, "not a coloc fleet manifest"},
		{"plan edited", func(m map[string]any) {
			runs := m["plan"].(map[string]any)["runs"].([]any)
			m["plan"].(map[string]any)["runs"] = runs[1:]
		}, "do not match plan.hash"},
		{"run in two shards", func(m map[string]any) {
			sh := m["plan"].(map[string]any)["shards"].([]any)
			a, b := sh[0].(map[string]any), sh[1].(map[string]any)
			b["runs"] = append(b["runs"].([]any), a["runs"].([]any)[0])
		}, "is in shards 1 and 2"},
		{"run in no shard", func(m map[string]any) {
			sh := m["plan"].(map[string]any)["shards"].([]any)[0].(map[string]any)
			sh["runs"] = sh["runs"].([]any)[1:]
		}, "is in no shard"},
	}
	for _, tc := range tests {
		var m map[string]any
		if err := json.Unmarshal(orig, &m); err != nil {
			t.Fatal(err)
		}
		tc.edit(m)
		b, _ := json.Marshal(m)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestPrepare(t *testing.T) {
	s := loadSuite(t, "other")
	po := planOpts("all", 1, 0, 1)
	dir, f := newTestFleet(t, s, po, 2)
	for i := 1; i <= 2; i++ {
		if st, err := os.Stat(filepath.Join(dir, ShardDir(i))); err != nil || !st.IsDir() {
			t.Errorf("shard directory %d: %v", i, err)
		}
	}
	// The same fleet again, now with Kubernetes settings: the Slurm
	// section written before is kept, and so is the creation time.
	f.Slurm = &SlurmOptions{JobName: "x"}
	if err := Prepare(dir, f); err != nil {
		t.Fatal(err)
	}
	plan, _ := profile.NewPlan(s, po)
	g, err := New("camp", s, plan, 2, fleetSettings, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.K8s = &K8sOptions{JobName: "y"}
	if err := Prepare(dir, g); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Slurm == nil || got.Slurm.JobName != "x" || got.K8s == nil || !got.Created.Equal(f.Created) {
		t.Errorf("rewritten fleet: slurm %+v, k8s %+v, created %v (first %v)", got.Slurm, got.K8s, got.Created, f.Created)
	}
	// Another plan, shard count or settings is refused.
	other, _ := profile.NewPlan(s, planOpts("none", 1, 0, 1))
	tests := []struct {
		plan *profile.Plan
		n    int
		set  Settings
		want string
	}{
		{other, 2, fleetSettings, "plan changed"},
		{plan, 3, fleetSettings, "2 shards, now 3"},
		{plan, 2, Settings{Device: "cpu", DurationS: 9, Share: "timeslice"}, "settings changed"},
	}
	for _, tc := range tests {
		h, err := New("camp", s, tc.plan, tc.n, tc.set, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := Prepare(dir, h); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "holds another fleet") {
			t.Errorf("%s: %v", tc.want, err)
		}
	}
}

package experiment

import (
	"bytes"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/sim"
)

const (
	gavelData    = "../../datasets/reference/gavel"
	gavelCluster = "../../examples/cluster-gavel.yaml"
)

// Load reads a Gavel trace or a job list, the cluster and the measured
// rates into the experiment; the job list's problems come back as
// warnings, and its jobs without rates end up unrunnable.
func TestExperimentLoad(t *testing.T) {
	x := Experiment{Policies: []string{"fifo", "greedy-pack"}, Options: sim.DefaultOptions, Env: sim.Env{Seed: 1}}
	tr, warns, err := x.Load(Inputs{Trace: "../../examples/traces/physical_cluster/small_test.trace", Cluster: gavelCluster, Data: gavelData})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 || tr.Format != "physical_cluster" || len(x.Jobs) != 20 || x.Topology.Count("v100") != 36 || x.Truth == nil {
		t.Fatalf("trace %s (%s), %d jobs, %d v100, warnings %q", tr.Name, tr.Format, len(x.Jobs), x.Topology.Count("v100"), warns)
	}
	res, err := x.Run()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, tr, x.Topology, res); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, re := range []string{`\(physical_cluster, 20 jobs\) on .* \(36 k80, 36 p100, 36 v100 GPUs\)`, `\n +fifo +20 +0 +\d+\.\d\d `, `\n +greedy-pack +20 +0 `} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("table lacks %s:\n%s", re, text)
		}
	}
	// A terminal of 100 columns shows every row whole (the title names
	// the trace's path and may be longer).
	for _, l := range strings.Split(text, "\n")[1:] {
		if len(l) > 100 {
			t.Errorf("a row of %d columns: %q", len(l), l)
		}
	}
	if !strings.Contains(text, "GPU util by type (busy / effective)") {
		t.Errorf("no table by GPU type:\n%s", text)
	}

	x = Experiment{Policies: []string{"fifo"}, Options: sim.DefaultOptions}
	tr, warns, err = x.Load(Inputs{Trace: "../../examples/jobs.yaml", Cluster: "../../examples/cluster.yaml", Data: gavelData})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != "job list" || !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "job new-bert has no workload of the data") }) {
		t.Errorf("job list: format %q, warnings %q", tr.Format, warns)
	}
	res, err = x.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Unrunnable != 3 {
		t.Errorf("%d unrunnable jobs of the list, want 3 (new-bert, too-big, private-model)", res[0].Unrunnable)
	}

	for _, in := range []Inputs{
		{Trace: "no.trace", Cluster: gavelCluster, Data: gavelData},
		{Trace: "../../examples/jobs.yaml", Cluster: "no.yaml", Data: gavelData},
		{Trace: "../../examples/jobs.yaml", Cluster: gavelCluster, Data: "no-data"},
	} {
		if _, _, err := x.Load(in); err == nil || !strings.Contains(err.Error(), "no") {
			t.Errorf("%+v: error %v, want one naming the missing file", in, err)
		}
	}
}

// Warnings keeps each warning once, in the order first raised.
func TestWarningsOnce(t *testing.T) {
	got := Warnings([]*sim.Result{{Warnings: []string{"a", "b"}}, {Warnings: []string{"b", "c", "a"}}})
	if !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("%q", got)
	}
}

// A dataset in samples/s (what coloc's profiler writes) replays like the
// same rates in iterations/s: Gavel's tables times each job's batch size
// give the same JCTs under every policy that reads rates.
func TestSamplesPerSecondData(t *testing.T) {
	ds, err := datasets.Open(gavelData)
	if err != nil {
		t.Fatal(err)
	}
	batch := map[string]float64{}
	for i := range ds.Solo.Rows {
		r := &ds.Solo.Rows[i]
		if r.BatchSize <= 0 { // A3C and CycleGAN name none
			r.BatchSize = 4
		}
		batch[r.Workload] = float64(r.BatchSize)
		r.Throughput *= batch[r.Workload]
		r.CILow, r.CIHigh = r.CILow*batch[r.Workload], r.CIHigh*batch[r.Workload]
	}
	for i := range ds.Pairs.Rows {
		p := &ds.Pairs.Rows[i]
		p.Solo *= batch[p.Workload]
		p.Colocated *= batch[p.Workload]
	}
	ds.Solo.ThroughputUnit, ds.Pairs.ThroughputUnit = datasets.UnitSamplesPerS, datasets.UnitSamplesPerS
	dir := t.TempDir()
	for name, tab := range map[string]*datasets.Table{"solo.arrow": ds.Solo.Table(), "pairs.arrow": ds.Pairs.Table()} {
		if err := datasets.Write(filepath.Join(dir, name), tab); err != nil {
			t.Fatal(err)
		}
	}
	jct := func(data string) []float64 {
		x := Experiment{Policies: []string{"fifo", "greedy-pack", "oracle"}, Options: sim.DefaultOptions, Env: sim.Env{Seed: 1}}
		if _, _, err := x.Load(Inputs{Trace: "../../examples/traces/physical_cluster/small_test.trace", Cluster: "../../examples/cluster-gavel-16.yaml", Data: data}); err != nil {
			t.Fatal(err)
		}
		res, err := x.Run()
		if err != nil {
			t.Fatal(err)
		}
		var out []float64
		for _, r := range res {
			out = append(out, r.Summary().AvgJCT)
		}
		return out
	}
	want, got := jct(gavelData), jct(dir)
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= 1e-9*want[i]) {
			t.Errorf("policy %d: average JCT %v from samples/s, %v from iterations/s", i, got[i], want[i])
		}
	}
}

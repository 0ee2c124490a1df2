package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
	"github.com/coloc-dev/coloc/sim/policies"
)

func simulateArgs(extra ...string) []string {
	return append([]string{"simulate",
		"--trace", "../../examples/traces/physical_cluster/small_test.trace",
		"--cluster", "../../examples/cluster-gavel.yaml",
		"--data", "../../datasets/reference/gavel"}, extra...)
}

func TestSimulateJSON(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), simulateArgs("--json", "--policy", "fifo,greedy-pack"), nil, &out, &errb)
	if err != nil {
		t.Fatalf("%v (stderr %s)", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one per policy:\n%s", len(lines), out.String())
	}
	for i, want := range []string{"fifo", "greedy-pack"} {
		var s sim.Summary
		if err := json.Unmarshal([]byte(lines[i]), &s); err != nil {
			t.Fatal(err)
		}
		if s.Policy != want || s.Jobs != 20 || !(s.AvgJCT > 0) || s.P95JCT < s.AvgJCT || !(s.Makespan > 0) || !(s.GPUUtil > 0 && s.GPUUtil <= 1) {
			t.Errorf("line %d: %+v", i, s)
		}
		for _, key := range []string{`"avg_jct_s"`, `"p95_jct_s"`, `"makespan_s"`, `"gpu_util"`, `"jobs"`} {
			if !strings.Contains(lines[i], key) {
				t.Errorf("line %d lacks %s", i, key)
			}
		}
	}
}

func TestSimulateTable(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), simulateArgs(), nil, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"small_test.trace (physical_cluster, 20 jobs)", "36 k80, 36 p100, 36 v100", "avg JCT (h)", "fifo", "random-pack", "greedy-pack"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
}

func TestSimulateErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{simulateArgs("--policy", "fifo,lottery"), `unknown policy "lottery"`},
		{simulateArgs("--policy", "coloc"), "policy coloc needs --models"},
		{simulateArgs("--policy", "oracle", "--min-normalized", "1.5"), "min normalized 1.5 (the floor below which no pair shares)"},
		{simulateArgs("--policy", "oracle", "--oracle-noise", "0.6"), "oracle noise 0.6"},
		{simulateArgs("--policy", "oracle", "--oracle-noise", "-0.1"), "oracle noise -0.1"},
		{simulateArgs("--policy", "oracle", "--durations", "guess"), `durations "guess"`},
		{simulateArgs("--policy", "oracle", "--degree", "any"), `degree "any"`},
		{[]string{"simulate", "--trace", "nope.trace", "--cluster", "c", "--data", "d", "--policy", "lottery"}, `unknown policy "lottery"`},
		{simulateArgs("--max-per-gpu", "3"), "max jobs per GPU 3"},
		{[]string{"simulate", "--trace", "nope.trace", "--cluster", "c", "--data", "d"}, "nope.trace"},
	}
	for _, c := range cases {
		err := run(context.Background(), c.args, nil, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args[len(c.args)-2:], err, c.want)
		}
	}
}

// The oracle needs no models.
func TestSimulateOracle(t *testing.T) {
	out, _ := mustRun(t, simulateArgs("--json", "--policy", "oracle,fifo", "--min-normalized", "0.5")...)
	var s sim.Summary
	if err := json.Unmarshal([]byte(strings.Split(out, "\n")[0]), &s); err != nil {
		t.Fatal(err)
	}
	if s.Policy != "oracle" || s.Jobs != 20 || !(s.AvgJCT > 0) {
		t.Errorf("oracle: %+v", s)
	}
}

// A job list is a simulator input too: its jobs without measurements are
// unrunnable, each with its reason.
func TestSimulateJobList(t *testing.T) {
	out, errOut := mustRun(t, "simulate", "--trace", "../../examples/jobs.yaml", "--cluster", "../../examples/cluster.yaml",
		"--data", gavelDir, "--policy", "fifo,oracle", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	var s sim.Summary
	if err := json.Unmarshal([]byte(lines[1]), &s); err != nil {
		t.Fatal(err)
	}
	// new-bert (a descriptor only), too-big (16 GPUs), private-model.
	if s.Policy != "oracle" || s.Jobs != 7 || s.Unrunnable != 3 {
		t.Errorf("oracle on the job list: %+v", s)
	}
	if !strings.Contains(errOut, "job new-bert has no workload of the data") {
		t.Errorf("stderr %q", errOut)
	}
}

// coloc simulate --json prints what the library experiment returns.
func TestSimulateJSONEqualsExperiment(t *testing.T) {
	out, _ := mustRun(t, simulateArgs("--json", "--policy", "fifo,backfill,greedy-pack,oracle", "--degree", "policy")...)
	ds, err := datasets.Open("../../datasets/reference/gavel")
	if err != nil {
		t.Fatal(err)
	}
	truth, err := sim.NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := cluster.Load("../../examples/cluster-gavel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := sim.NewTopology(spec)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := sim.LoadTrace("../../examples/traces/physical_cluster/small_test.trace")
	if err != nil {
		t.Fatal(err)
	}
	x := experiment.Experiment{Jobs: tr.Jobs, Topology: topo, Truth: truth, Options: sim.DefaultOptions,
		Env: sim.Env{Seed: 1}, Config: policies.Config{Durations: "attained"}, Policies: []string{"fifo", "backfill", "greedy-pack", "oracle"}}
	x.Options.Degree = sim.DegreePolicy
	res, err := x.Run()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	for _, r := range res {
		if err := enc.Encode(r.Summary()); err != nil {
			t.Fatal(err)
		}
	}
	if out != want.String() {
		t.Errorf("coloc simulate --json:\n%s\nexperiment:\n%s", out, want.String())
	}
}

// coloc simulate -o writes the replay file: every policy's result with
// every job, whose summaries are what --json prints, and the inputs as
// given. A file that cannot be written is an error naming it.
func TestSimulateOutputReplay(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "replay.json")
	out, _ := mustRun(t, simulateArgs("--json", "--policy", "fifo,greedy-pack,oracle", "--seed", "3", "-o", path)...)
	r, err := experiment.ReadReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	var summaries bytes.Buffer
	enc := json.NewEncoder(&summaries)
	var got []string
	for _, res := range r.Results {
		got = append(got, res.Policy)
		if len(res.Jobs) != 20 {
			t.Errorf("%s: %d jobs, want the trace's 20", res.Policy, len(res.Jobs))
		}
		if err := enc.Encode(res.Summary()); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ",") != "fifo,greedy-pack,oracle" {
		t.Errorf("policies %v", got)
	}
	if summaries.String() != out {
		t.Errorf("the file's summaries:\n%s\n--json:\n%s", summaries.String(), out)
	}
	want := experiment.ReplayTrace{Path: "../../examples/traces/physical_cluster/small_test.trace", Format: "physical_cluster", Jobs: 20}
	if tr := r.Trace; tr.Path != want.Path || tr.Format != want.Format || tr.Jobs != want.Jobs || len(tr.SHA256) != 64 ||
		r.Cluster.Path != "../../examples/cluster-gavel.yaml" || r.Data != "../../datasets/reference/gavel" || r.Models != "" || r.Seed != 3 {
		t.Errorf("inputs: %+v %+v data %q models %q seed %d", r.Trace, r.Cluster, r.Data, r.Models, r.Seed)
	}
	// Without --json the table prints as before, and the file is the same.
	path2 := filepath.Join(dir, "table.json")
	table, _ := mustRun(t, simulateArgs("--policy", "fifo,greedy-pack,oracle", "--seed", "3", "--output", path2)...)
	if !strings.Contains(table, "avg JCT (h)") {
		t.Errorf("no table:\n%s", table)
	}
	a, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("the same replay wrote two different files")
	}
	bad := filepath.Join(path, "replay.json") // under a file
	err = run(context.Background(), simulateArgs("--policy", "fifo", "-o", bad), nil, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("-o under a file: %v", err)
	}
}

// The 29 multi-GPU jobs of minimize_makespan on 16 GPUs: greedy-pack
// packs them only with --assume-multi-gpu-pairs (Gavel measured no
// multi-GPU pair), each counted in assumed_jobs and warned about.
func TestSimulateAssumeMultiGPUPairs(t *testing.T) {
	args := []string{"simulate", "--trace", "../../examples/traces/physical_cluster/minimize_makespan.trace",
		"--cluster", "../../examples/cluster-gavel-16.yaml", "--data", "../../datasets/reference/gavel", "--policy", "greedy-pack", "--json"}
	for _, c := range []struct {
		flag    string
		assumed int
	}{{"--assume-multi-gpu-pairs=false", 0}, {"--assume-multi-gpu-pairs=true", 29}} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), append(args, c.flag), nil, &out, &errb); err != nil {
			t.Fatalf("%s: %v (stderr %s)", c.flag, err, errb.String())
		}
		var s sim.Summary
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(errb.String(), "shared GPUs on assumed rates")
		if s.Assumed != c.assumed || warned != (c.assumed > 0) {
			t.Errorf("%s: assumed_jobs %d (warned %v), want %d", c.flag, s.Assumed, warned, c.assumed)
		}
	}
	out, _ := mustRun(t, "simulate", "assumption", "--data", "../../datasets/reference/gavel")
	if !strings.Contains(out, "no status-ok pair measured on more than one GPU (of its 6282 pair rows on more than one GPU: 6282 infeasible)") {
		t.Errorf("simulate assumption on Gavel: %q", out)
	}
}

// simulate budget writes the page and its figure, the page linking the
// figure from its own directory, and a rerun resumes from the checkpoint
// (no model fitted again).
func TestSimulateBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("fits and simulates twice (10 s); not in -short")
	}
	dir := t.TempDir()
	page, fig, work := filepath.Join(dir, "docs", "budget.md"), filepath.Join(dir, "figs", "budget"), filepath.Join(dir, "work")
	args := []string{"simulate", "budget", "--traces", "../../examples/traces/msr/103959.trace", "--clusters", "../../examples/cluster-gavel-16.yaml",
		"--data", refGavel, "--degree", "trace", "--max-jobs", "30", "--devices", "p100", "--fractions", "0,0.2", "--orders", "random", "--seeds", "1",
		"--work", work, "--markdown", page, "--figure", fig}
	_, stderr := mustRun(t, args...)
	if n := strings.Count(stderr, "fitting on"); n != 3 {
		t.Errorf("%d fits, want the reference, 0%% and 20%%:\n%s", n, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"](../figs/budget.svg)", "## p100 (", "| random |", "--fractions 0,0.2", "coloc-no-sharing"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("page lacks %q:\n%s", want, b)
		}
	}
	for _, ext := range []string{".svg", ".png", ".csv"} {
		if _, err := os.Stat(fig + ext); err != nil {
			t.Error(err)
		}
	}
	_, stderr = mustRun(t, args...)
	if strings.Contains(stderr, "fitting on") {
		t.Errorf("the rerun fitted again:\n%s", stderr)
	}
}

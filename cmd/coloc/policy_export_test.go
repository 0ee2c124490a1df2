package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/policy"
)

// fastModels fits the cheap models the export tests use into a
// temporary directory (the decisions on the examples rest on measured
// pairs, so they do not depend on the models).
func fastModels(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "m")
	mustRun(t, "fit", "--data", gavelDir, "-o", dir, "--models", "bias,linear,similarity")
	return dir
}

func exportArgs(t *testing.T, models, out string, extra ...string) []string {
	return append([]string{"policy", "export", "--cluster", "../../examples/cluster.yaml", "--jobs", "../../examples/jobs.yaml",
		"--models", models, "--data", gavelDir, "--cluster-model", "bias", "--node-model", "linear", "-o", out}, extra...)
}

func TestPolicyExportSummaryGolden(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	out := filepath.Join(t.TempDir(), "policy.json")
	models := fastModels(t)
	stdout, _ := mustRun(t, exportArgs(t, models, out)...)
	golden(t, "testdata/policy_export.golden", strings.ReplaceAll(stdout, out, "OUT"))
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var f policy.File
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if f.Format != policy.Format || f.Version != policy.Version || f.Provenance.Created != "2026-01-01T00:00:00Z" || len(f.Decisions) != 10 {
		t.Errorf("file %s v%d created %s, %d decisions", f.Format, f.Version, f.Provenance.Created, len(f.Decisions))
	}
	// What the export writes passes the JSON Schema and the reader's checks.
	if stdout, _ := mustRun(t, "policy", "validate", out); !strings.Contains(stdout, ": ok (") {
		t.Errorf("policy validate on the export: %q", stdout)
	}
	// The same inputs give the same bytes.
	out2 := filepath.Join(t.TempDir(), "again.json")
	mustRun(t, exportArgs(t, models, out2)...)
	b2, _ := os.ReadFile(out2)
	if string(b) != string(b2) {
		t.Error("two exports of the same inputs differ")
	}
}

func TestPolicyExportThresholdFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	mustRun(t, exportArgs(t, fastModels(t), out, "--max-per-gpu", "1", "--min-normalized", "0.9", "--efficiency", "0.95")...)
	b, _ := os.ReadFile(out)
	var f policy.File
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if f.Thresholds.MaxPerGPU != 1 || f.Thresholds.MinNormalized != 0.9 || f.Thresholds.ScalingEfficiency != 0.95 {
		t.Errorf("thresholds %+v", f.Thresholds)
	}
	for _, d := range f.Decisions {
		if len(d.ColocatedWith) > 0 {
			t.Errorf("job %s shares a GPU with --max-per-gpu 1", d.Job)
		}
	}
}

func TestPolicyExportErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\njobs:\n  - {id: a, workload: A3C, steps: 1, colour: red}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "p.json")
	models := fastModels(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"policy", "export", "--cluster", "../../examples/cluster.yaml", "--jobs", bad, "--models", models, "--data", gavelDir, "-o", out},
			`bad.yaml: line 3: job entry: unknown field "colour"`},
		{[]string{"policy", "export", "--cluster", "../../examples/jobs.yaml", "--jobs", "../../examples/jobs.yaml", "--models", models, "--data", gavelDir, "-o", out},
			"field jobs not found"},
		{[]string{"policy", "export", "--cluster", "../../examples/cluster.yaml", "--jobs", "../../examples/jobs.yaml", "--models", models, "--data", gavelDir, "-o", out},
			"no model iasp"},
		{exportArgs(t, models, out, "--min-normalized", "2"), "min normalized throughput 2"},
		{[]string{"policy", "export", "--cluster", "../../examples/cluster.yaml"}, `required flag(s) "data", "jobs", "models", "out" not set`},
	}
	for _, c := range cases {
		_, _, err := runCmd(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args[2:4], err, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed export wrote its output")
	}
}

func TestPolicyHelpTeaches(t *testing.T) {
	out, _ := mustRun(t, "policy", "export", "--help")
	for _, want := range []string{"decision-core", "completion-time", "waits", "--min-normalized", "unplaceable", "examples/jobs.yaml", "SOURCE_DATE_EPOCH"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// The busy example (more GPUs asked than examples/cluster.yaml has)
// exports a policy where jobs share GPUs, never two whose memory_gb
// exceed the GPU's 16 GB together.
func TestPolicyExportBusyExampleShares(t *testing.T) {
	out := filepath.Join(t.TempDir(), "busy.json")
	mustRun(t, "policy", "export", "--cluster", "../../examples/cluster.yaml", "--jobs", "../../examples/jobs-busy.yaml",
		"--models", fastModels(t), "--data", gavelDir, "--cluster-model", "bias", "--node-model", "linear", "-o", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var f policy.File
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	mem := map[string]float64{"transformer-2gpu": 6, "big-a": 10, "big-b": 10, "big-c": 10, "resnet50-a": 8, "resnet50-b": 8}
	shared := 0
	for _, d := range f.Decisions {
		for _, q := range d.ColocatedWith {
			shared++
			if mem[d.Job]+mem[q] > 16 {
				t.Errorf("%s shares with %s: %g + %g GB on a 16 GB GPU", d.Job, q, mem[d.Job], mem[q])
			}
		}
	}
	if shared == 0 {
		t.Error("no job of the busy example shares a GPU")
	}
}

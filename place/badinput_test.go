package place

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
)

// Bad input gets a clear error, or an unplaceable decision with its
// reason; never a panic.
func TestBadInput(t *testing.T) {
	models := fastModels(t)
	spec := func(text string) (*cluster.Spec, error) { return cluster.Parse(strings.NewReader(text), "c.yaml") }
	small := "version: 1\nnodes:\n  - {name: v, gpu_type: v100, gpus: 4, gpu_memory_gb: 16}\n"
	run := func(specText, jobsText string, th policy.Thresholds) (*policy.File, error) {
		s, err := spec(specText)
		if err != nil {
			return nil, err
		}
		l, err := jobs.Parse(strings.NewReader(jobsText), "test.yaml")
		if err != nil {
			return nil, err
		}
		return Export(Input{Cluster: s, Jobs: l, Data: gavelData(t), Models: models}, ExportOptions{Thresholds: th, Now: fixedNow})
	}
	job := func(fields string) string { return "version: 1\njobs:\n  - {id: j, steps: 10, " + fields + "}\n" }
	def := policy.DefaultThresholds
	cases := []struct {
		name, spec, jobs string
		th               policy.Thresholds
		err              string // a substring of the error, or
		reason           string // of the decision of job j
		warning          string // of the file
	}{
		{name: "more GPUs than exist", spec: small, jobs: job(`workload: "ResNet-50 (batch size 64)", degrees: [8]`),
			reason: "needs at least 8 GPUs of one type; the cluster has at most 4 (v100)"},
		{name: "unknown GPU type", spec: "version: 1\nnodes:\n  - {name: a, gpu_type: a100, gpus: 8}\n", jobs: job("workload: A3C"),
			reason: "a100: no measured throughput of A3C at 1 GPU(s)", warning: `GPU type "a100" of the cluster has no measurement in the data: no job is placed on its 8 GPUs`},
		{name: "neither measurements nor descriptor", spec: small, jobs: job("workload: mystery"),
			reason: `workload "mystery" has no measurements in the data and the job gives no model descriptor`},
		{name: "memory larger than any GPU", spec: small, jobs: job("workload: A3C, memory_gb: 40"),
			reason: "v100: needs 40 GB per GPU, its GPUs have 16 GB"},
		{name: "malformed spec", spec: "version: 1\nnodes:\n  - {name: v, gpu_type: v100, gpus: four}\n", jobs: job("workload: A3C"),
			err: "c.yaml: yaml: unmarshal errors:\n  line 3: cannot unmarshal !!str `four` into int"},
		{name: "spec without GPUs", spec: "version: 1\nnodes:\n  - {name: v, gpu_type: v100}\n", jobs: job("workload: A3C"),
			err: `c.yaml: line 3: node 1 ("v"): gpus must be at least 1, got 0`},
		{name: "malformed job list", spec: small, jobs: "version: 1\njobs:\n  - {id: j, workload: A3C, steps: many}\n",
			err: "test.yaml: yaml: unmarshal errors:\n  line 3: cannot unmarshal !!str `many` into int64"},
		{name: "job list with an unknown key", spec: small, jobs: "version: 1\njobs:\n  - {id: j, workload: A3C, steps: 1, gpu_type: v100}\n",
			err: `test.yaml: line 3: job entry: unknown field "gpu_type"`},
		{name: "bad thresholds", spec: small, jobs: job("workload: A3C"), th: policy.Thresholds{MaxPerGPU: 2, MinNormalized: 1.5, ScalingEfficiency: 0.7, SimilarityK: 3},
			err: "min normalized throughput 1.5"},
	}
	for _, c := range cases {
		th := c.th
		if th == (policy.Thresholds{}) {
			th = def
		}
		f, err := run(c.spec, c.jobs, th)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		d := decisionOf(t, f, "j")
		if d.Status != policy.StatusUnplaceable || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%s: decision %+v, want unplaceable: %s", c.name, d, c.reason)
		}
		if c.warning != "" && !strings.Contains(strings.Join(f.Warnings, "\n"), c.warning) {
			t.Errorf("%s: warnings %q lack %q", c.name, f.Warnings, c.warning)
		}
	}
}

func TestBadDirectories(t *testing.T) {
	empty := t.TempDir()
	if _, err := LoadData([]string{filepath.Join(empty, "none")}); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing data directory: %v", err)
	}
	if _, err := LoadData([]string{empty}); err == nil || !strings.Contains(err.Error(), "no tables") {
		t.Errorf("empty data directory: %v", err)
	}
	if _, err := LoadModels(empty, DefaultModelNames); err == nil || !strings.Contains(err.Error(), "index.json") {
		t.Errorf("empty model directory: %v", err)
	}
	dir := fitGavel(t, "bias", "linear", "similarity")
	if _, err := LoadModels(dir, DefaultModelNames); err == nil || !strings.Contains(err.Error(), "no model") || !strings.Contains(err.Error(), "coloc fit") {
		t.Errorf("model directory without iasp: %v", err)
	}
	// A directory without the similarity model loads, with a warning.
	noSim := t.TempDir()
	for _, f := range []string{"index.json", "bias.json", "linear.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "index.json" {
			b = []byte(strings.Replace(string(b), `"name": "similarity"`, `"name": "similarity-gone"`, 1))
		}
		if err := os.WriteFile(filepath.Join(noSim, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := LoadModels(noSim, fastNames)
	if err != nil {
		t.Fatal(err)
	}
	if m.Similarity != nil || len(m.Warnings) != 1 {
		t.Errorf("similarity %v, warnings %q", m.Similarity, m.Warnings)
	}
	in := loadInput(t, exampleSpec, exampleJobs, m)
	f := export(t, in)
	if d := decisionOf(t, f, "new-bert"); d.Status != policy.StatusUnplaceable || !strings.Contains(d.Reason, "no similarity model") {
		t.Errorf("new-bert without a similarity model: %+v", d)
	}
	if len(f.Similarity.References) != 0 {
		t.Errorf("%d references without a similarity model", len(f.Similarity.References))
	}
}

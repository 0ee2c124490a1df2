package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/model/eval"
)

const gavelDir = "../../datasets/reference/gavel"

// The shape and values of `coloc eval --json`: one object per (model,
// protocol, device, fraction) with the fields schedulers and reports read,
// the coverage and width of calibrated intervals (--folds 10) included.
func TestEvalJSONGolden(t *testing.T) {
	out, _, err := runCmd(t, "eval", "--data", gavelDir, "--models", "mean,bias", "--fractions", "0.2,0.5",
		"--seeds", "2", "--device", "k80,v100", "--folds", "10", "--json", "-q")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2*2*2 {
		t.Fatalf("%d lines, want 8 (2 models x 2 devices x 2 fractions)", len(lines))
	}
	for _, l := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		for _, k := range []string{"model", "protocol", "device", "fraction", "n_test", "mae_median", "rmse_median"} {
			if _, ok := obj[k]; !ok {
				t.Errorf("%q has no %s", l, k)
			}
		}
	}
	golden(t, "testdata/eval.json.golden", out)
}

func TestEvalWritesVersionedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eval.arrow")
	_, stderr, err := runCmd(t, "eval", "--data", gavelDir, "--models", "mean", "--fractions", "0.5", "--seeds", "1",
		"--device", "p100,k80", "--protocol", "pairs,cross-device", "-o", path)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := features.ReadTable(path, eval.TableName, eval.TableVersion)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tab.Column("mae").Float); n != 4 {
		t.Errorf("%d rows, want 4 (2 protocols x 2 devices)", n)
	}
	if _, err := features.ReadTable(path, eval.TableName, eval.TableVersion+1); err == nil {
		t.Error("the eval file is read as another version")
	}
	if !strings.Contains(stderr, "eval: mean") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	if _, _, err := runCmd(t, "eval", "--data", gavelDir, "--fractions", "1.5"); err == nil {
		t.Error("a fraction of 1.5 is accepted")
	}
	if _, _, err := runCmd(t, "eval", "--data", gavelDir, "--protocol", "loo"); err == nil {
		t.Error("an unknown protocol is accepted")
	}
}

// --versus adds the ratio row to the Markdown tables, one per
// occurrence, and is refused, before anything is fit, without --markdown,
// with an empty group, naming a model not evaluated, or when the groups
// name every model evaluated.
func TestEvalVersusRow(t *testing.T) {
	out, _, err := runCmd(t, "eval", "--data", gavelDir, "--models", "mean,bias", "--fractions", "0.5",
		"--seeds", "1", "--device", "k80", "--folds", "0", "--markdown", "--versus", "mean", "-q")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "| best / best of mean | 0.") || !strings.Contains(out, " (bias) |") {
		t.Errorf("no ratio row of bias over mean:\n%s", out)
	}
	out, _, err = runCmd(t, "eval", "--data", gavelDir, "--models", "mean,bias,pmf", "--fractions", "0.5",
		"--seeds", "1", "--device", "k80", "--folds", "0", "--markdown", "--versus", "mean", "--versus", "pmf", "-q")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "| best / best of mean | 0.") || !strings.Contains(out, "| best / best of pmf | ") || strings.Count(out, " (bias) |") != 2 {
		t.Errorf("want one ratio row of bias per --versus group:\n%s", out)
	}
	for _, bad := range [][]string{
		{"--versus", "mean"},
		{"--markdown", "--versus", ""},
		{"--markdown", "--versus", "mean", "--versus", "bias"},
		{"--markdown", "--versus", "gbt"},
		{"--markdown", "--versus", "bias,mean"},
	} {
		args := append([]string{"eval", "--data", gavelDir, "--models", "mean,bias", "--fractions", "0.5", "--seeds", "1", "--device", "k80", "-q"}, bad...)
		if _, _, err := runCmd(t, args...); err == nil || !strings.Contains(err.Error(), "--versus") {
			t.Errorf("%v: err %v, want one about --versus", bad, err)
		}
	}
}

func TestFitPredictSimilar(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "models")
	out, _, err := runCmd(t, "fit", "--data", gavelDir, "-o", dir, "--models", "bias,similarity")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 models") {
		t.Errorf("fit output %q", out)
	}
	out, _, err = runCmd(t, "predict", "--models", dir, "--device", "v100", "ResNet-50 (batch size 64)", "LM (batch size 20)")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"bias", "similarity", "A|B", "B|A"} {
		if !strings.Contains(out, w) {
			t.Errorf("predict output lacks %q:\n%s", w, out)
		}
	}
	if _, _, err := runCmd(t, "predict", "--models", dir, "--device", "v100", "ResNet-50 (batch size 64)", "GPT-9"); err == nil || !strings.Contains(err.Error(), `unknown job "GPT-9"`) {
		t.Errorf("unknown job: %v", err)
	}
	// With --data, the data the models were fit on are checked: the same
	// dataset passes, another (the same measurements less one pair) is
	// refused.
	if _, stderr, err := runCmd(t, "predict", "--models", dir, "--data", gavelDir, "--device", "v100", "ResNet-50 (batch size 64)", "LM (batch size 20)"); err != nil || strings.Contains(stderr, "not checked") {
		t.Errorf("predict --data with the fit's data: %v %s", err, stderr)
	}
	if _, stderr, _ := runCmd(t, "predict", "--models", dir, "--device", "v100", "ResNet-50 (batch size 64)", "LM (batch size 20)"); !strings.Contains(stderr, "note: the data the models of "+dir+" were fit on were not checked") {
		t.Errorf("predict without --data: stderr %q", stderr)
	}
	other := filepath.Join(t.TempDir(), "other")
	mustRun(t, "datasets", "import", "gavel", gavelDir+"/upstream/simulation_throughputs.json", "-o", other)
	dropLastPair(t, filepath.Join(other, "pairs.arrow"))
	if _, _, err := runCmd(t, "predict", "--models", dir, "--data", other, "--device", "v100", "ResNet-50 (batch size 64)", "LM (batch size 20)"); err == nil || !strings.Contains(err.Error(), "not the data the models of "+dir+" were fit on") || !strings.Contains(err.Error(), "pairs.arrow has SHA-256") {
		t.Errorf("predict --data with other data: %v", err)
	}
	out, _, err = runCmd(t, "similar", "--models", dir, "--k", "2", "ResNet-50 (batch size 48)")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "ResNet-50 (batch size 64)") || !strings.Contains(out, "suggested: v100") {
		t.Errorf("similar output:\n%s", out)
	}
	meta := filepath.Join(t.TempDir(), "workloads.json")
	os.WriteFile(meta, []byte(`{"format":"coloc.workloads","version":1,"workloads":[{"workload":"bert-b32","class":"transformer","params":1.1e8,"forward_flops_per_sample":2.2e10,`+
		`"layers":{"attention":12,"linear":49},"batch_size":32,"precision":"fp32"}]}`), 0o644)
	out, _, err = runCmd(t, "similar", "--models", dir, "--meta", meta, "--k", "1", "bert-b32")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Transformer (batch size 32)") {
		t.Errorf("nearest model to a BERT described by --meta:\n%s", out)
	}
	if _, _, err := runCmd(t, "similar", "--models", dir, "--distance", "chebyshev", "A3C"); err == nil {
		t.Error("an unknown distance is accepted")
	}
}

func TestFeaturesBuild(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.arrow")
	out, _, err := runCmd(t, "features", "build", "--data", gavelDir, "-o", path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "489 rows, 13 features") {
		t.Errorf("output %q", out)
	}
}

// dropLastPair rewrites the pairs table at path without its last row.
func dropLastPair(t *testing.T, path string) {
	t.Helper()
	tab, err := datasets.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := datasets.PairsFrom(tab)
	if err != nil {
		t.Fatal(err)
	}
	pairs.Rows = pairs.Rows[:len(pairs.Rows)-1]
	if err := datasets.Write(path, pairs.Table()); err != nil {
		t.Fatal(err)
	}
}

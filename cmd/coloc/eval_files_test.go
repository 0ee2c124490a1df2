package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/model/eval/evalfile"
)

// `coloc eval --predictions` writes the held-out predictions of one split
// of protocol pairs, those eval.Predict makes, beside -o's scores; its
// split flags choose the split.
func TestEvalWritesPredictions(t *testing.T) {
	dir := t.TempDir()
	scores, preds := filepath.Join(dir, "eval.arrow"), filepath.Join(dir, "predictions.arrow")
	_, stderr := mustRun(t, "eval", "--data", gavelDir, "--models", "mean", "--fractions", "0.5", "--seeds", "1", "--folds", "0",
		"--device", "k80", "-o", scores, "--predictions", preds, "--split-fraction", "0.2", "--split-seed", "3")
	if !strings.Contains(stderr, "predictions of held-out pairs (protocol pairs, fraction 0.2, seed 3) written to "+preds) {
		t.Errorf("stderr does not report the predictions file:\n%s", stderr)
	}
	if _, err := eval.Read(scores); err != nil {
		t.Error(err)
	}
	got, err := evalfile.ReadPredictions(preds)
	if err != nil {
		t.Fatal(err)
	}
	sp := eval.Split{Protocol: "pairs", Device: "k80", Fraction: 0.2, Seed: 3}
	d, err := model.LoadData(gavelDir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := eval.Predict(d, []string{"mean"}, sp)
	if err != nil {
		t.Fatal(err)
	}
	if got.Split != sp || !reflect.DeepEqual(got.Rows, want) || len(want) == 0 {
		t.Errorf("the file holds split %+v and %d rows, want %+v and eval.Predict's %d", got.Split, len(got.Rows), sp, len(want))
	}

	// The defaults: fraction 0.5, seed 1.
	mustRun(t, "eval", "--data", gavelDir, "--models", "bias", "--fractions", "0.5", "--seeds", "1", "--folds", "0",
		"--device", "v100", "-q", "--predictions", preds)
	if got, err = evalfile.ReadPredictions(preds); err != nil {
		t.Fatal(err)
	}
	if want := (eval.Split{Protocol: "pairs", Device: "v100", Fraction: 0.5, Seed: 1}); got.Split != want || len(got.Rows) == 0 || got.Rows[0].Model != "bias" {
		t.Errorf("split %+v with %d rows, want %+v", got.Split, len(got.Rows), want)
	}
}

// `coloc eval --protocol active -o` writes the learning curves it prints.
func TestEvalActiveWritesCurves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "active.json")
	out, _ := mustRun(t, "eval", "--data", gavelDir, "--protocol", "active", "--models", "mean", "--seeds", "1", "--device", "k80", "-q", "-o", path)
	f, err := evalfile.ReadActive(path)
	if err != nil {
		t.Fatal(err)
	}
	res, key := f.Result, f.Key
	if f.Options.Seeds != 1 || !slices.Equal(f.Options.Devices, []string{"k80"}) {
		t.Errorf("options %+v, want seeds 1 on k80", f.Options)
	}
	if key != "" || res.Model != "mean" || len(res.Points) == 0 || len(res.Summaries) == 0 {
		t.Fatalf("key %q, model %q, %d points, %d summaries: want no key, model mean and curves", key, res.Model, len(res.Points), len(res.Summaries))
	}
	for _, s := range res.Summaries {
		if s.Device != "k80" {
			t.Errorf("a summary of device %s, want k80 only", s.Device)
		}
	}
	if _, ok := res.Reference["k80"]; !ok {
		t.Error("no reference for k80")
	}
	var printed strings.Builder
	if err := res.WriteText(&printed); err != nil {
		t.Fatal(err)
	}
	if printed.String() != out {
		t.Errorf("the file's curves print otherwise than the command did:\n%s\nwant:\n%s", printed.String(), out)
	}
}

// The split flags are checked before anything is read or fit (the data
// directory does not exist), and nothing is written.
func TestEvalPredictionsFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	preds := filepath.Join(dir, "p.arrow")
	missing := filepath.Join(dir, "no-such-dataset")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--predictions", preds, "--split-fraction", "1"}, "--split-fraction 1: want a fraction in [0, 1)"},
		{[]string{"--predictions", preds, "--split-fraction", "-0.1"}, "--split-fraction"},
		{[]string{"--predictions", preds, "--split-seed", "0"}, "--split-seed 0: want 1 or more"},
		{[]string{"--split-seed", "2"}, "--split-seed chooses the split of --predictions"},
		{[]string{"--split-fraction", "0.2"}, "--split-fraction chooses the split of --predictions"},
		{[]string{"--predictions", preds, "--protocol", "new-job"}, "--predictions writes a split of protocol pairs"},
		{[]string{"--predictions", preds, "--protocol", "all"}, "not all"},
		{[]string{"--predictions", preds, "--protocol", "active"}, "not active"},
	} {
		args := append([]string{"eval", "--data", missing, "--models", "mean", "-q"}, tc.args...)
		_, _, err := runCmd(t, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(preds); err == nil {
			t.Fatalf("%v: the predictions file was written", tc.args)
		}
	}
}

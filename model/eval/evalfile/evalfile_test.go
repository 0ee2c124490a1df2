package evalfile

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
)

const gavel = "../../../datasets/reference/gavel"

var gavelData = sync.OnceValues(func() (*model.Data, error) { return model.LoadData(gavel) })

func loadGavel(t *testing.T) *model.Data {
	t.Helper()
	d, err := gavelData()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// PredictSplit returns what one eval.Predict per device returns, in
// device order, whatever the number of workers.
func TestPredictSplitIsPredictPerDevice(t *testing.T) {
	d := loadGavel(t)
	models, devices := []string{"mean", "bias"}, []string{"v100", "k80"}
	var want []eval.Prediction
	for _, dev := range devices {
		ps, err := eval.Predict(d, models, eval.Split{Protocol: "pairs", Device: dev, Fraction: 0.5, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ps...)
	}
	if len(want) == 0 {
		t.Fatal("no predictions")
	}
	for _, workers := range []int{1, 3} {
		got, err := PredictSplit(d, models, devices, 0.5, 3, workers)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d workers: %d predictions differ from eval.Predict per device (%d)", workers, len(got), len(want))
		}
	}
	if _, err := PredictSplit(d, []string{"mean"}, []string{"k80"}, 1, 1, 1); err == nil {
		t.Error("a fraction of 1 is accepted")
	}
	if _, err := PredictSplit(d, []string{"mean"}, []string{"h100x"}, 0.5, 1, 1); err == nil {
		t.Error("an unknown device is accepted")
	}
}

// No devices means the default devices.
func TestPredictSplitDefaultDevices(t *testing.T) {
	d := loadGavel(t)
	got, err := PredictSplit(d, []string{"mean"}, nil, 0.5, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var devices []string
	for _, p := range got {
		if !slices.Contains(devices, p.Device) {
			devices = append(devices, p.Device)
		}
	}
	if want := eval.DefaultDevices(d); !slices.Equal(devices, want) {
		t.Errorf("devices %v, want the default devices %v", devices, want)
	}
}

// Predictions of the shipped data read back exactly, with the split and
// the warnings; the device is the rows' when they share one, "" when
// they span several.
func TestPredictionsRoundTrip(t *testing.T) {
	d := loadGavel(t)
	rows, err := PredictSplit(d, []string{"bias"}, []string{"k80"}, 0.2, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "predictions.arrow")
	want := &Predictions{
		Split:    eval.Split{Protocol: "pairs", Device: "k80", Fraction: 0.2, Seed: 2},
		Rows:     rows,
		Warnings: []string{"first warning", "second: with, punctuation"},
	}
	if err := WritePredictions(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPredictions(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v\nwant %+v", got.Split, want.Split)
	}

	several := &Predictions{Split: eval.Split{Protocol: "new-job", Fraction: 0.1, Seed: 7}, Rows: []eval.Prediction{
		{Model: "mean", Device: "k80", Workload: "A", Partner: "B", Measured: 0.7, Predicted: 1.0 / 3},
		{Model: "mean", Device: "v100", Workload: "B", Partner: "A", Measured: 1e-300, Predicted: 0},
	}}
	if err := WritePredictions(path, several); err != nil {
		t.Fatal(err)
	}
	if got, err = ReadPredictions(path); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, several) {
		t.Errorf("read back %+v\nwant %+v", got, several)
	}
}

// goodTable is a valid predictions table of two rows, for tests to break.
func goodTable() *features.Table {
	return &features.Table{Name: predictionsTable, Version: predictionsVersion,
		Meta: map[string]string{metaProtocol: "pairs", metaFraction: "0.5", metaSeed: "1"},
		Columns: []features.TableColumn{
			{Name: "model", Str: []string{"mean", "mean"}},
			{Name: "device", Str: []string{"k80", "k80"}},
			{Name: "workload", Str: []string{"A", "B"}},
			{Name: "partner", Str: []string{"B", "A"}},
			{Name: "measured", Float: []float64{0.9, 0.8}},
			{Name: "predicted", Float: []float64{0.85, 0.85}},
		}}
}

// Every refusal of ReadPredictions names the file, and the row and
// column of a bad row.
func TestReadPredictionsRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.arrow")
	if err := features.WriteTable(path, goodTable()); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPredictions(path); err != nil {
		t.Fatalf("the valid table is refused: %v", err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(t *features.Table)
		want   []string
	}{
		{"another table", func(t *features.Table) { t.Name = "eval" }, []string{`"eval"`, `"predictions"`}},
		{"another version", func(t *features.Table) { t.Version = 2 }, []string{"version"}},
		{"no protocol", func(t *features.Table) { delete(t.Meta, metaProtocol) }, []string{metaProtocol, "missing"}},
		{"unknown protocol", func(t *features.Table) { t.Meta[metaProtocol] = "loo" }, []string{`"loo"`}},
		{"fraction 1", func(t *features.Table) { t.Meta[metaFraction] = "1" }, []string{"fraction 1 "}},
		{"fraction not a number", func(t *features.Table) { t.Meta[metaFraction] = "half" }, []string{metaFraction, `"half"`}},
		{"seed 0", func(t *features.Table) { t.Meta[metaSeed] = "0" }, []string{"seed 0"}},
		{"no predicted column", func(t *features.Table) { t.Columns = t.Columns[:5] }, []string{"column predicted: missing"}},
		{"device not strings", func(t *features.Table) { t.Columns[1] = features.TableColumn{Name: "device", Int: []int64{1, 2}} }, []string{"column device", "string"}},
		{"empty workload", func(t *features.Table) { t.Columns[2].Str[1] = "" }, []string{"row 2", "column workload: empty"}},
		{"empty model", func(t *features.Table) { t.Columns[0].Str[0] = "" }, []string{"row 1", "column model: empty"}},
		{"NaN predicted", func(t *features.Table) { t.Columns[5].Float[1] = math.NaN() }, []string{"row 2", "column predicted", "NaN"}},
		{"null measured", func(t *features.Table) { t.Columns[4].Float[0] = math.NaN() }, []string{"row 1", "column measured", "NaN"}},
	} {
		tab := goodTable()
		tc.mutate(tab)
		if err := features.WriteTable(path, tab); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_, err := ReadPredictions(path)
		refused(t, tc.name, err, append([]string{path}, tc.want...)...)
	}
	if _, err := ReadPredictions(filepath.Join(dir, "none.arrow")); err == nil || !strings.Contains(err.Error(), "none.arrow") {
		t.Errorf("a missing file: %v", err)
	}
}

// WritePredictions refuses what ReadPredictions would refuse, and writes
// nothing then.
func TestWritePredictionsRefuses(t *testing.T) {
	good := eval.Prediction{Model: "mean", Device: "k80", Workload: "A", Partner: "B", Measured: 0.9, Predicted: 0.8}
	split := eval.Split{Protocol: "pairs", Device: "k80", Fraction: 0.5, Seed: 1}
	nan := good
	nan.Predicted = math.NaN()
	other := good
	other.Device = "v100"
	for _, tc := range []struct {
		name string
		p    *Predictions
		want string
	}{
		{"nil", nil, "no predictions"},
		{"protocol all", &Predictions{Split: eval.Split{Protocol: "all", Fraction: 0.5, Seed: 1}}, `"all"`},
		{"seed 0", &Predictions{Split: eval.Split{Protocol: "pairs", Fraction: 0.5}}, "seed 0"},
		{"NaN prediction", &Predictions{Split: split, Rows: []eval.Prediction{good, nan}}, "row 2: column predicted"},
		{"another device", &Predictions{Split: split, Rows: []eval.Prediction{other}}, `row 1: device "v100"`},
	} {
		path := filepath.Join(t.TempDir(), "p.arrow")
		err := WritePredictions(path, tc.p)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming the file and saying %q", tc.name, err, tc.want)
		}
		if _, serr := os.Stat(path); serr == nil {
			t.Errorf("%s: a file was written", tc.name)
		}
	}
}

// activeResult is a small result of eval.RunActive's shape with one
// device whose reference could not be computed.
func activeResult() *eval.ActiveResult {
	return &eval.ActiveResult{
		Model: "iasp",
		Points: []eval.CurvePoint{
			{Strategy: "width", Device: "k80", Seed: 1, Fraction: 0.05, Pairs: 3, MAE: 0.1234567890123},
			{Strategy: "random", Device: "k80", Seed: 1, Fraction: 0.1, Pairs: 6, MAE: 1.0 / 3},
		},
		Summaries: []eval.CurveSummary{
			{Strategy: "random", Device: "k80", Fraction: 0.1, Seeds: 1, MAEMedian: 1.0 / 3},
			{Strategy: "width", Device: "k80", Fraction: 0.05, Seeds: 1, MAEMedian: 0.1234567890123},
		},
		Reference: map[string]float64{"k80": 0.0625, "p100": math.NaN()},
		Warnings:  []string{"active on v100: 2 measured pairs are too few to simulate; skipped"},
	}
}

// sameActive compares two results, NaN equal to NaN.
func sameActive(t *testing.T, got, want *eval.ActiveResult) {
	t.Helper()
	if got.Model != want.Model || !reflect.DeepEqual(got.Points, want.Points) || !reflect.DeepEqual(got.Summaries, want.Summaries) ||
		!reflect.DeepEqual(got.Warnings, want.Warnings) || len(got.Reference) != len(want.Reference) {
		t.Errorf("read back %+v\nwant %+v", got, want)
	}
	for dev, w := range want.Reference {
		g, ok := got.Reference[dev]
		if !ok || !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
			t.Errorf("reference of %s: %v (present %v), want %v", dev, g, ok, w)
		}
	}
}

// testOptions are options RunActive could have run with.
func testOptions() eval.ActiveOptions {
	o := eval.DefaultActiveOptions
	o.Model, o.Seeds, o.Devices = "iasp", 2, []string{"k80", "p100"}
	return o
}

// Learning curves read back exactly with their options, a NaN reference
// as null, with the key given (empty or not).
func TestActiveRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, key := range []string{"", "0123abcd"} {
		path := filepath.Join(dir, "active.json")
		want := activeResult()
		if err := WriteActive(path, &Active{Options: testOptions(), Result: want, Key: key}); err != nil {
			t.Fatal(err)
		}
		got, err := ReadActive(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Key != key {
			t.Errorf("key %q, want %q", got.Key, key)
		}
		if !reflect.DeepEqual(got.Options, testOptions()) {
			t.Errorf("options %+v, want %+v", got.Options, testOptions())
		}
		sameActive(t, got.Result, want)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, w := range []string{"{\n \"format\": \"coloc.active-curves\",\n \"version\": 2,\n \"key\": \"" + key + "\",\n \"options\": {",
			`"p100": null`, `"mae_median": 0.3333333333333333`, `"strategies": [`} {
			if !strings.Contains(text, w) {
				t.Errorf("the file does not hold %q:\n%s", w, text)
			}
		}
		if !strings.HasSuffix(text, "}\n") {
			t.Error("the file does not end with a newline")
		}
	}
	if err := WriteActive(filepath.Join(dir, "nil.json"), nil); err == nil {
		t.Error("a nil result is written")
	}
	bad := testOptions()
	bad.Seeds = 0
	if err := WriteActive(filepath.Join(dir, "bad.json"), &Active{Options: bad, Result: activeResult()}); err == nil || !strings.Contains(err.Error(), "seeds 0") {
		t.Errorf("options without a seed: %v", err)
	}
}

// Every refusal of ReadActive names the file.
func TestReadActiveRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "active.json")
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"another format", `{"format": "coloc.eval", "version": 2, "result": {"model": "iasp"}}`, []string{`format "coloc.eval", want "coloc.active-curves"`}},
		{"no format", `{"version": 2, "result": {"model": "iasp"}}`, []string{`format "", want`}},
		{"a later version with members of its own", `{"format": "coloc.active-curves", "version": 3, "novelty": 1}`, []string{"version 3 is not known"}},
		{"unknown member", `{"format": "coloc.active-curves", "version": 2, "novelty": 1}`, []string{`unknown field "novelty"`}},
		{"member twice", `{"format": "coloc.active-curves", "version": 2, "version": 2}`, []string{`member "version" appears twice`}},
		{"unknown version", `{"format": "coloc.active-curves", "version": 1, "result": {"model": "iasp"}}`,
			[]string{"version 1 is not known to this coloc (it reads version 2)"}},
		{"no options", `{"format": "coloc.active-curves", "version": 2, "result": {"model": "iasp"}}`, []string{"options: no model"}},
		{"another model", `{"format": "coloc.active-curves", "version": 2, "options": {"model": "iasp", "seeds": 1, "strategies": ["width"], "start": 0.05, "step": 0.05, "stop": 0.5, "reference": 0.8}, "result": {"model": "bias"}}`, []string{`result of model "bias", options name "iasp"`}},
		{"not JSON", `{"format": "coloc.active-curves",`, []string{"learning curves"}},
		{"a string reference", `{"format": "coloc.active-curves", "version": 2, "options": {"model": "iasp", "seeds": 1, "strategies": ["width"], "start": 0.05, "step": 0.05, "stop": 0.5, "reference": 0.8}, "result": {"model": "iasp", "reference": {"k80": "x"}}}`, []string{"learning curves"}},
		{"no model", `{"format": "coloc.active-curves", "version": 2, "options": {"seeds": 1, "strategies": ["width"], "start": 0.05, "step": 0.05, "stop": 0.5, "reference": 0.8}, "result": {}}`, []string{"no model"}},
		{"negative MAE", `{"format": "coloc.active-curves", "version": 2, "options": {"model": "iasp", "seeds": 1, "strategies": ["width"], "start": 0.05, "step": 0.05, "stop": 0.5, "reference": 0.8}, "result": {"model": "iasp",
			"points": [{"strategy": "width", "device": "k80", "seed": 1, "fraction": 0.1, "pairs": 2, "mae": -1}]}}`, []string{"point 1", "MAE -1"}},
		{"share over 1", `{"format": "coloc.active-curves", "version": 2, "options": {"model": "iasp", "seeds": 1, "strategies": ["width"], "start": 0.05, "step": 0.05, "stop": 0.5, "reference": 0.8}, "result": {"model": "iasp",
			"summaries": [{"strategy": "width", "device": "k80", "fraction": 1.5, "seeds": 1, "mae_median": 0.1}]}}`, []string{"summary 1", "share 1.5"}},
		{"no device", `{"format": "coloc.active-curves", "version": 2, "options": {"model": "iasp", "seeds": 1, "strategies": ["width"], "start": 0.05, "step": 0.05, "stop": 0.5, "reference": 0.8}, "result": {"model": "iasp",
			"summaries": [{"strategy": "width", "fraction": 0.5, "seeds": 1, "mae_median": 0.1}]}}`, []string{"summary 1", "no device"}},
	} {
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadActive(path)
		refused(t, tc.name, err, append([]string{path}, tc.want...)...)
	}
	if _, err := ReadActive(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("a missing file: %v", err)
	}
}

// refused reports a test failure unless err is an error that says every
// one of words.
func refused(t *testing.T, name string, err error, words ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted", name)
		return
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", name, err, w)
		}
	}
}

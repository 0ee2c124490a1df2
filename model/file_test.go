package model

import (
	"bytes"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/features"
)

func fitted(t *testing.T, name string) ([]byte, *Space) {
	t.Helper()
	sp, raw := synthetic(t, 8, 31)
	train, _ := allPairs(8, 0.7, 4, func(a, b int) float64 { return 0.8 + 0.05*raw[a][0] })
	m, _ := New(name)
	tr, err := NewTrain(sp, train, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Fit(tr); err != nil {
		t.Fatal(err)
	}
	b, err := encode(m, tr, []features.FileSum{{Name: "pairs.arrow", SHA256: "00"}})
	if err != nil {
		t.Fatal(err)
	}
	return b, sp
}

func TestDecodeRefuses(t *testing.T) {
	good, _ := fitted(t, "bias")
	tests := []struct {
		name, from, to, want string
	}{
		{"another version", `"version": 2`, `"version": 3`, "version 3; this coloc reads version 2"},
		{"another format", `"format": "coloc.model"`, `"format": "onnx"`, "not a model file"},
		{"unknown model", `"model": "bias"`, `"model": "magic"`, `unknown model "magic"`},
		{"state of another size", `"row": [`, `"row": [0.5,`, "row/col has"},
		{"scaler of another size", `"std": [`, `"std": [1,`, "scaler has"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := strings.Replace(string(good), tc.from, tc.to, 1)
			if b == string(good) {
				t.Fatalf("test edit %q not applied", tc.from)
			}
			_, err := decode([]byte(b), "m.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := decode(good, "m.json"); err != nil {
		t.Fatalf("the unedited file: %v", err)
	}
}

// gbt and gbt-sums share one state type; the file's model name and the
// state's options must agree, and each round-trips as itself.
func TestGBTFileNamesItsInput(t *testing.T) {
	for _, name := range []string{"gbt", "gbt-sums"} {
		b, _ := fitted(t, name)
		l, err := decode(b, "m.json")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := l.Model.Name(); got != name {
			t.Errorf("%s read back as %s", name, got)
		}
		other := map[string]string{"gbt": "gbt-sums", "gbt-sums": "gbt"}[name]
		edited := strings.Replace(string(b), `"model": "`+name+`"`, `"model": "`+other+`"`, 1)
		if edited == string(b) {
			t.Fatalf("%s: test edit not applied", name)
		}
		if _, err := decode([]byte(edited), "m.json"); err == nil || !strings.Contains(err.Error(), "names model "+other) {
			t.Errorf("%s relabelled %s: err %v, want a refusal naming both", name, other, err)
		}
	}
}

func TestFeatureListRefused(t *testing.T) {
	b, sp := fitted(t, "linear")
	l, err := decode(b, "linear.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CheckFeatures(sp); err != nil {
		t.Fatalf("same features refused: %v", err)
	}
	other := *sp
	other.Features = append([]string{"log10_params"}, sp.Features[1:]...)
	err = l.CheckFeatures(&other)
	if err == nil || !strings.Contains(err.Error(), "another feature set") {
		t.Fatalf("error %v, want a refusal naming another feature set", err)
	}

	// A model directory whose index lists other features than a file.
	dir := t.TempDir()
	d := &Data{Space: sp}
	if _, err := WriteDir(dir, d, []Fitted{{Name: "linear", Bytes: b}}); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDir(dir, nil); err != nil {
		t.Fatalf("LoadDir: %v", err)
	}
	ix := filepath.Join(dir, IndexFile)
	raw, _ := os.ReadFile(ix)
	os.WriteFile(ix, []byte(strings.Replace(string(raw), `"f1"`, `"sm_util_mean"`, 1)), 0o644)
	if _, err := LoadDir(dir, nil); err == nil || !strings.Contains(err.Error(), "feature list differs") {
		t.Fatalf("LoadDir with a changed index: %v, want a feature list refusal", err)
	}
	if _, err := LoadDir(dir, []string{"iasp"}); err == nil {
		t.Fatal("LoadDir of a model not in the directory succeeded")
	}
	// Missing models are named in sorted order, whatever the map's order.
	for i := 0; i < 10; i++ {
		_, err := LoadDir(dir, []string{"pmf", "iasp", "bias", "knn"})
		if err == nil || !strings.Contains(err.Error(), "no model bias, iasp, knn, pmf in") {
			t.Fatalf("LoadDir of four missing models: %v, want them named in sorted order", err)
		}
	}
}

func TestBadTrainingInput(t *testing.T) {
	sp, _ := synthetic(t, 5, 3)
	if _, err := NewTrain(sp, []Obs{{0, 1, 0, 0.5}, {1, 0, 0, 0.6}}, 1); !errors.Is(err, ErrTooFewPairs) {
		t.Errorf("two pairs: %v, want ErrTooFewPairs", err)
	}
	four := []Obs{{0, 1, 0, 0.5}, {1, 0, 0, 0.6}, {2, 3, 0, 0.7}, {3, 4, 0, 0.8}}
	bad := append([]Obs(nil), four...)
	bad[2].Y = math.NaN()
	if _, err := NewTrain(sp, bad, 1); err == nil || !strings.Contains(err.Error(), "job02|job03") {
		t.Errorf("NaN value: %v, want an error naming the pair", err)
	}
	// A missing feature value is imputed, with a warning kept for the file.
	sp.X[2][1] = math.NaN()
	tr, err := NewTrain(sp, four, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], "f2 is missing on 1 of 5") {
		t.Errorf("warnings %q, want one about f2", tr.Warnings)
	}
	if z := tr.Z(2, 0)[1]; z != 0 {
		t.Errorf("imputed standardized value %v, want 0 (the training mean)", z)
	}
	m := newBias(defaultBiasOptions)
	m.Fit(tr)
	b, _ := encode(m, tr, nil)
	if !strings.Contains(string(b), "imputed with the training mean") {
		t.Error("the warning is not kept in the model file")
	}
}

func TestDataFromUnknownJob(t *testing.T) {
	set := &features.Set{Columns: []features.Column{{Name: "f1", Group: features.GroupDescriptor}}, Rows: []features.Row{
		{Workload: "a", DeviceType: "gpu", Degree: 1, Values: []float64{1}},
		{Workload: "b", DeviceType: "gpu", Degree: 1, Values: []float64{2}},
	}}
	pairs := &datasets.Pairs{Rows: []datasets.Pair{
		{Workload: "a", Partner: "b", DeviceType: "gpu", Degree: 1, Normalized: 0.7, Status: datasets.StatusOK},
		{Workload: "a", Partner: "zz", DeviceType: "gpu", Degree: 1, Normalized: 0.7, Status: datasets.StatusOK},
	}}
	_, err := DataFrom(set, pairs)
	if err == nil || !strings.Contains(err.Error(), `pairs row 2: unknown job "zz"`) {
		t.Fatalf("error %v, want one naming row 2 and job zz", err)
	}
	pairs.Rows[1].Status = datasets.StatusSuspect
	d, err := DataFrom(set, pairs)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Obs) != 1 || len(d.Warnings) != 1 {
		t.Errorf("got %d pairs and warnings %q; a suspect pair must be left out with a warning", len(d.Obs), d.Warnings)
	}
}

// IncludeUnsettled uses the suspect pairs the harness measured, never the
// suspect pairs of another source.
func TestDataIncludeUnsettled(t *testing.T) {
	set := &features.Set{Columns: []features.Column{{Name: "f1", Group: features.GroupDescriptor}}, Rows: []features.Row{
		{Workload: "a", DeviceType: "gpu", Degree: 1, Values: []float64{1}},
		{Workload: "b", DeviceType: "gpu", Degree: 1, Values: []float64{2}},
	}}
	pairs := &datasets.Pairs{Rows: []datasets.Pair{
		{Workload: "a", Partner: "b", DeviceType: "gpu", Degree: 1, Normalized: 0.7, Status: datasets.StatusSuspect, Source: "coloc:camp"},
		{Workload: "b", Partner: "a", DeviceType: "gpu", Degree: 1, Normalized: 1, Status: datasets.StatusSuspect, Source: "gavel"},
	}}
	for _, tc := range []struct {
		include bool
		want    int
	}{{false, 0}, {true, 1}} {
		d, err := dataFrom(set, pairs, DataOptions{IncludeUnsettled: tc.include})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Obs) != tc.want {
			t.Errorf("IncludeUnsettled %v: %d pairs, want %d", tc.include, len(d.Obs), tc.want)
		}
	}
}

func TestLoadDirLoadsOnlyTheNamedModels(t *testing.T) {
	lin, sp := fitted(t, "linear")
	mean, _ := fitted(t, "mean")
	dir := t.TempDir()
	if _, err := WriteDir(dir, &Data{Space: sp}, []Fitted{{Name: "linear", Bytes: lin}, {Name: "mean", Bytes: mean}}); err != nil {
		t.Fatal(err)
	}
	for _, names := range [][]string{{"linear"}, {"mean"}} {
		ls, err := LoadDir(dir, names)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) != 1 || ls[0].File.Model != names[0] {
			got := []string{}
			for _, l := range ls {
				got = append(got, l.File.Model)
			}
			t.Errorf("LoadDir(%v) loaded %v", names, got)
		}
	}
	if ls, err := LoadDir(dir, nil); err != nil || len(ls) != 2 {
		t.Errorf("LoadDir(all): %d models, %v", len(ls), err)
	}
}

// TestModelDirIntegrity: a model file changed after the fit, or an index
// entry naming a file outside its directory, is refused on load; a failed
// write leaves the old directory whole.
func TestModelDirIntegrity(t *testing.T) {
	lin, sp := fitted(t, "linear")
	mean, _ := fitted(t, "mean")
	write := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "models")
		if _, err := WriteDir(dir, &Data{Space: sp}, []Fitted{{Name: "linear", Bytes: lin}, {Name: "mean", Bytes: mean}}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	editIndex := func(t *testing.T, dir, old, new string) {
		path := filepath.Join(dir, IndexFile)
		raw, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(raw), old) {
			t.Fatalf("test bug: %q not in the index (%v)", old, err)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(raw), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("tampered file", func(t *testing.T) {
		dir := write(t)
		path := filepath.Join(dir, "mean.json")
		// Same JSON, one more space: decodes fine, but is not what was fit.
		b, _ := os.ReadFile(path)
		os.WriteFile(path, append(b, ' '), 0o644)
		if _, err := LoadDir(dir, []string{"linear"}); err != nil {
			t.Errorf("the untouched model: %v", err)
		}
		_, err := LoadDir(dir, nil)
		if err == nil || !strings.Contains(err.Error(), "mean.json: SHA-256") || !strings.Contains(err.Error(), "the file changed") {
			t.Errorf("LoadDir of a changed file: %v", err)
		}
	})
	for _, bad := range []string{"../linear.json", "/etc/passwd", "sub/linear.json", "..", ""} {
		t.Run("entry "+bad, func(t *testing.T) {
			dir := write(t)
			// A copy beside the directory, with the right checksum: the
			// index still may not name it.
			os.WriteFile(filepath.Join(filepath.Dir(dir), "linear.json"), lin, 0o644)
			editIndex(t, dir, `"file": "linear.json"`, `"file": "`+bad+`"`)
			_, err := LoadDir(dir, []string{"linear"})
			if err == nil || !strings.Contains(err.Error(), "cannot point outside its directory") {
				t.Errorf("index entry %q: %v", bad, err)
			}
		})
	}
	t.Run("bad checksum text", func(t *testing.T) {
		dir := write(t)
		ix, _ := ReadIndex(dir)
		editIndex(t, dir, ix.Models[0].SHA256, "abc")
		if _, err := LoadDir(dir, nil); err == nil || !strings.Contains(err.Error(), `sha256 "abc": want 64`) {
			t.Errorf("short checksum: %v", err)
		}
	})
	t.Run("member twice", func(t *testing.T) {
		dir := write(t)
		editIndex(t, dir, `"file": "linear.json"`, `"file": "mean.json", "file": "linear.json"`)
		if _, err := LoadDir(dir, nil); err == nil || !strings.Contains(err.Error(), `models[0].file: member "file" appears twice`) {
			t.Errorf("duplicate member: %v", err)
		}
	})
	t.Run("failed write keeps the old directory", func(t *testing.T) {
		dir := write(t)
		before := readAll(t, dir)
		// A model name that cannot be a file name fails the write half-way,
		// after linear.json was written.
		if _, err := WriteDir(dir, &Data{Space: sp}, []Fitted{{Name: "linear", Bytes: mean}, {Name: "no/such/dir", Bytes: lin}}); err == nil {
			t.Fatal("WriteDir of an impossible file name succeeded")
		}
		if after := readAll(t, dir); !maps.EqualFunc(before, after, bytes.Equal) {
			t.Errorf("the directory changed after a failed write: %d files before, %d after", len(before), len(after))
		}
		if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
			t.Errorf("%d entries beside the model directory, want none (no temporary left)", len(entries)-1)
		}
		if _, err := LoadDir(dir, nil); err != nil {
			t.Errorf("the old directory no longer loads: %v", err)
		}
	})
}

// readAll returns the content of every file of dir by name.
func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

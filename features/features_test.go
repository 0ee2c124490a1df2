package features

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place/jobs"
)

const gavel = "../datasets/reference/gavel"

func TestBuildGavel(t *testing.T) {
	s, err := BuildDir(gavel)
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := datasets.Open(gavel)
	if len(s.Rows) != len(ds.Solo.Rows) {
		t.Fatalf("%d rows for %d solo rows", len(s.Rows), len(ds.Solo.Rows))
	}
	want := "params flops_per_sample batch_size layers_attention layers_conv layers_embedding layers_linear layers_lstm layers_norm class precision throughput sample_rate"
	if got := strings.Join(s.Names(), " "); got != want {
		t.Errorf("columns\n got %s\nwant %s", got, want)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %q", s.Warnings)
	}
	r, ok := s.Find("Transformer (batch size 32)", "p100", 1)
	if !ok {
		t.Fatal("no row for Transformer (batch size 32) on p100")
	}
	tp, rate := r.Values[s.Column("throughput")], r.Values[s.Column("sample_rate")]
	if r.Values[s.Column("batch_size")] != 32 || math.Abs(rate-32*tp) > 1e-9 {
		t.Errorf("batch %v, sample rate %v for throughput %v", r.Values[s.Column("batch_size")], rate, tp)
	}
	if c := s.Columns[s.Column("class")]; c.Label(r.Values[s.Column("class")]) != "transformer" {
		t.Errorf("class %q", c.Label(r.Values[s.Column("class")]))
	}
	if s.Meta["coloc.data.pairs.arrow"] == "" {
		t.Error("no checksum of pairs.arrow in the metadata")
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	s, err := BuildDir(gavel)
	if err != nil {
		t.Fatal(err)
	}
	s.Warnings = []string{"one", "two"}
	path := filepath.Join(t.TempDir(), "features.arrow")
	if err := Write(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Names(), ",") != strings.Join(s.Names(), ",") || len(got.Rows) != len(s.Rows) {
		t.Fatalf("read back %d columns, %d rows", len(got.Columns), len(got.Rows))
	}
	for j, c := range got.Columns {
		w := s.Columns[j]
		if c.Unit != w.Unit || c.Group != w.Group || c.Log != w.Log || strings.Join(c.Levels, ",") != strings.Join(w.Levels, ",") {
			t.Errorf("column %s: read %+v, wrote %+v", c.Name, c, w)
		}
	}
	for i, r := range got.Rows {
		for j, v := range r.Values {
			if w := s.Rows[i].Values[j]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Fatalf("row %d column %s: read %v, wrote %v", i+1, s.Columns[j].Name, v, w)
			}
		}
	}
	if strings.Join(got.Warnings, "|") != "one|two" {
		t.Errorf("warnings %q", got.Warnings)
	}

	other := filepath.Join(t.TempDir(), "v2.arrow")
	tab := &Table{Name: TableName, Version: Version + 1, Columns: []TableColumn{{Name: "workload", Str: []string{"a"}}}}
	if err := WriteTable(other, tab); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(other); err == nil || !strings.Contains(err.Error(), "this coloc reads version 1") {
		t.Errorf("a version 2 file: %v", err)
	}
	tab.Name, tab.Version = "eval", 1
	WriteTable(other, tab)
	if _, err := Read(other); err == nil || !strings.Contains(err.Error(), `holds table "eval"`) {
		t.Errorf("an eval table read as features: %v", err)
	}
}

// Counter summaries come from the steady window of ok solo runs only, and
// are averaged over repeats.
func TestCounterSummaries(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(id string, repeat int, status string) datasets.Run {
		return datasets.Run{Campaign: "c", RunID: id, Mode: datasets.ModeSolo, Workload: "w", DeviceType: "gpu", DeviceIDs: "0",
			Degree: 1, ShareMode: datasets.ShareExclusive, Repeat: repeat, Start: t0, End: t0.Add(10 * time.Second),
			Steps: 100, Throughput: 50, WindowS: 4, PeakMemory: math.NaN(), Status: status}
	}
	runs := &datasets.RunsTable{ThroughputUnit: datasets.UnitSamplesPerS, Rows: []datasets.Run{run("r1", 0, "ok"), run("r2", 1, "ok"), run("r3", 2, "failed")}}
	smp := datasets.NewSamples([]datasets.Counter{{Name: "sm_util", Unit: "%"}})
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	smp.Append("r1", 0, "w", at(1), []float64{99}) // warm-up: outside the window
	for i, v := range []float64{10, 20, 30, 40} {
		smp.Append("r1", 0, "w", at(6.5+float64(i)), []float64{v})
	}
	smp.Append("r1", 0, "other", at(7), []float64{1000}) // another workload
	smp.Append("r2", 0, "", at(8), []float64{60})        // device-wide row
	smp.Append("r3", 0, "w", at(8), []float64{500})      // failed run
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitSamplesPerS, Rows: []datasets.Solo{
		{Workload: "w", DeviceType: "gpu", Degree: 1, Throughput: 50, CILow: math.NaN(), CIHigh: math.NaN(), PeakMemory: 2e9, Source: "test"},
	}}
	// The samples go to a file in two record batches, streamed by Build.
	tab := smp.Table()
	path := filepath.Join(t.TempDir(), "samples.arrow")
	w, err := datasets.NewWriter(path, tab)
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range [][]int{{0, 1, 2}, {3, 4, 5, 6, 7}} {
		if err := w.Write(tab.Select(rows)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds := &datasets.Dataset{Dir: "test", Runs: runs, Solo: solo, SamplesPath: path}
	s, err := Build(ds)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Meta["coloc.data.samples.arrow"]; len(got) != 64 {
		t.Errorf("provenance of samples.arrow %q, want a SHA-256", got)
	}
	r := s.Rows[0]
	// r1: mean 25, median 25, p95 40, std sqrt(125); r2: 60, 60, 60, 0.
	want := map[string]float64{"sm_util_mean": (25 + 60) / 2.0, "sm_util_median": (25 + 60) / 2.0, "sm_util_p95": 50, "sm_util_std": math.Sqrt(125) / 2, "peak_memory": 2e9}
	for name, w := range want {
		j := s.Column(name)
		if j < 0 {
			t.Fatalf("no column %s in %v", name, s.Names())
		}
		if math.Abs(r.Values[j]-w) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, r.Values[j], w)
		}
		if name != "peak_memory" && s.Columns[j].Unit != "%" {
			t.Errorf("%s unit %q, want %%", name, s.Columns[j].Unit)
		}
	}
	// workload w has no meta and no known family: a warning, not an error.
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], `1 of 1 workloads have no descriptors`) || !strings.Contains(s.Warnings[0], `: "w"; `) {
		t.Errorf("warnings %q", s.Warnings)
	}
}

func TestReadMeta(t *testing.T) {
	dir := t.TempDir()
	if m, err := ReadMeta(dir); err != nil || m != nil {
		t.Fatalf("no file: %v, %v", m, err)
	}
	doc := func(list string) string {
		return `{"format":"coloc.workloads","version":1,"workloads":` + list + `}`
	}
	tests := []struct{ body, want string }{
		{doc(`[{"workload":"bert-b32","model":"bert","class":"transformer","params":1.1e8,"forward_flops_per_sample":2e10,"layers":{"attention":12},"batch_size":32,"precision":"fp16"}]`), ""},
		{doc(`[{"workload":"x","params":-1}]`), "must be finite and not negative"},
		{doc(`[{"workload":"x"},{"workload":"x"}]`), "listed twice"},
		{doc(`[{"params":3}]`), "no workload name"},
		{doc(`[{"workload":"x","flops":3}]`), "unknown field"},
		{`[{"workload":"x"}]`, "cannot unmarshal"},
		{`{"format":"coloc.workloads","version":2,"workloads":[]}`, "version 2"},
	}
	for _, tc := range tests {
		os.WriteFile(filepath.Join(dir, WorkloadsFile), []byte(tc.body), 0o644)
		m, err := ReadMeta(dir)
		if tc.want == "" {
			if err != nil || m["bert-b32"].Layers["attention"] != 12 || m["bert-b32"].Precision != "fp16" {
				t.Errorf("valid file: %v, %+v", err, m)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.want)
		}
	}
}

// The parameter counts of the known models that are computed from their
// architecture, recomputed here layer by layer.
func TestKnownModelParameters(t *testing.T) {
	conv := func(in, out, k int, bias bool) int {
		n := in * out * k * k
		if bias {
			n += out
		}
		return n
	}
	bn := func(c int) int { return 2 * c }
	// CIFAR ResNet-18: 3x3 stem, BasicBlocks [2,2,2,2], 10 classes.
	resnet18 := conv(3, 64, 3, false) + bn(64)
	in := 64
	for _, out := range []int{64, 128, 256, 512} {
		for b := 0; b < 2; b++ {
			resnet18 += conv(in, out, 3, false) + bn(out) + conv(out, out, 3, false) + bn(out)
			if in != out {
				resnet18 += conv(in, out, 1, false) + bn(out)
			}
			in = out
		}
	}
	resnet18 += 512*10 + 10
	// LM: embedding, 2 LSTM layers (two bias vectors each), decoder.
	const v, e, h = 33278, 200, 200
	lstm := func(in, h int) int { return 4*h*(in+h) + 2*4*h }
	lm := v*e + lstm(e, h) + lstm(h, h) + h*v + v
	// A3C: 4 conv 3x3 32 filters, LSTMCell(288, 256), critic, 6-way actor.
	a3c := conv(1, 32, 3, true) + 3*conv(32, 32, 3, true) + lstm(288, 256) + 257 + 256*6 + 6
	// Recommendation: 20108 -> 200 -> 20108 with biases.
	rec := 20108*200 + 200 + 200*20108 + 20108
	for name, want := range map[string]int{"ResNet-18": resnet18, "LM": lm, "A3C": a3c, "Recommendation": rec} {
		if got := KnownModels[name].Params; got != float64(want) {
			t.Errorf("%s: table says %v parameters, the architecture %d", name, got, want)
		}
	}
	for name, d := range KnownModels {
		if d.Params <= 0 || d.FLOPs <= 0 || d.Class == "" || d.Precision == "" || d.Source == "" {
			t.Errorf("%s: incomplete descriptor %+v", name, d)
		}
		if FamilyOf(name+" (batch size 8)") != name {
			t.Errorf("FamilyOf(%q)", name+" (batch size 8)")
		}
	}
}

// The counter summaries of a run whose runs row records its window use
// that window, not the last window_s seconds before the run's end (which
// would hold the workload's teardown).
func TestCounterSummariesUseRecordedWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	runs := &datasets.RunsTable{ThroughputUnit: datasets.UnitSamplesPerS, Rows: []datasets.Run{{
		Campaign: "c", RunID: "r1", Mode: datasets.ModeSolo, Workload: "w", DeviceType: "gpu", DeviceIDs: "0",
		Degree: 1, ShareMode: datasets.ShareExclusive, Start: t0, End: at(10), Steps: 100, Throughput: 50,
		WindowS: 3, PeakMemory: math.NaN(), Status: datasets.StatusOK, Settled: datasets.SettledYes,
		WindowStart: at(2), WindowEnd: at(5),
	}}}
	smp := datasets.NewSamples([]datasets.Counter{{Name: "sm_util", Unit: "%"}})
	smp.Append("r1", 0, "w", at(3), []float64{10})
	smp.Append("r1", 0, "w", at(4), []float64{20})
	smp.Append("r1", 0, "w", at(9), []float64{1000}) // teardown
	solo := &datasets.SoloTable{ThroughputUnit: datasets.UnitSamplesPerS, Rows: []datasets.Solo{
		{Workload: "w", DeviceType: "gpu", Degree: 1, Throughput: 50, CILow: math.NaN(), CIHigh: math.NaN(), PeakMemory: math.NaN(), Source: "test"},
	}}
	samplesPath := filepath.Join(t.TempDir(), "samples.arrow")
	if err := datasets.Write(samplesPath, smp.Table()); err != nil {
		t.Fatal(err)
	}
	s, err := Build(&datasets.Dataset{Dir: "test", Runs: runs, Solo: solo, SamplesPath: samplesPath})
	if err != nil {
		t.Fatal(err)
	}
	j := s.Column("sm_util_mean")
	if j < 0 {
		t.Fatalf("no column sm_util_mean in %v", s.Names())
	}
	if got := s.Rows[0].Values[j]; got != 15 {
		t.Errorf("sm_util_mean = %v, want 15 (the samples of the recorded window only)", got)
	}
}

// TestUndescribedWarning: workloads without descriptors make one warning
// that counts them, names the first five (with the model name looked up
// where it differs) and says how many more.
func TestUndescribedWarning(t *testing.T) {
	names := []string{"ResNet-50 (batch size 64)", "job01", "job02", "job03", "job04", "job05", "job06"}
	w := undescribedWarning(names, 66)
	for _, want := range []string{
		"7 of 66 workloads have no descriptors",
		`"ResNet-50 (batch size 64)" (model "ResNet-50"), "job01", "job02", "job03", "job04", and 2 more;`,
		WorkloadsFile,
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}

// Every class of the shipped descriptors is one a job list's model
// descriptor may name (place/jobs.Classes), so a job described like a
// profiled workload can be.
func TestKnownClassesAreJobClasses(t *testing.T) {
	for name, d := range KnownModels {
		if !slices.Contains(jobs.Classes, d.Class) {
			t.Errorf("%s: class %q is not in place/jobs.Classes %v", name, d.Class, jobs.Classes)
		}
	}
}

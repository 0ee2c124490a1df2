package reports

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/model/eval/evalfile"
)

const gavelDir = "../datasets/reference/gavel"

// build is Build for reports that must succeed.
func build(t *testing.T, cfg Config) *Summary {
	t.Helper()
	sum, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// tinyData writes a dataset of two workloads on one device type: four
// pairs (two ok, one infeasible, one suspect) and a scaling table whose
// chosen degree and reduction are computed by hand in the tests.
func tinyData(t *testing.T) string {
	t.Helper()
	nan := math.NaN()
	pair := func(w, p string, norm float64, status string) datasets.Pair {
		solo, co := 100.0, 100*norm
		if status == datasets.StatusInfeasible {
			solo, co = nan, nan
		}
		return datasets.Pair{Workload: w, Partner: p, DeviceType: "x1", Degree: 1, Solo: solo, Colocated: co, Normalized: map[bool]float64{true: nan, false: norm}[status == datasets.StatusInfeasible],
			NormLow: nan, NormHigh: nan, Status: status, Source: "test"}
	}
	pairs := &datasets.Pairs{ThroughputUnit: datasets.UnitSamplesPerS, Rows: []datasets.Pair{
		pair("a", "b", 0.8, datasets.StatusOK),
		pair("b", "a", 0.6, datasets.StatusOK),
		pair("a", "a", 0, datasets.StatusInfeasible),
		pair("b", "b", 1, datasets.StatusSuspect),
	}}
	scale := func(w string, deg, nodes, batch int, tp float64) datasets.Scale {
		return datasets.Scale{Workload: w, DeviceType: "x1", Degree: deg, Nodes: nodes, BatchSize: batch, Throughput: tp, StepTime: nan, SyncTime: nan, Source: "test"}
	}
	sc := &datasets.ScalingTable{ThroughputUnit: datasets.UnitSamplesPerS, Rows: []datasets.Scale{
		// Batch 32 is measured at four degrees, 64 at two: the curve is
		// batch 32's. At degree 4 the best of two placements counts.
		scale("a", 1, 1, 32, 100), scale("a", 2, 1, 32, 190), scale("a", 4, 1, 32, 300),
		scale("a", 4, 2, 32, 250), scale("a", 8, 2, 32, 400),
		scale("a", 1, 1, 64, 150), scale("a", 2, 1, 64, 290),
		// One degree only: no curve.
		scale("b", 1, 1, 16, 50),
	}}
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := datasets.WriteDir(dir, pairs.Table(), sc.Table()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// row is how the page writes these table cells in a row: numbers
// right-aligned.
func row(cells ...string) string {
	var b strings.Builder
	for _, c := range cells {
		if _, err := strconv.ParseFloat(strings.TrimSuffix(c, "%"), 64); err == nil {
			b.WriteString(`<td class="num">` + c + "</td>")
		} else {
			b.WriteString("<td>" + c + "</td>")
		}
	}
	return b.String()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The heat map and the scaling curve of a tiny dataset, by hand: a|b 0.8
// and b|a 0.6 are the only coloured cells; the scaling curve of a at batch
// 32 is 100, 190, 300, 400 (efficiencies 1, 0.95, 0.75, 0.5), so the
// chosen degree at efficiency 0.7 is 4; b has one degree and no curve.
func TestReportTinyData(t *testing.T) {
	data := tinyData(t)
	out := filepath.Join(t.TempDir(), "report")
	cfg := DefaultConfig()
	cfg.Data, cfg.Out = []string{data}, out
	sum := build(t, cfg)
	if sum.Figures != 2 {
		t.Errorf("%d figures, want 2", sum.Figures)
	}
	heat := readFile(t, filepath.Join(out, "pairs-tiny-x1.csv"))
	if want := "workload,a,b\na,,0.8\nb,0.6,\n"; heat != want {
		t.Errorf("heat map CSV:\n%s\nwant\n%s", heat, want)
	}
	curve := readFile(t, filepath.Join(out, "scaling-tiny-x1.csv"))
	a := "a (batch 32/GPU)" // two batch sizes measured: the name says which
	if want := "series,GPUs,throughput (samples/s),mark\n" + a + ",1,100,\n" + a + ",2,190,\n" + a + ",4,300,\n" + a + ",8,400,\n" + a + ",4,300,\n"; curve != want {
		t.Errorf("scaling CSV:\n%s\nwant\n%s", curve, want)
	}
	page := readFile(t, filepath.Join(out, "index.html"))
	for _, want := range []string{
		`<meta name="generator" content="coloc report">`,
		"<h2>Pairwise interference: tiny</h2>", "<h2>Scaling: tiny</h2>",
		// the pairs table: 2 workloads, 2 ok, 1 suspect, 1 infeasible, min 0.6, median 0.7, max 0.8, none above 1
		row("x1", "2", "2", "1", "1", "0.600", "0.700", "0.800", "0.0%"),
		// the chosen degree: a, batch 32, degrees 1 2 4 8, chosen 4 at 300, efficiency 0.75, 0.50 at 8
		row("a", "x1", "32", "1 2 4 8", "4", "300", "0.75", "0.50"),
		"pairs.arrow", "scaling.arrow", // inputs in the footer
	} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	if strings.Contains(page, "Simulated") || strings.Contains(page, "Counters") || strings.Contains(page, "Model accuracy") {
		t.Error("index.html has sections for inputs not given")
	}
	if strings.Contains(page, out) {
		t.Error("index.html names the report directory")
	}
}

// A report into a directory of other files leaves them alone; the next
// report into it replaces exactly the files the manifest of the first
// lists, and no temporary directory is left behind.
func TestReportDirectory(t *testing.T) {
	data := tinyData(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	mine := map[string]string{"notes.txt": "mine", ".hidden": "dot", "sub/keep.csv": "x"}
	for f, c := range mine {
		p := filepath.Join(out, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{Data: []string{data}, Out: out}
	build(t, cfg)
	first, err := readManifest(out)
	if err != nil || !slices.Contains(first, "index.html") || !slices.Contains(first, "pairs-tiny-x1.svg") || slices.Contains(first, "notes.txt") {
		t.Fatalf("manifest %v, %v: want the report's files only", first, err)
	}
	// The second report draws no scaling figure: its files go, the
	// user's stay.
	sc := filepath.Join(out, "scaling-tiny-x1.svg")
	if _, err := os.Stat(sc); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(data, "scaling.arrow")); err != nil {
		t.Fatal(err)
	}
	build(t, cfg)
	if _, err := os.Stat(sc); !os.IsNotExist(err) {
		t.Errorf("a figure of the earlier report that the new one does not draw survived: %v", err)
	}
	for f, c := range mine {
		if got := readFile(t, filepath.Join(out, filepath.FromSlash(f))); got != c {
			t.Errorf("%s holds %q, want %q", f, got, c)
		}
	}
	// A file the report would write but did not write before is not
	// overwritten: the report is refused and the file kept.
	other := filepath.Join(parent, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "index.html"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Build(Config{Data: []string{data}, Out: other})
	if err == nil || !strings.Contains(err.Error(), "index.html exists and no earlier coloc report wrote it") {
		t.Errorf("report over a foreign index.html: %v", err)
	}
	if readFile(t, filepath.Join(other, "index.html")) != "mine" {
		t.Error("the foreign index.html was touched")
	}
	// The same for a figure's file, found once the report is built.
	third := filepath.Join(parent, "third")
	if err := os.MkdirAll(third, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(third, "pairs-tiny-x1.csv"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Build(Config{Data: []string{data}, Out: third})
	if err == nil || !strings.Contains(err.Error(), "pairs-tiny-x1.csv exists and no earlier coloc report wrote it") {
		t.Errorf("report over a foreign figure file: %v", err)
	}
	if entries, _ := os.ReadDir(third); len(entries) != 1 || readFile(t, filepath.Join(third, "pairs-tiny-x1.csv")) != "mine" {
		t.Errorf("the refused report changed %s: %v", third, entries)
	}
	// A manifest naming a path outside the directory is refused before
	// any work.
	if err := os.WriteFile(filepath.Join(other, ManifestFile), []byte(`{"version":1,"generator":"x","files":["../report/notes.txt"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Config{Data: []string{data}, Out: other}); err == nil || !strings.Contains(err.Error(), "not a plain path inside") {
		t.Errorf("manifest with ../: %v", err)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 3 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want report, other and third only", parent, names)
	}
}

func TestReportErrors(t *testing.T) {
	data := tinyData(t)
	out := filepath.Join(t.TempDir(), "r")
	pairs := filepath.Join(data, "pairs.arrow")
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no report directory"},
		{Config{Out: out}, "nothing to report"},
		{Config{Data: []string{data}, Out: out, EvalFile: pairs}, "eval"},
		{Config{Data: []string{data}, Out: out, EvalFile: "nope.arrow"}, "--eval: stat nope.arrow"},
		{Config{Data: []string{data}, Out: out, PredictionsFile: pairs}, `table "pairs"`},
		{Config{Data: []string{data}, Out: out, PredictionsFile: data}, "--predictions: " + data + " is a directory"},
		{Config{Data: []string{data}, Out: out, ActiveFile: pairs}, "learning curves " + pairs},
		{Config{Data: []string{data}, Out: out, SimFiles: []string{pairs}}, pairs},
		{Config{Data: []string{data}, Out: out, SimFiles: []string{"nope.json"}}, "--sim: stat nope.json"},
		{Config{Data: []string{"nope"}, Out: out}, "--data: stat nope"},
		{Config{Campaign: data + "/pairs.arrow", Out: out}, "is not a directory"},
		{Config{Data: []string{data}, Models: data, Out: out}, "--models"},
		{Config{Models: data, Out: out}, "--models: drawing the models' predictions needs the measured pairs"},
	}
	for _, c := range cases {
		_, err := Build(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed report left %s behind", out)
	}
}

// The model section from an evaluation file, a predictions file and a
// model directory: the MAE figure's points are the file's summaries, the
// held-out scatter has the pairs Predict holds out, and models fit on the
// same data are called in-sample.
func TestReportModels(t *testing.T) {
	d, err := model.LoadData(gavelDir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := eval.Run(d, eval.Options{Protocols: []string{"pairs"}, Fractions: []float64{0.2, 0.5}, Seeds: 2,
		Models: []string{"mean", "bias"}, Devices: []string{"k80", "p100"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	evalFile := filepath.Join(dir, "eval.arrow")
	if err := res.Write(evalFile); err != nil {
		t.Fatal(err)
	}
	models := filepath.Join(dir, "models")
	fitted, err := model.FitAll(d, []string{"mean"}, model.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.WriteDir(models, d, fitted); err != nil {
		t.Fatal(err)
	}
	ps, err := eval.Predict(d, []string{"bias"}, eval.Split{Protocol: "pairs", Device: "k80", Fraction: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	predFile := filepath.Join(dir, "predictions.arrow")
	split := eval.Split{Protocol: "pairs", Device: "k80", Fraction: 0.5, Seed: 1}
	if err := evalfile.WritePredictions(predFile, &evalfile.Predictions{Split: split, Rows: ps}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	cfg := DefaultConfig()
	cfg.Data, cfg.EvalFile, cfg.PredictionsFile, cfg.Devices, cfg.Models, cfg.Out = []string{gavelDir}, evalFile, predFile, []string{"k80"}, models, out
	build(t, cfg)

	mae := readFile(t, filepath.Join(out, "mae-pairs-k80.csv"))
	for _, s := range res.Summaries {
		if s.Device != "k80" {
			continue
		}
		if want := s.Model + "," + csvNum(s.Fraction) + "," + csvNum(s.MAEMedian) + ",\n"; !strings.Contains(mae, want) {
			t.Errorf("MAE figure lacks %q:\n%s", want, mae)
		}
	}
	scatter := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(out, "heldout-bias.csv"))), "\n")
	if len(scatter)-1 != len(ps) || scatter[1] != "k80,"+csvNum(ps[0].Measured)+","+csvNum(ps[0].Predicted) {
		t.Errorf("held-out scatter: %d rows, first %q; want %d rows, first k80,%v,%v", len(scatter)-1, scatter[1], len(ps), ps[0].Measured, ps[0].Predicted)
	}
	page := readFile(t, filepath.Join(out, "index.html"))
	for _, want := range []string{"Model accuracy against observed pairs", "the evaluation file", "fractions 0.2, 0.5, seeds 1 to 2", "Predicted against measured, held-out pairs",
		"Fitted models on the measured pairs", "in-sample", "fitted-mean.svg", "heldout-error-k80.svg", "<td>best</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
}

// csvNum formats like the figures' CSV.
func csvNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// A synthetic campaign: a solo run and a pair run on device 0, samples of
// both (device-wide and per process) plus rows of device 1 and of another
// run that the report must leave out, and a counter with no value.
func campaignData(t *testing.T) string {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(id, mode, w, partner string) datasets.Run {
		return datasets.Run{Campaign: "c", RunID: id, Mode: mode, Workload: w, Partner: partner, DeviceType: "h200", DeviceIDs: "0",
			Degree: 1, ShareMode: datasets.ShareExclusive, Start: t0, End: t0.Add(10 * time.Second),
			Steps: 100, Throughput: 50, WindowS: 4, PeakMemory: math.NaN(), Status: datasets.StatusOK}
	}
	late := func(r datasets.Run) datasets.Run {
		r.Start, r.End = t0.Add(20*time.Second), t0.Add(30*time.Second)
		return r
	}
	runs := &datasets.RunsTable{ThroughputUnit: datasets.UnitSamplesPerS, Rows: []datasets.Run{
		run("s0", datasets.ModeSolo, "b", ""), // not the pair's workload
		run("s1", datasets.ModeSolo, "a", ""),
		late(run("p1/0", datasets.ModePair, "a", "b")),
		late(run("p1/1", datasets.ModePair, "b", "a")),
	}}
	smp := datasets.NewSamples([]datasets.Counter{{Name: "sm_util", Unit: "%"}, {Name: "power", Unit: "W"}, {Name: "nvlink", Unit: "B/s"}})
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	nan := math.NaN()
	smp.Append("s0", 0, "", at(1), []float64{10, 100, nan})
	smp.Append("s1", 0, "", at(1), []float64{40, 150, nan})
	smp.Append("s1", 0, "", at(2), []float64{42, 151, nan})
	smp.Append("s1", 0, "a", at(2), []float64{39, nan, nan})
	smp.Append("s1", 1, "", at(2), []float64{0, 50, nan}) // another device
	smp.Append("p1", 0, "", at(21), []float64{90, 250, nan})
	smp.Append("p1", 0, "a", at(21), []float64{50, nan, nan})
	smp.Append("p1", 0, "b", at(21), []float64{38, nan, nan})
	dir := filepath.Join(t.TempDir(), "camp")
	if err := datasets.WriteDir(dir, runs.Table(), smp.Table()); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportCampaign(t *testing.T) {
	dir := campaignData(t)
	out := filepath.Join(t.TempDir(), "report")
	build(t, Config{Campaign: dir, Out: out})
	got := readFile(t, filepath.Join(out, "counter-camp-sm_util.csv"))
	want := "series,time (s),sm_util (%)\n" +
		"solo a (device),1,40\nsolo a (device),2,42\n" +
		"solo: a (processes),2,39\n" +
		"pair a + b (device),1,90\n" +
		"pair: a (processes),1,50\npair: b (processes),1,38\n"
	if got != want {
		t.Errorf("sm_util series:\n%s\nwant\n%s", got, want)
	}
	power := readFile(t, filepath.Join(out, "counter-camp-power.csv"))
	if !strings.Contains(power, "solo a (device),1,150\n") || strings.Contains(power, "processes") {
		t.Errorf("power series: per-process series without values drawn, or device-wide missing:\n%s", power)
	}
	if _, err := os.Stat(filepath.Join(out, "counter-camp-nvlink.csv")); !os.IsNotExist(err) {
		t.Error("a counter without values got a figure")
	}
	page := readFile(t, filepath.Join(out, "index.html"))
	for _, want := range []string{row("solo", "s1", "a"), row("pair", "p1/0", "a", "b")} {
		if !strings.Contains(page, want) {
			t.Errorf("runs table lacks %s", want)
		}
	}
}

// A workload paired with itself (README's tiny campaign pairs resnet18-tiny
// with itself): both processes carry its name, so the pair has one
// per-process line, and the zeros it ends with, read after the processes
// exited, are not drawn.
func TestReportCampaignSelfPair(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(id, mode, partner string) datasets.Run {
		return datasets.Run{Campaign: "c", RunID: id, Mode: mode, Workload: "a", Partner: partner, DeviceType: "cpu", DeviceIDs: "0",
			Degree: 1, ShareMode: datasets.ShareExclusive, Start: t0, End: t0.Add(10 * time.Second),
			Steps: 100, Throughput: 50, WindowS: 4, PeakMemory: math.NaN(), Status: datasets.StatusOK}
	}
	runs := &datasets.RunsTable{ThroughputUnit: datasets.UnitSamplesPerS, Rows: []datasets.Run{
		run("s1", datasets.ModeSolo, ""), run("p1/0", datasets.ModePair, "a"), run("p1/1", datasets.ModePair, "a"),
	}}
	smp := datasets.NewSamples([]datasets.Counter{{Name: "proc_mem_used", Unit: "B"}})
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	smp.Append("s1", 0, "a", at(1), []float64{100})
	for i, v := range []float64{200, 0, 210, 0, 0} { // a zero inside the run stays
		smp.Append("p1", 0, "a", at(float64(i+1)), []float64{v})
	}
	dir := filepath.Join(t.TempDir(), "camp")
	if err := datasets.WriteDir(dir, runs.Table(), smp.Table()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report")
	build(t, Config{Campaign: dir, Out: out})
	got := readFile(t, filepath.Join(out, "counter-camp-proc_mem_used.csv"))
	want := "series,time (s),proc_mem_used (B)\n" +
		"solo: a (processes),1,100\n" +
		"pair: a (processes of both sides),1,200\npair: a (processes of both sides),2,0\npair: a (processes of both sides),3,210\n" +
		"pair: a (processes of both sides),4,\npair: a (processes of both sides),5,\n"
	if got != want {
		t.Errorf("proc_mem_used series:\n%s\nwant\n%s", got, want)
	}
}

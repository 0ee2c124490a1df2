package reports

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/internal/treetest"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/model/eval/evalfile"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
)

// replayFile replays a trace on a cluster under the policies (none that
// needs fitted models) with seed 1, as `coloc simulate -o` does, and
// writes the replay into dir.
func replayFile(t testing.TB, dir, trace, cluster string, pols []string) string {
	t.Helper()
	truth, err := experiment.LoadTruth(gavelDir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := sim.LoadTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := experiment.LoadTopology(cluster)
	if err != nil {
		t.Fatal(err)
	}
	x := experiment.Experiment{Jobs: tr.Jobs, Topology: topo, Truth: truth, Policies: pols, Options: sim.DefaultOptions, Env: sim.Env{Seed: 1}}
	res, err := x.Run()
	if err != nil {
		t.Fatal(err)
	}
	rp, err := experiment.NewReplay(experiment.Inputs{Trace: trace, Cluster: cluster, Data: gavelDir}, tr, &x, res)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "replay-"+filepath.Base(trace)+"-"+topo.Name+".json")
	if err := experiment.WriteReplay(path, rp); err != nil {
		t.Fatal(err)
	}
	return path
}

// stagedReport is a report of every kind of section but the campaign's,
// drawn from small stage files written into a temporary directory: two
// models evaluated on Gavel's pairs (fractions 0.2 and 0.5, two seeds)
// with their held-out predictions, IASP's learning curves on k80 (one
// seed), and two physical-cluster traces replayed on the 48-GPU cluster
// under five baselines.
func stagedReport(t testing.TB, out string) Config {
	t.Helper()
	dir := t.TempDir()
	d, err := model.LoadData(gavelDir)
	if err != nil {
		t.Fatal(err)
	}
	models, devices := []string{"mean", "bias"}, []string{"k80", "p100", "v100"}
	res, err := eval.Run(d, eval.Options{Protocols: []string{"pairs"}, Fractions: []float64{0.2, 0.5}, Seeds: 2, Models: models, Devices: devices})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Out, cfg.Root = out, ".."
	cfg.Data = []string{gavelDir, "../datasets/reference/pollux"}
	cfg.EvalFile = filepath.Join(dir, "eval.arrow")
	if err := res.Write(cfg.EvalFile); err != nil {
		t.Fatal(err)
	}
	preds, err := evalfile.PredictSplit(d, models, devices, 0.5, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.PredictionsFile = filepath.Join(dir, "predictions.arrow")
	split := eval.Split{Protocol: "pairs", Fraction: 0.5, Seed: 1}
	if err := evalfile.WritePredictions(cfg.PredictionsFile, &evalfile.Predictions{Split: split, Rows: preds}); err != nil {
		t.Fatal(err)
	}
	o := eval.DefaultActiveOptions
	o.Seeds, o.Devices, o.Strategies = 1, []string{"k80"}, []string{"width", "uncertainty", "random"}
	curves, err := eval.RunActive(d, o)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ActiveFile = filepath.Join(dir, "active.json")
	if err := evalfile.WriteActive(cfg.ActiveFile, &evalfile.Active{Options: o, Result: curves}); err != nil {
		t.Fatal(err)
	}
	pols := []string{"fifo", "backfill", "greedy-pack", "gavel-las", "tiresias"}
	for _, trace := range []string{"small_test", "minimize_makespan"} {
		cfg.SimFiles = append(cfg.SimFiles, replayFile(t, dir, "../examples/traces/physical_cluster/"+trace+".trace", "../examples/cluster-gavel-48.yaml", pols))
	}
	return cfg
}

// Two reports of the same stage files, into different directories, are
// the same files byte for byte; every figure has its three files; the
// page draws every section of the files and names them.
func TestReportStagesSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP for the learning curves and replays two traces; not in -short")
	}
	cfg := stagedReport(t, filepath.Join(t.TempDir(), "a"))
	other := cfg
	other.Out = filepath.Join(t.TempDir(), "b")
	for _, c := range []Config{cfg, other} {
		build(t, c)
	}
	a := treetest.Files(t, cfg.Out)
	treetest.Same(t, a, treetest.Files(t, other.Out), "the two reports")
	page := string(a["index.html"])
	for f := range a {
		if base, ok := strings.CutSuffix(f, ".svg"); ok {
			for _, ext := range []string{".png", ".csv"} {
				if _, ok := a[base+ext]; !ok {
					t.Errorf("figure %s has no %s", base, ext)
				}
			}
		}
	}
	for _, want := range []string{"<h2>Model accuracy against observed pairs</h2>", "<h2>Predicted against measured, held-out pairs</h2>",
		"<h2>Choosing the pairs to profile: learning curves</h2>", "<h2>Simulated policies</h2>", "Policies on gavel-48",
		filepath.Base(cfg.SimFiles[0]), filepath.Base(cfg.EvalFile), "datasets/reference/gavel/pairs.arrow", "<td>tiresias</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
}

// Replays under different policies are refused, naming both files; a
// replay file that is not one is refused naming it.
func TestReportReplaysDisagree(t *testing.T) {
	dir := t.TempDir()
	a := replayFile(t, dir, "../examples/traces/physical_cluster/small_test.trace", "../examples/cluster-gavel-48.yaml", []string{"fifo", "backfill"})
	b := replayFile(t, dir, "../examples/traces/physical_cluster/small_test.trace", "../examples/cluster-gavel.yaml", []string{"fifo"})
	cfg := Config{SimFiles: []string{a, b}, Out: filepath.Join(dir, "r")}
	if _, err := Build(cfg); err == nil || !strings.Contains(err.Error(), b+": policies fifo, but "+a+" has fifo, backfill") {
		t.Errorf("replays under different policies: %v", err)
	}
	cfg.SimFiles = []string{a}
	sum := build(t, cfg)
	if sum.Figures != 4 {
		t.Errorf("%d figures from one replay, want the JCT CDF and three bars", sum.Figures)
	}
}

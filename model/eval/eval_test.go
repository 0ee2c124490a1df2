package eval

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

const gavel = "../../datasets/reference/gavel"

// The acceptance bar of the evaluation: on Gavel's measurements, protocol pairs,
// fractions 0.2 and 0.5, devices k80, p100 and v100, IASP's median MAE over
// 5 seeds is below that of both bias and pmf in every cell.
func TestIASPBeatsBiasAndPMFOnGavel(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 180 models on Gavel's data (a few seconds)")
	}
	d, err := model.LoadData(gavel)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Protocols: []string{"pairs"}, Fractions: []float64{0.2, 0.5}, Seeds: 5,
		Models: []string{"iasp", "bias", "pmf"}, Devices: []string{"k80", "p100", "v100"}}
	res, err := Run(d, o)
	if err != nil {
		t.Fatal(err)
	}
	mae := map[[3]string]float64{}
	for _, s := range res.Summaries {
		mae[[3]string{s.Model, s.Device, format(s.Fraction)}] = s.MAEMedian
	}
	for _, dev := range o.Devices {
		for _, f := range o.Fractions {
			iasp := mae[[3]string{"iasp", dev, format(f)}]
			for _, base := range []string{"bias", "pmf"} {
				b := mae[[3]string{base, dev, format(f)}]
				if !(iasp < b) {
					t.Errorf("%s, fraction %v: iasp median MAE %.4f is not below %s's %.4f", dev, f, iasp, base, b)
				} else {
					t.Logf("%s, fraction %v: iasp %.4f < %s %.4f", dev, f, iasp, base, b)
				}
			}
		}
	}
}

func format(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func TestSplitsAreSharedAndNested(t *testing.T) {
	var obs []model.Obs
	for a := 0; a < 6; a++ {
		for b := 0; b < 6; b++ {
			obs = append(obs, model.Obs{A: a, B: b, Y: 0.5 + float64(a+b)/20})
		}
	}
	small := split("pairs", obs, nil, "k80", 0.2, 3, 6)[0]
	large := split("pairs", obs, nil, "k80", 0.5, 3, 6)[0]
	if len(small.train) != 7 || len(small.test) != 29 {
		t.Fatalf("0.2 of 36 pairs: %d observed, %d held out; want 7 and 29", len(small.train), len(small.test))
	}
	in := map[model.Obs]bool{}
	for _, o := range large.train {
		in[o] = true
	}
	for _, o := range small.train {
		if !in[o] {
			t.Fatalf("pair %v observed at 0.2 but not at 0.5: splits must nest", o)
		}
	}
	// Same seed, shuffled input: same split.
	rev := make([]model.Obs, len(obs))
	for i, o := range obs {
		rev[len(obs)-1-i] = o
	}
	if got := split("pairs", rev, nil, "k80", 0.2, 3, 6)[0]; got.train[0] != small.train[0] || got.train[6] != small.train[6] {
		t.Fatal("the split depends on the input order")
	}
	if other := split("pairs", obs, nil, "k80", 0.2, 4, 6)[0]; other.train[0] == small.train[0] && other.train[1] == small.train[1] {
		t.Fatal("seeds 3 and 4 give the same split")
	}
	// new-job: each job's pairs are hidden in turn; nothing else is.
	tasks := split("new-job", obs, nil, "k80", 0, 1, 6)
	if len(tasks) != 6 {
		t.Fatalf("%d new-job tasks, want 6", len(tasks))
	}
	for j, tk := range tasks {
		if len(tk.test) != 11 || len(tk.train) != 25 {
			t.Fatalf("job %d: %d held out, %d observed; want 11 and 25", j, len(tk.test), len(tk.train))
		}
		for _, o := range tk.train {
			if o.A == j || o.B == j {
				t.Fatalf("job %d: its pair %v is observed at fraction 0", j, o)
			}
		}
	}
}

func TestMetrics(t *testing.T) {
	xs := []scored{
		{a: 0, b: 1, y: 0.9, p: 0.85},
		{a: 1, b: 0, y: 0.85, p: 0.75}, // decision: measured co-locate, predicted not
		{a: 0, b: 0, y: 0.5, p: 0.6},
		{a: 2, b: 3, y: 0.7, p: 0.7}, // no reverse pair: not in agreement
	}
	m := score(xs)
	want := Metrics{N: 4, MAE: 0.0625, RMSE: math.Sqrt((0.0025 + 0.01 + 0.01) / 4), Agreement: 0.5, NAgree: 2}
	if m.N != want.N || math.Abs(m.MAE-want.MAE) > 1e-12 || math.Abs(m.RMSE-want.RMSE) > 1e-12 {
		t.Errorf("got n %d MAE %v RMSE %v, want %d %v %v", m.N, m.MAE, m.RMSE, want.N, want.MAE, want.RMSE)
	}
	if m.Agreement != 0.5 || m.NAgree != 2 {
		t.Errorf("agreement %v over %d pairs, want 0.5 over 2", m.Agreement, m.NAgree)
	}
	// Predictions in the same order as the measurements: rho = 1.
	if m.Spearman != 1 {
		t.Errorf("spearman %v, want 1", m.Spearman)
	}
	if got := ranks([]float64{3, 1, 3, 2}); got[0] != 3.5 || got[1] != 1 || got[2] != 3.5 || got[3] != 2 {
		t.Errorf("ranks with ties: %v", got)
	}
	if r2 := score([]scored{{y: 1, p: 1}, {y: 2, p: 2}}).R2; r2 != 1 {
		t.Errorf("R2 of exact predictions %v, want 1", r2)
	}
}

// Predict gives the per-pair predictions of the very fits Run scores: the
// MAE over its held-out pairs equals the cell's, for every model and
// protocol, and its pairs are exactly the split's held-out ones.
func TestPredictMatchesRun(t *testing.T) {
	d, err := model.LoadData(gavel)
	if err != nil {
		t.Fatal(err)
	}
	models := []string{"mean", "bias"}
	// Default devices: those Predict trains cross-device on.
	o := Options{Protocols: Protocols, Fractions: []float64{0.5}, Seeds: 2, Models: models}
	res, err := Run(d, o)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range res.Cells {
		if c.Seed != 2 {
			continue
		}
		sp := Split{Protocol: c.Protocol, Device: c.Device, Fraction: c.Fraction, Seed: c.Seed}
		ps, err := Predict(d, []string{c.Model}, sp)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != c.N {
			t.Fatalf("%s %s: %d predictions, the cell scored %d pairs", c.Model, sp, len(ps), c.N)
		}
		sum := 0.0
		seen := map[[2]string]bool{}
		checked++
		for _, p := range ps {
			if p.Model != c.Model || p.Device != c.Device {
				t.Fatalf("prediction %+v is labelled for another cell", p)
			}
			sum += math.Abs(p.Predicted - p.Measured)
			seen[[2]string{p.Workload, p.Partner}] = true
		}
		// new-job holds out A|B once for A and once for B; the others once.
		if c.Protocol != "new-job" && len(seen) != len(ps) {
			t.Errorf("%s %s: a held-out pair appears twice", c.Model, sp)
		}
		if mae := sum / float64(len(ps)); mae != c.MAE {
			t.Errorf("%s %s: MAE of the predictions %v, cell MAE %v", c.Model, sp, mae, c.MAE)
		}
	}
	if want := len(models) * len(Protocols) * 3; checked != want {
		t.Errorf("compared %d cells, want %d (2 models, 3 protocols, 3 devices)", checked, want)
	}
	// Held-out pairs are not among the observed ones: 0.5 of k80's pairs
	// are predicted, so about half of them.
	all := 0
	for _, ob := range d.Obs {
		if d.Space.Slots[ob.S].String() == "k80" {
			all++
		}
	}
	ps, err := Predict(d, []string{"mean"}, Split{Protocol: "pairs", Device: "k80", Fraction: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := all - observed(0.5, all); len(ps) != want {
		t.Errorf("%d held-out k80 pairs, want %d of %d", len(ps), want, all)
	}
	for _, bad := range []Split{
		{Protocol: "all", Device: "k80", Fraction: 0.5, Seed: 1},
		{Protocol: "pairs", Device: "k80", Fraction: 1, Seed: 1},
		{Protocol: "pairs", Device: "k80", Fraction: 0.5, Seed: 0},
		{Protocol: "pairs", Device: "a100", Fraction: 0.5, Seed: 1},
	} {
		if _, err := Predict(d, []string{"mean"}, bad); err == nil {
			t.Errorf("split %s accepted", bad)
		}
	}
}

// A result written and read back has the same cells and summaries.
func TestResultFileRoundTrip(t *testing.T) {
	d, err := model.LoadData(gavel)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(d, Options{Protocols: []string{"pairs"}, Fractions: []float64{0.2, 0.5}, Seeds: 3,
		Models: []string{"mean", "bias"}, Devices: []string{"k80", "v100"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "eval.arrow")
	if err := res.Write(path); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !equalNaN(got.Cells, res.Cells) {
		t.Errorf("cells differ after the round trip:\n got %+v\nwant %+v", got.Cells[:2], res.Cells[:2])
	}
	if !equalNaN(got.Summaries, res.Summaries) {
		t.Errorf("summaries differ after the round trip:\n got %+v\nwant %+v", got.Summaries, res.Summaries)
	}
	if len(got.Warnings) != len(res.Warnings) || len(got.Warnings) == 0 {
		t.Errorf("warnings %q, want %q", got.Warnings, res.Warnings)
	}
	// Another table is refused by name.
	if _, err := Read(filepath.Join(gavel, "pairs.arrow")); err == nil || !strings.Contains(err.Error(), "eval") {
		t.Errorf("reading a pairs table as a result: %v", err)
	}
}

// equalNaN compares the printed forms, so that NaN equals NaN.
func equalNaN(a, b any) bool { return fmt.Sprintf("%v", a) == fmt.Sprintf("%v", b) }

func TestReadRefusesBadCells(t *testing.T) {
	good := Cell{Model: "bias", Protocol: "pairs", Device: "k80", Fraction: 0.5, Seed: 1, Metrics: Metrics{N: 3, MAE: 0.1, RMSE: 0.1, MAPE: 5, NAgree: 1}}
	cases := []struct {
		edit func(c *Cell)
		want string
	}{
		{func(c *Cell) { c.Protocol = "holdout" }, "column protocol"},
		{func(c *Cell) { c.Fraction = 1 }, "column fraction"},
		{func(c *Cell) { c.Seed = 0 }, "column seed"},
		{func(c *Cell) { c.MAE = -1 }, "column mae"},
		{func(c *Cell) { c.NAgree = 4 }, "n_agreement"},
		{func(c *Cell) { c.Model = "" }, "column model"},
	}
	for _, tc := range cases {
		c := good
		tc.edit(&c)
		path := filepath.Join(t.TempDir(), "eval.arrow")
		if err := (&Result{Cells: []Cell{good, c}}).Write(path); err != nil {
			t.Fatal(err)
		}
		_, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), "row 2") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want row 2 and %q", err, tc.want)
		}
	}
}

// Nominal 90% intervals cover between 85% and 95% of the held-out Gavel
// pairs in every cell (median over 5 seeds) of protocol pairs, fractions
// 0.2 and 0.5, on k80, p100 and v100.
func TestIntervalCoverageOnGavel(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 330 IASP models on Gavel's data (about a minute)")
	}
	d, err := model.LoadData(gavel)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Protocols: []string{"pairs"}, Fractions: []float64{0.2, 0.5}, Seeds: 5,
		Models: []string{"iasp"}, Devices: []string{"k80", "p100", "v100"}, Trust: model.DefaultTrustOptions}
	res, err := Run(d, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Summaries) != 6 {
		t.Fatalf("%d summaries, want 6", len(res.Summaries))
	}
	for _, s := range res.Summaries {
		if !(s.CoverageMedian >= 0.85 && s.CoverageMedian <= 0.95) {
			t.Errorf("%s %s fraction %v: coverage %.3f is outside [0.85, 0.95]", s.Model, s.Device, s.Fraction, s.CoverageMedian)
		}
		if !(s.WidthMedian > 0 && s.WidthMedian < 1) {
			t.Errorf("%s %s fraction %v: width %.3f", s.Model, s.Device, s.Fraction, s.WidthMedian)
		}
		t.Logf("%s %s fraction %v: coverage %.3f, width %.3f, MAE %.4f", s.Model, s.Device, s.Fraction, s.CoverageMedian, s.WidthMedian, s.MAEMedian)
	}
}

// A cell that cannot be fit (too few pairs at a small fraction) is
// reported and skipped; the other cells are scored.
func TestUnfittableCellIsSkipped(t *testing.T) {
	d, err := model.LoadData(gavel)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Protocols: []string{"pairs"}, Fractions: []float64{0.001, 0.2}, Seeds: 1,
		Models: []string{"mean"}, Devices: []string{"k80"}, Trust: model.TrustOptions{Coverage: 0.9}}
	res, err := Run(d, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != 1 || len(res.Cells) != 1 || res.Cells[0].Fraction != 0.2 {
		t.Fatalf("skipped %d, cells %+v; want the 0.001 cell skipped and the 0.2 cell scored", res.Skipped, res.Cells)
	}
	last := res.Warnings[len(res.Warnings)-1]
	if !strings.Contains(last, "fraction 0.001") || !strings.Contains(last, "larger --fractions") {
		t.Errorf("warning %q does not name the cell and what to change", last)
	}
}

package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/model/eval/evalfile"
)

// The learning curves drawn are those of the file `coloc eval --protocol
// active -o` writes (eval.RunActive's medians), with the all-pairs
// reference as a flat line; a file of an unknown version is refused,
// naming it.
func TestReportActive(t *testing.T) {
	if testing.Short() {
		t.Skip("fits IASP 2 x 10 times on Gavel's k80")
	}
	d, err := model.LoadData(gavelDir)
	if err != nil {
		t.Fatal(err)
	}
	// random and uncertainty: their picks do not depend on the order in
	// which RunActive lists the pairs it has revealed.
	strategies := []string{model.StrategyUncertainty, model.StrategyRandom}
	o := eval.DefaultActiveOptions
	o.Seeds, o.Devices, o.Strategies = 1, []string{"k80"}, strategies
	want, err := eval.RunActive(d, o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "active.json")
	if err := evalfile.WriteActive(file, &evalfile.Active{Options: o, Result: want}); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Data, cfg.ActiveFile, cfg.Out = []string{gavelDir}, file, filepath.Join(dir, "report")
	build(t, cfg)
	page := readFile(t, filepath.Join(cfg.Out, "index.html"))
	curve := readFile(t, filepath.Join(cfg.Out, "active-k80.csv"))
	if len(want.Summaries) != 2*10 {
		t.Fatalf("%d summaries, want 2 strategies x 10 shares", len(want.Summaries))
	}
	for _, s := range want.Summaries {
		if line := s.Strategy + "," + csvNum(s.Fraction) + "," + csvNum(s.MAEMedian) + ",\n"; !strings.Contains(curve, line) {
			t.Errorf("learning curve lacks %q:\n%s", line, curve)
		}
	}
	ref := want.Reference["k80"]
	for _, x := range []string{"0.05", "0.5"} {
		if line := "all pairs," + x + "," + csvNum(ref) + ",\n"; !strings.Contains(curve, line) {
			t.Errorf("learning curve lacks the reference %q:\n%s", line, curve)
		}
	}
	ratio := fmt.Sprintf("%.2f", want.At(model.StrategyUncertainty, "k80", 0.2)/want.At(model.StrategyRandom, "k80", 0.2))
	for _, s := range []string{"Choosing the pairs to profile: learning curves", "active-k80.svg", "seeds 1 to 1), the file " + file,
		row("k80", model.StrategyUncertainty, cell4(want.At(model.StrategyUncertainty, "k80", 0.05))),
		row(ratio) + "</tr>"} {
		if !strings.Contains(page, s) {
			t.Errorf("index.html lacks %s", s)
		}
	}

	b := []byte(strings.Replace(readFile(t, file), `"version": 2`, `"version": 9`, 1))
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Out = filepath.Join(dir, "report2")
	if _, err := Build(cfg); err == nil || !strings.Contains(err.Error(), "version 9 is not known") || !strings.Contains(err.Error(), file) {
		t.Errorf("learning curves of version 9: %v", err)
	}
}

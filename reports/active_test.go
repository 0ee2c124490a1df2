package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
)

// The learning curves drawn are eval.RunActive's medians, with the
// all-pairs reference as a flat line; a second report with the same cache
// reads them back and writes the same page; a cache file of an unknown
// version is refused, naming it.
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
	cache := filepath.Join(dir, "cache")
	cfg := DefaultConfig()
	cfg.Data, cfg.EvalModels, cfg.EvalCache = []string{gavelDir}, nil, cache
	cfg.ActiveSeeds, cfg.ActiveDevices, cfg.ActiveStrategies = 1, []string{"k80"}, strategies
	pages := make([]string, 2)
	for i := range pages {
		cfg.Out = filepath.Join(dir, "report", string(rune('a'+i)))
		build(t, cfg)
		pages[i] = readFile(t, filepath.Join(cfg.Out, "index.html"))
	}
	if pages[0] != pages[1] {
		t.Error("the report from the cached curves differs from the computed one")
	}
	cached, _ := filepath.Glob(filepath.Join(cache, "active-*.json"))
	if len(cached) != 1 {
		t.Fatalf("cache holds %v, want one active-*.json", cached)
	}
	curve := readFile(t, filepath.Join(dir, "report", "a", "active-k80.csv"))
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
	for _, s := range []string{"Choosing the pairs to profile: learning curves", "active-k80.svg",
		row("k80", model.StrategyUncertainty, cell4(want.At(model.StrategyUncertainty, "k80", 0.05))),
		row(ratio) + "</tr>"} {
		if !strings.Contains(pages[0], s) {
			t.Errorf("index.html lacks %s", s)
		}
	}

	b := []byte(strings.Replace(readFile(t, cached[0]), `"version": 1`, `"version": 9`, 1))
	if err := os.WriteFile(cached[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Out = filepath.Join(dir, "report", "c")
	if _, err := Build(cfg); err == nil || !strings.Contains(err.Error(), "version 9 is not known") || !strings.Contains(err.Error(), cached[0]) {
		t.Errorf("cache of version 9: %v", err)
	}
}

// Settings of the learning curves are checked before any work.
func TestReportActiveSettings(t *testing.T) {
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.ActiveSeeds = -1 }, "--active-seeds -1"},
		{func(c *Config) { c.ActiveSeeds, c.ActiveModel = 1, "typo" }, `unknown model "typo"`},
		{func(c *Config) { c.ActiveSeeds, c.ActiveModel = 1, "iasp,iapp" }, "want one model"},
		{func(c *Config) { c.ActiveSeeds, c.ActiveStrategies = 1, []string{"widest"} }, `active strategy "widest"`},
	} {
		cfg := DefaultConfig()
		cfg.Data, cfg.Out = []string{gavelDir}, filepath.Join(t.TempDir(), "r")
		c.set(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

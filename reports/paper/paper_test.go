package paper

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/internal/treetest"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/sim/experiment"
	"github.com/coloc-dev/coloc/sim/policies"
)

// reduced is the paper with fewer evaluated models, fractions, seeds,
// learning curves and traces, so that a test can write it more than once.
// The policies still get every model they use.
func reduced(t testing.TB, out string) *Plan {
	t.Helper()
	p, err := New("../..", out)
	if err != nil {
		t.Fatal(err)
	}
	p.Evaluated, p.Fractions, p.Seeds = []string{"mean", "bias"}, []float64{0.2, 0.5}, 2
	p.Active.Seeds, p.Active.Devices, p.Active.Strategies = 1, []string{"k80"}, []string{"width", "uncertainty", "random"}
	var keep []Scenario
	for _, sc := range p.Scenarios {
		if strings.HasSuffix(sc.Trace, "small_test.trace") || strings.HasSuffix(sc.Trace, "minimize_makespan.trace") && strings.HasSuffix(sc.Cluster, "-48.yaml") {
			keep = append(keep, sc)
		}
	}
	p.Scenarios = keep
	return p
}

// Two papers written to different directories hold the same files, byte
// for byte, the stages' files included; every figure has its three
// files; every policy of coloc simulate is either in the policy table or
// named as not shown; the page names the stages' files by their place
// beside it and the data by its place in the repository.
func TestPaperSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("writes the paper twice (fits every model the policies use); not in -short")
	}
	dirs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	for _, d := range dirs {
		if _, err := reduced(t, d).Build(); err != nil {
			t.Fatal(err)
		}
	}
	a := treetest.Files(t, dirs[0])
	treetest.Same(t, a, treetest.Files(t, dirs[1]), "the two papers")
	page := string(a["index.html"])
	figs := 0
	for f := range a {
		if strings.HasSuffix(f, ".svg") {
			figs++
			base := strings.TrimSuffix(f, ".svg")
			for _, ext := range []string{".png", ".csv"} {
				if _, ok := a[base+ext]; !ok {
					t.Errorf("figure %s has no %s", base, ext)
				}
			}
			if !strings.Contains(page, `src="`+f+`"`) {
				t.Errorf("index.html does not show %s", f)
			}
		}
	}
	if figs < 20 {
		t.Errorf("%d figures, want at least 20", figs)
	}
	for _, p := range experiment.All(policies.Config{}) {
		if !strings.Contains(page, "<td>"+p.Name+"</td>") && !strings.Contains(page, "policy "+p.Name+": ") {
			t.Errorf("policy %s is neither in the policy table nor named as not shown", p.Name)
		}
	}
	// The warnings of the data: Gavel's suspect and infeasible pairs.
	if !strings.Contains(page, "<h2>Warnings</h2>") || !strings.Contains(page, "<li>data gavel: 6,282 pairs not measured or unable to run (infeasible) at degree &gt; 1") {
		i := strings.Index(page, "<h2>Warnings</h2>")
		t.Errorf("index.html lacks the warnings of the data or the simulator:\n%s", page[max(i, 0):])
	}
	for _, want := range []string{"datasets/reference/gavel/pairs.arrow", "datasets/reference/pollux/scaling.arrow",
		"stages/eval.arrow", "stages/predictions.arrow", "stages/active.json",
		"stages/replay-physical_cluster-small_test-gavel-48.json", "<h2>Scaling: pollux</h2>"} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	for _, f := range []string{"stages/models/index.json", "stages/eval.arrow", "stages/predictions.arrow", "stages/active.json",
		"stages/replay-physical_cluster-minimize_makespan-gavel-48.json"} {
		if _, ok := a[f]; !ok {
			t.Errorf("the paper lacks %s", f)
		}
	}
	if strings.Contains(page, dirs[0]) {
		t.Error("index.html names the report directory")
	}
}

// A paper from the cache is the paper without it, byte for byte: written
// without a cache, then twice with one, the second time from the
// evaluation, the learning curves and the models the first stored.
func TestPaperCacheSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("three papers: not in -short")
	}
	tmp := t.TempDir()
	cache := filepath.Join(tmp, "cache")
	plain := filepath.Join(tmp, "plain")
	if _, err := reduced(t, plain).Build(); err != nil {
		t.Fatal(err)
	}
	var logs [2]bytes.Buffer
	var dirs [2]string
	for i := range dirs {
		dirs[i] = filepath.Join(tmp, fmt.Sprint("cached", i))
		p := reduced(t, dirs[i])
		p.Cache, p.Progress = cache, &logs[i]
		if _, err := p.Build(); err != nil {
			t.Fatal(err)
		}
	}
	for _, pattern := range []string{"eval-*.arrow", "models-*", "active-*.json"} {
		if stored, _ := filepath.Glob(filepath.Join(cache, pattern)); len(stored) != 1 {
			t.Fatalf("the cache holds %d %s, want 1", len(stored), pattern)
		}
	}
	copied := fmt.Sprintf("models: %d copied from the cache", len(model.StandardNames()))
	for _, what := range []string{"evaluation reused from the cache", copied, "learning curves reused from the cache"} {
		if strings.Contains(logs[0].String(), what) || !strings.Contains(logs[1].String(), what) {
			t.Fatalf("want the first cached paper to compute and the second to reuse (%s); logs:\n%s\n---\n%s", what, logs[0].String(), logs[1].String())
		}
	}
	want := treetest.Files(t, plain)
	for _, dir := range dirs {
		treetest.Same(t, want, treetest.Files(t, dir), filepath.Base(dir)+" against the paper without a cache")
	}
}

// A mistyped policy or model, or a root without the reference data, is
// refused before any stage: nothing is written, not even a progress line.
func TestPaperRefusedBeforeWork(t *testing.T) {
	out := filepath.Join(t.TempDir(), "paper")
	for _, c := range []struct {
		set  func(*Plan)
		want string
	}{
		{func(p *Plan) { p.Policies = []string{"fifo", "typo"} }, `policy: unknown policy "typo"`},
		{func(p *Plan) { p.Evaluated = []string{"nope"} }, `unknown model "nope"`},
		{func(p *Plan) { p.SplitFraction = 1 }, "split fraction 1"},
		{func(p *Plan) { p.Scenarios = nil }, "no trace or no policy"},
	} {
		p, err := New("../..", out)
		if err != nil {
			t.Fatal(err)
		}
		var progress bytes.Buffer
		p.Progress = &progress
		c.set(p)
		if _, err := p.Build(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
		if progress.Len() > 0 {
			t.Errorf("steps ran before the error:\n%s", progress.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("the refused paper created %s", out)
		}
	}
	if _, err := New(t.TempDir(), out); err == nil || !strings.Contains(err.Error(), "is --root the coloc repository") {
		t.Errorf("paper of a directory without the reference data: %v", err)
	}
}

// BenchmarkPaper writes the whole paper, as `coloc report paper` does,
// once per op: go test -run '^$' -bench 'Paper$' -benchtime 1x ./reports/paper
func BenchmarkPaper(b *testing.B) {
	for b.Loop() {
		p, err := New("../..", filepath.Join(b.TempDir(), "paper"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Build(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPaperCached writes the paper from the cache (filled before the
// timer starts), once per op: go test -run '^$' -bench PaperCached
// -benchtime 1x ./reports/paper. COLOC_BENCH_EVAL_CACHE=DIR keeps the
// cache in DIR across runs, so that a CPU profile of a second run
// (-cpuprofile) holds only warm papers.
func BenchmarkPaperCached(b *testing.B) {
	cache := os.Getenv("COLOC_BENCH_EVAL_CACHE")
	if cache == "" {
		cache = filepath.Join(b.TempDir(), "cache")
	}
	run := func() {
		p, err := New("../..", filepath.Join(b.TempDir(), "paper"))
		if err != nil {
			b.Fatal(err)
		}
		p.Cache = cache
		if _, err := p.Build(); err != nil {
			b.Fatal(err)
		}
	}
	run()
	for b.Loop() {
		run()
	}
}

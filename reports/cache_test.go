package reports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// A report built from a cached evaluation and cached models is the
// report built without the cache, byte for byte: the (reduced) paper
// report is written without a cache, then twice with one, the second time
// from the evaluation and the models the first stored.
func TestReportEvalCacheSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("three report builds: not in -short")
	}
	tmp := t.TempDir()
	cache := filepath.Join(tmp, "cache")
	plain := filepath.Join(tmp, "plain")
	build(t, reducedPaper(t, plain))
	var logs [2]bytes.Buffer
	var dirs [2]string
	for i := range dirs {
		dirs[i] = filepath.Join(tmp, fmt.Sprint("cached", i))
		cfg := reducedPaper(t, dirs[i])
		cfg.EvalCache = cache
		cfg.Progress = &logs[i]
		build(t, cfg)
	}
	for _, pattern := range []string{"eval-*.arrow", "models-*"} {
		if stored, _ := filepath.Glob(filepath.Join(cache, pattern)); len(stored) != 1 {
			t.Fatalf("the cache holds %d %s, want 1", len(stored), pattern)
		}
	}
	for _, what := range []string{"evaluation reused from the cache", "models reused from the cache"} {
		if strings.Contains(logs[0].String(), what) || !strings.Contains(logs[1].String(), what) {
			t.Fatalf("want the first cached build to compute and the second to reuse (%s); logs:\n%s\n---\n%s", what, logs[0].String(), logs[1].String())
		}
	}
	want := reportFiles(t, plain)
	for _, dir := range dirs {
		got := reportFiles(t, dir)
		if len(got) != len(want) {
			t.Fatalf("%s holds %d files, the report without a cache %d", dir, len(got), len(want))
		}
		for name, b := range want {
			if !bytes.Equal(got[name], b) {
				t.Errorf("%s: %s differs from the report built without a cache", filepath.Base(dir), name)
			}
		}
	}
}

// reportFiles reads every file of a report directory by its relative path.
func reportFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no files", dir)
	}
	return out
}

// BenchmarkReportPaperCached writes the paper report from a cached
// evaluation (the cache is filled before the timer starts), once per op:
// go test -run '^$' -bench ReportPaperCached -benchtime 1x ./reports
// COLOC_BENCH_EVAL_CACHE=DIR keeps the cache in DIR across runs, so that a
// CPU profile of a second run (-cpuprofile) holds only warm reports.
func BenchmarkReportPaperCached(b *testing.B) {
	cache := os.Getenv("COLOC_BENCH_EVAL_CACHE")
	if cache == "" {
		cache = filepath.Join(b.TempDir(), "cache")
	}
	run := func() {
		cfg, err := PaperConfig("..", filepath.Join(b.TempDir(), "paper"))
		if err != nil {
			b.Fatal(err)
		}
		cfg.EvalCache = cache
		if _, err := Build(cfg); err != nil {
			b.Fatal(err)
		}
	}
	run()
	for b.Loop() {
		run()
	}
}

// The models cache: a second call copies what the first fitted and
// stored, another seed is another key, and a stored file whose bytes no
// longer match its index is refused, not copied.
func TestCachedModels(t *testing.T) {
	d, err := model.LoadData(filepath.Join("..", "datasets", "reference", "gavel"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cache := filepath.Join(tmp, "cache")
	names := []string{"mean", "bias"}
	fit := func(out string, seed uint64) bool {
		t.Helper()
		warnings, hit, err := cachedModels(cache, filepath.Join(tmp, out), d, names, seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(warnings) != len(names) {
			t.Fatalf("%d warning lists for %d models", len(warnings), len(names))
		}
		return hit
	}
	if fit("a", 1) || !fit("b", 1) || fit("c", 2) {
		t.Fatal("want a miss, a hit, then a miss for another seed")
	}
	a, b := reportFiles(t, filepath.Join(tmp, "a")), reportFiles(t, filepath.Join(tmp, "b"))
	if len(a) != len(names)+1 {
		t.Fatalf("models dir holds %d files, want %d", len(a), len(names)+1)
	}
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s: the copy differs from the fit", name)
		}
	}
	stored, _ := filepath.Glob(filepath.Join(cache, "models-*"))
	if len(stored) != 2 {
		t.Fatalf("%d stored model directories, want 2", len(stored))
	}
	key, err := modelsKey(d, names, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "models-"+key, "bias.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := cachedModels(cache, filepath.Join(tmp, "d"), d, names, 1); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("a changed cached file: error %v, want one about its SHA-256", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "d")); err == nil {
		t.Error("a refused copy left a models directory")
	}
}

package reports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report built from a cached evaluation is the report built without
// the cache, byte for byte: the (reduced) paper report is written without
// a cache, then twice with one, the second time from the evaluation the
// first stored.
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
	stored, _ := filepath.Glob(filepath.Join(cache, "eval-*.arrow"))
	if len(stored) != 1 {
		t.Fatalf("the cache holds %d evaluations, want 1", len(stored))
	}
	if strings.Contains(logs[0].String(), "evaluation reused") || !strings.Contains(logs[1].String(), "evaluation reused from the cache") {
		t.Fatalf("want the first cached build to compute and the second to reuse; logs:\n%s\n---\n%s", logs[0].String(), logs[1].String())
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

package paper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/internal/treetest"
	"github.com/coloc-dev/coloc/model"
)

// The models cache: a second call copies what the first fitted and
// stored, another seed is another key, and a stored file whose bytes no
// longer match its index is refused, not copied.
func TestCachedModels(t *testing.T) {
	d, err := model.LoadData(filepath.Join("..", "..", "datasets", "reference", "gavel"))
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
	a, b := treetest.Files(t, filepath.Join(tmp, "a")), treetest.Files(t, filepath.Join(tmp, "b"))
	if len(a) != len(names)+1 {
		t.Fatalf("models dir holds %d files, want %d", len(a), len(names)+1)
	}
	treetest.Same(t, a, b, "the fit and its copy from the cache")
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

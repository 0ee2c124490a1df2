package optional

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecordAppendsOneLine(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skipped")
	t.Setenv("COLOC_SKIP_LOG", log)
	Record("torch", "TestA", "no torch\nhere")
	Record("node", "TestB", "no node")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "torch: TestA: no torch here\nnode: TestB: no node\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestMissingSkipsAndRecords(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skipped")
	t.Setenv("COLOC_SKIP_LOG", log)
	t.Setenv("COLOC_REQUIRE_NOTHING", "")
	t.Run("inner", func(t *testing.T) {
		Missing(t, "nothing", "COLOC_REQUIRE_NOTHING", "the tool is not here")
		t.Error("Missing returned")
	})
	b, _ := os.ReadFile(log)
	if !strings.HasPrefix(string(b), "nothing: TestMissingSkipsAndRecords/inner: the tool is not here") {
		t.Errorf("log %q", b)
	}
}

package treetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, format)
}

// Files reads nested files by slash paths; Same finds a changed file and
// a file on one side only, and nothing in two equal trees.
func TestFilesAndSame(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a": "1", "sub/b": "2", "sub/deeper/c": "3"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := Files(t, dir)
	if len(a) != 3 || string(a["sub/deeper/c"]) != "3" {
		t.Fatalf("Files = %q", a)
	}
	r := &recorder{TB: t}
	Same(r, a, Files(t, dir), "equal trees")
	if len(r.errs) != 0 {
		t.Errorf("equal trees: %d failures", len(r.errs))
	}
	b := map[string][]byte{"a": []byte("1"), "sub/b": []byte("changed"), "extra": nil}
	r = &recorder{TB: t}
	Same(r, a, b, "x")
	if got := strings.Join(r.errs, "|"); len(r.errs) != 3 || !strings.Contains(got, "differs") || !strings.Contains(got, "only in the first") || !strings.Contains(got, "only in the second") {
		t.Errorf("failures %q, want one each for the changed file and each side's own", r.errs)
	}
}

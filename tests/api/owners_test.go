// Package api_test checks conventions of the code as a whole: who owns a
// textual convention of the data, and which names a package exports.
package api_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneOwnerOfNameConventions: the two textual conventions the data
// carry, the spread device type's suffix and the batch size in a Gavel-style
// job name, are spelled only in package datasets (SpreadType, BaseType,
// SplitJobName); every other package calls those.
func TestOneOwnerOfNameConventions(t *testing.T) {
	root := filepath.Join("..", "..")
	conventions := []string{"_unconsolidated", "(batch size [", `\(batch size`}
	for _, p := range goFiles(t, false) {
		rel, _ := filepath.Rel(root, p)
		if filepath.Dir(filepath.ToSlash(rel)) == "datasets" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range conventions {
			if strings.Contains(string(b), c) {
				t.Errorf("%s spells %q: call datasets.SpreadType, BaseType or SplitJobName instead", rel, c)
			}
		}
	}
}

// goFiles returns the paths of the repository's Go files, its test files
// when tests is true, else the others (testdata and node_modules left out).
func goFiles(t *testing.T, tests bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join("..", ".."), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && strings.HasSuffix(p, "_test.go") == tests {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

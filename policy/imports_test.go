package policy

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsStayPure: package policy is imported by schedulers, so it
// imports the standard library and std-only leaves of coloc, no cgo.
func TestImportsStayPure(t *testing.T) {
	allowed := map[string]bool{
		"github.com/coloc-dev/coloc/internal/similarity": true,
		"github.com/coloc-dev/coloc/internal/atomicfile": true,
		"github.com/coloc-dev/coloc/internal/jsonkeys":   true,
		"github.com/coloc-dev/coloc/internal/inputfile":  true,
	}
	n := 0
	for _, imp := range sourceImports(t, ".") {
		if first, _, _ := strings.Cut(imp.path, "/"); imp.path == "C" || (strings.Contains(first, ".") && !allowed[imp.path]) {
			t.Errorf("%s imports %s", imp.file, imp.path)
		}
		n++
	}
	if n == 0 {
		t.Error("no imports seen")
	}
	// The leaves themselves import only the standard library.
	for leaf := range allowed {
		dir := filepath.Join("..", strings.TrimPrefix(leaf, "github.com/coloc-dev/coloc/"))
		if srcs, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(srcs) == 0 {
			t.Errorf("%s: no sources in %s", leaf, dir)
		}
		for _, imp := range sourceImports(t, dir) {
			if first, _, _ := strings.Cut(imp.path, "/"); imp.path == "C" || strings.Contains(first, ".") {
				t.Errorf("%s imports %s", imp.file, imp.path)
			}
		}
	}
}

type sourceImport struct{ file, path string }

// sourceImports lists the imports of the non-test Go files of dir.
func sourceImports(t *testing.T, dir string) []sourceImport {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []sourceImport
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			out = append(out, sourceImport{name, path})
		}
	}
	return out
}

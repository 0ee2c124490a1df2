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
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
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
			first, _, _ := strings.Cut(path, "/")
			if path == "C" || (strings.Contains(first, ".") && !allowed[path]) {
				t.Errorf("%s imports %s", name, path)
			}
			n++
		}
	}
	if n == 0 {
		t.Error("no imports seen")
	}
	// The leaves themselves import only the standard library.
	for leaf := range allowed {
		dir := filepath.Join("..", strings.TrimPrefix(leaf, "github.com/coloc-dev/coloc/"))
		srcs, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(srcs) == 0 {
			t.Errorf("%s: no sources in %s", leaf, dir)
		}
		for _, name := range srcs {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if first, _, _ := strings.Cut(path, "/"); path == "C" || strings.Contains(first, ".") {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
}

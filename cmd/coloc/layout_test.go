package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines is the budget of non-blank lines of the binary's non-test
// files, help text included: the binary only parses flags, calls one
// library function and prints, so a command that grows past it holds work
// that belongs to a library package (docs/architecture.md).
const maxLines = 3200

// The binary stays a thin layer, and no test changes its package-level
// state: tests build an env and call runEnv as main does.
func TestBinaryOnlyWires(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	vars := map[string]bool{} // package-level variables of the non-test files
	var tests []*ast.File
	lines := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, "_test.go") {
			tests = append(tests, file)
			continue
		}
		for _, line := range strings.Split(string(src), "\n") {
			if line != "" {
				lines++
			}
		}
		for _, d := range file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						vars[n.Name] = true
					}
				}
			}
		}
	}
	if lines > maxLines {
		t.Errorf("cmd/coloc holds %d non-blank lines outside tests, more than %d: move the work into a library package", lines, maxLines)
	}
	for _, file := range tests {
		ast.Inspect(file, func(n ast.Node) bool {
			var lhs []ast.Expr
			switch s := n.(type) {
			case *ast.AssignStmt:
				lhs = s.Lhs
			case *ast.IncDecStmt:
				lhs = []ast.Expr{s.X}
			}
			for _, e := range lhs {
				for {
					switch x := e.(type) {
					case *ast.IndexExpr:
						e = x.X
						continue
					case *ast.SelectorExpr:
						e = x.X
						continue
					}
					break
				}
				if id, ok := e.(*ast.Ident); ok && vars[id.Name] && id.Obj == nil {
					t.Errorf("%s: a test overwrites the package-level variable %s", fset.Position(id.Pos()), id.Name)
				}
			}
			return true
		})
	}
}

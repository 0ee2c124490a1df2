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

// maxFuncLines is the most code lines one function of the binary may
// hold: lines that are not blank, not comments, not inside a string
// literal (help text) and not a flag's registration. A command parses
// flags, calls a library function and prints; a function past this holds
// work that belongs to a library package (docs/architecture.md). The
// largest today, profile run's constructor (its RunE checks a score of
// flags against each other), has about 110.
const maxFuncLines = 120

// The binary stays a thin layer by its structure, not its length (a new
// subcommand adds lines without adding logic): no function past
// maxFuncLines code lines, no types but flag bundles (…Flags), the env and
// the exit-status plumbing, methods only on those. No test changes its
// package-level state: tests build an env and call runEnv as main does.
func TestBinaryOnlyWires(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	vars := map[string]bool{} // package-level variables of the non-test files
	var tests []*ast.File
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
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						if d.Tok == token.VAR {
							for _, n := range s.Names {
								vars[n.Name] = true
							}
						}
					case *ast.TypeSpec:
						if !wiringType(s.Name.Name) {
							t.Errorf("%s: type %s: the binary declares only flag bundles (…Flags), env and exit plumbing; a type with behaviour belongs to a library package", fset.Position(s.Pos()), s.Name.Name)
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if st, ok := recv.(*ast.StarExpr); ok {
						recv = st.X
					}
					if id, ok := recv.(*ast.Ident); !ok || !wiringType(id.Name) {
						t.Errorf("%s: method %s on a type that is not a flag bundle, env or exit plumbing", fset.Position(d.Pos()), d.Name.Name)
					}
				}
				if n := codeLines(fset, file, src, d); n > maxFuncLines {
					t.Errorf("%s: %s holds %d code lines, more than %d: move the work into a library package", fset.Position(d.Pos()), d.Name.Name, n, maxFuncLines)
				}
			}
		}
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

// wiringType reports whether a type of the binary is one it may declare.
func wiringType(name string) bool {
	switch name {
	case "env", "exitCoder", "exitError":
		return true
	}
	return strings.HasSuffix(name, "Flags")
}

// codeLines counts the lines of fn's body that hold code: not blank, not
// a comment, not inside a string literal, not a flag registration (a call
// of a method named …Var or …VarP, or Mark…, as a statement).
func codeLines(fset *token.FileSet, file *ast.File, src []byte, fn *ast.FuncDecl) int {
	if fn.Body == nil {
		return 0
	}
	skip := map[int]bool{}
	span := func(from, to token.Pos, inner bool) {
		a, b := fset.Position(from).Line, fset.Position(to).Line
		if inner {
			a++ // the literal's first line holds code too
		}
		for l := a; l <= b; l++ {
			skip[l] = true
		}
	}
	for _, cg := range file.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//") {
				skip[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			if x.Kind == token.STRING {
				span(x.Pos(), x.End(), true)
			}
		case *ast.ExprStmt:
			if call, ok := x.X.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					name := sel.Sel.Name
					if strings.HasSuffix(name, "Var") || strings.HasSuffix(name, "VarP") || strings.HasPrefix(name, "Mark") {
						span(x.Pos(), x.End(), false)
					}
				}
			}
		}
		return true
	})
	lines := strings.Split(string(src), "\n")
	a, b := fset.Position(fn.Body.Lbrace).Line, fset.Position(fn.Body.Rbrace).Line
	n := 0
	for l := a + 1; l < b; l++ {
		if !skip[l] && strings.TrimSpace(lines[l-1]) != "" {
			n++
		}
	}
	return n
}

package api_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/coloc-dev/coloc"

// narrow are the packages whose exported names must each be used by
// another package's code or by an Example: the pipeline's inner floors.
// The scheduler-facing packages (policy, place/decide, serve) are public
// on purpose and are not checked.
var narrow = []string{"model", "profile", "profile/fleet", "sim", "reports"}

type listed struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	Module     *struct{ Path string }
}

// TestNoUnusedExports: every exported top-level name (type, function,
// variable, constant) of the narrow packages is used outside its package:
// by another package's code, by name or through a value (a field or method
// of a type counts for the type), by name in another package's tests, or
// by an Example function. The package's own tests do not count. A name
// nothing else uses is unexported or deleted, so the surface a reader must
// learn is the surface in use.
func TestNoUnusedExports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-export", "-json=ImportPath,Dir,Export,GoFiles,Module", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	var mine []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == module {
			mine = append(mine, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})

	watched := map[string]bool{}
	for _, pkg := range narrow {
		watched[module+"/"+pkg] = true
	}
	// used holds "import/path.Name" of the top-level names in use: each
	// package sees another's objects through export data, as objects of
	// their own, so names are compared, not objects.
	used := map[string]bool{}
	use := func(o types.Object) {
		if o.Pkg() != nil && o.Pkg().Scope().Lookup(o.Name()) == o {
			used[o.Pkg().Path()+"."+o.Name()] = true
		}
	}
	// markType marks the watched named types a type is built from: a type
	// reached through a used function's signature, a used variable or a
	// selected field or method is in use, even where no caller names it.
	seen := map[types.Type]bool{}
	var markType func(typ types.Type)
	markType = func(typ types.Type) {
		if typ == nil || seen[typ] {
			return
		}
		seen[typ] = true
		switch x := typ.(type) {
		case *types.Named:
			if o := x.Origin().Obj(); o.Pkg() != nil && watched[o.Pkg().Path()] {
				use(o)
			}
		case *types.Pointer:
			markType(x.Elem())
		case *types.Slice:
			markType(x.Elem())
		case *types.Array:
			markType(x.Elem())
		case *types.Map:
			markType(x.Key())
			markType(x.Elem())
		case *types.Chan:
			markType(x.Elem())
		case *types.Signature:
			for i := 0; i < x.Params().Len(); i++ {
				markType(x.Params().At(i).Type())
			}
			for i := 0; i < x.Results().Len(); i++ {
				markType(x.Results().At(i).Type())
			}
		}
	}
	scopes := map[string]*types.Scope{}
	for _, p := range mine {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp}
		tp, err := conf.Check(p.ImportPath, fset, files, info)
		if err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		if watched[p.ImportPath] {
			scopes[strings.TrimPrefix(p.ImportPath, module+"/")] = tp.Scope()
		}
		for _, o := range info.Uses {
			if o.Pkg() != nil && watched[o.Pkg().Path()] && o.Pkg().Path() != p.ImportPath {
				use(o)
				markType(o.Type())
			}
		}
		for _, sel := range info.Selections {
			if o := sel.Obj(); o.Pkg() != nil && o.Pkg().Path() != p.ImportPath {
				markType(sel.Recv())
				markType(o.Type())
			}
		}
	}
	named := testUses(t, fset)
	for u := range named {
		pkg, name, _ := strings.Cut(u, ".")
		if o := scopes[pkg].Lookup(name); o != nil {
			use(o)
			markType(o.Type())
		}
	}

	for _, pkg := range narrow {
		scope := scopes[pkg]
		if scope == nil {
			t.Fatalf("package %s: not found (moved?)", pkg)
		}
		for _, name := range scope.Names() { // sorted
			if o := scope.Lookup(name); o.Exported() && !used[module+"/"+pkg+"."+name] {
				p := fset.Position(o.Pos())
				t.Errorf("%s.%s (%s:%d) is exported but no other package's code uses it: unexport or delete it", pkg, name, filepath.Base(p.Filename), p.Line)
			}
		}
	}
}

// testUses returns "pkg.Name" for every name of a narrow package that a
// test file of another package names, or an Example function of any test
// file.
func testUses(t *testing.T, fset *token.FileSet) map[string]bool {
	root := filepath.Join("..", "..")
	uses := map[string]bool{}
	for _, p := range goFiles(t, true) {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		alias := map[string]string{}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			for _, pkg := range narrow {
				if path == module+"/"+pkg {
					a := filepath.Base(path)
					if im.Name != nil {
						a = im.Name.Name
					}
					alias[a] = pkg
				}
			}
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			example := strings.HasPrefix(fd.Name.Name, "Example")
			ast.Inspect(fd, func(n ast.Node) bool {
				if se, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := se.X.(*ast.Ident); ok && alias[id.Name] != "" {
						// The package's own (external) tests count only in Examples.
						if example || alias[id.Name] != rel {
							uses[alias[id.Name]+"."+se.Sel.Name] = true
						}
					}
				}
				return true
			})
		}
	}
	return uses
}

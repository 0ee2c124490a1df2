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
	"maps"
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
	ImportPath   string
	Dir          string
	Export       string
	ForTest      string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Module       *struct{ Path string }
}

// pendingMethods are exported methods nothing outside their package uses
// that stay exported for now: renaming them changes the token content of
// model/, whose documented results are pinned by a hash (TestDocResults)
// that only an hours-long regeneration renews. Each is unexported with the
// next regeneration and then removed from this list; the test fails on an
// entry that is used again or gone, so the list cannot go stale.
const regenerationPending = "used only inside model; unexported with the next regeneration of the documented results"

var pendingMethods = map[string]string{
	module + "/model.Frame.Z":              regenerationPending,
	module + "/model.Frame.Dim":            regenerationPending,
	module + "/model.IASP.Profile":         regenerationPending,
	module + "/model.IASP.Similarity":      regenerationPending,
	module + "/model.Loaded.CheckFeatures": regenerationPending,
	module + "/model.Range.Clamp":          regenerationPending,
	module + "/model.Similarity.Distance":  regenerationPending,
}

// TestNoUnusedExports: every exported top-level name (type, function,
// variable, constant) of the narrow packages is used outside its package:
// by another package's code, by name or through a value (a field or method
// of a type counts for the type), by name in another package's tests, or
// by an Example function. The package's own tests do not count. A name
// nothing else uses is unexported or deleted, so the surface a reader must
// learn is the surface in use.
//
// Every exported method of an exported (non-interface) type of those
// packages is held to the same rule: another package's non-test code
// selects it (a call, a method value or expression, through embedding
// too), or an Example function does (an Example of any package, the
// declaring package's included). Other packages' tests do not count for
// methods: only a type-checked file can tell whose method x.M is, and the
// tests are not type-checked here, only the Examples.
//
// A method an interface requires counts as used when the type, or a
// pointer to it, implements that interface (its method set, as go/types
// gives it, has every method the interface names, signature for
// signature): an
// interface declared in the module or in any package it imports
// (fmt.Stringer, error, json.Marshaler, sort.Interface, heap.Interface,
// flag.Value, sim's or policy's own interfaces, ...) or written as an
// interface literal in another package's code. Such a method is called
// through the interface, where no one writes its name (fmt calls String,
// encoding/json calls MarshalJSON); whether a value of the type really
// reaches the interface is a whole-program question, so implementing it is
// taken as using it. An interface the declaring package keeps to itself
// (unexported, or a literal in its own code, as sim asks its ground truth
// for IsAssumed or Knows) counts only when a type of another package
// implements it too, since only then does the method need its exported
// name; otherwise the interface and the method are unexported together.
// Signatures are compared as written with full import paths, parameter
// names left out. Methods of the interface types themselves are not
// checked: they are a contract for implementations, not an entry point.
//
// Exported struct fields are not checked. A field is read without a
// selector by encoding/json, yaml, encoding/csv helpers, text/template
// and fmt's %+v, tagged or not (an untagged exported field is marshalled
// under its own name); telling which structs reach those readers is the
// same whole-program question, and counting every field of a marshalled
// struct as used would leave nearly nothing to check.
func TestNoUnusedExports(t *testing.T) {
	// -pgo=off: with the binary's build profile (cmd/coloc/default.pgo)
	// the packages below it are listed twice, once as the binary builds
	// them ("path [main]"), which is the same API.
	out, err := exec.Command("go", "list", "-pgo=off", "-deps", "-test", "-export", "-json=ImportPath,Dir,Export,ForTest,GoFiles,TestGoFiles,XTestGoFiles,Module", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	variants := map[string]map[string]string{} // package under test -> path -> export
	var mine []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if path, variant, ok := strings.Cut(p.ImportPath, " ["); ok {
			forTest := strings.TrimSuffix(variant, ".test]")
			if variants[forTest] == nil {
				variants[forTest] = map[string]string{}
			}
			variants[forTest][path] = p.Export // as `go test forTest` builds path
			continue
		}
		if p.ForTest != "" || strings.HasSuffix(p.ImportPath, ".test") {
			continue // a test's main package
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
	// usedMethods holds "import/path.Type.Method" of the methods in use,
	// compared by name for the same reason.
	usedMethods := map[string]bool{}
	useMethod := func(o types.Object) {
		if k := methodKey(o); k != "" && watched[o.Pkg().Path()] {
			usedMethods[k] = true
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
	checked := map[string]*types.Package{}
	var literals []iface // interface literals of the module's code
	for _, p := range mine {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp}
		tp, err := conf.Check(p.ImportPath, fset, files, info)
		if err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		checked[p.ImportPath] = tp
		own := ""
		if watched[p.ImportPath] {
			scopes[strings.TrimPrefix(p.ImportPath, module+"/")] = tp.Scope()
			own = p.ImportPath
		}
		for _, tv := range info.Types {
			if it, ok := tv.Type.(*types.Interface); ok {
				literals = append(literals, newIface(it, own))
			}
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
				useMethod(o)
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

	for _, o := range exampleUses(t, fset, exports, variants, mine) {
		useMethod(o)
	}
	for k := range interfaceMethods(t, imp, exports, watched, checked, literals) {
		usedMethods[k] = true
	}

	left := maps.Clone(pendingMethods)
	for _, pkg := range narrow {
		scope := scopes[pkg]
		if scope == nil {
			t.Fatalf("package %s: not found (moved?)", pkg)
		}
		for _, name := range scope.Names() { // sorted
			o := scope.Lookup(name)
			if o.Exported() && !used[module+"/"+pkg+"."+name] {
				p := fset.Position(o.Pos())
				t.Errorf("%s.%s (%s:%d) is exported but no other package's code uses it: unexport or delete it", pkg, name, filepath.Base(p.Filename), p.Line)
			}
			for _, m := range methods(o) {
				key := module + "/" + pkg + "." + name + "." + m.Name()
				_, pending := pendingMethods[key]
				switch {
				case usedMethods[key] && pending:
					t.Errorf("%s.%s.%s is used outside its package now: remove it from pendingMethods (%s)", pkg, name, m.Name(), pendingMethods[key])
				case !usedMethods[key] && !pending:
					p := fset.Position(m.Pos())
					t.Errorf("%s.%s.%s (%s:%d) is an exported method no other package's code or Example uses, and no interface requires: unexport or delete it", pkg, name, m.Name(), filepath.Base(p.Filename), p.Line)
				}
				delete(left, key)
			}
		}
	}
	for key := range left {
		t.Errorf("pendingMethods: %s is no exported method of an exported type any more: remove it", key)
	}
}

// methods returns the exported methods declared on o when o names an
// exported, non-interface type.
func methods(o types.Object) []*types.Func {
	tn, ok := o.(*types.TypeName)
	if !ok || tn.IsAlias() || !tn.Exported() {
		return nil
	}
	n, ok := tn.Type().(*types.Named)
	if !ok || types.IsInterface(n) {
		return nil
	}
	var out []*types.Func
	for i := 0; i < n.NumMethods(); i++ {
		if m := n.Method(i); m.Exported() {
			out = append(out, m)
		}
	}
	return out
}

// methodKey returns "import/path.Type.Method" for a method of a named
// type, "" for anything else.
func methodKey(o types.Object) string {
	f, ok := o.(*types.Func)
	if !ok || f.Pkg() == nil {
		return ""
	}
	recv := f.Type().(*types.Signature).Recv()
	if recv == nil {
		return ""
	}
	typ := recv.Type()
	if p, ok := typ.(*types.Pointer); ok {
		typ = p.Elem()
	}
	n, ok := typ.(*types.Named)
	if !ok {
		return ""
	}
	return f.Pkg().Path() + "." + n.Origin().Obj().Name() + "." + f.Name()
}

// iface is an interface's methods, each as its name and signature written
// with full import paths, so that interfaces and types compare alike
// whichever type-checking or export data they come from.
type iface struct {
	methods [][2]string
	own     string // the watched package of an interface it keeps to itself
}

func newIface(it *types.Interface, own string) iface {
	x := iface{own: own}
	if !it.IsMethodSet() {
		return iface{} // a constraint: nothing is called through it
	}
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		x.methods = append(x.methods, [2]string{methodName(m), sigString(m)})
	}
	return x
}

// methodName is the name of an exported method, the package's path and
// the name of an unexported one, which only its package's types can have.
func methodName(m *types.Func) string {
	if m.Exported() {
		return m.Name()
	}
	return m.Pkg().Path() + "." + m.Name()
}

// sigString writes a method's parameter and result types, without their
// names.
func sigString(m *types.Func) string {
	q := func(p *types.Package) string { return p.Path() }
	sig := m.Type().(*types.Signature)
	var b strings.Builder
	for _, tuple := range []*types.Tuple{sig.Params(), sig.Results()} {
		b.WriteString("(")
		for i := 0; i < tuple.Len(); i++ {
			b.WriteString(types.TypeString(tuple.At(i).Type(), q) + ",")
		}
		b.WriteString(")")
	}
	if sig.Variadic() {
		b.WriteString("...")
	}
	return b.String()
}

// method is a method of a method set: its signature and the key of the
// method declared, which a promoted method's embedded type holds.
type method struct{ sig, key, pkg string }

// methodSet returns the methods of a named type and of a pointer to it,
// by methodName.
func methodSet(n *types.Named) map[string]method {
	ms := types.NewMethodSet(types.NewPointer(n))
	out := make(map[string]method, ms.Len())
	for i := 0; i < ms.Len(); i++ {
		f := ms.At(i).Obj().(*types.Func)
		out[methodName(f)] = method{sigString(f), methodKey(f), f.Pkg().Path()}
	}
	return out
}

func (x iface) implementedBy(ms map[string]method) bool {
	for _, m := range x.methods {
		if have, ok := ms[m[0]]; !ok || have.sig != m[1] {
			return false
		}
	}
	return len(x.methods) > 0
}

// interfaceMethods returns "import/path.Type.Method" for every method of a
// watched package's exported type that an interface requires which the
// type, or a pointer to it, implements: the named interfaces of every
// package the module builds from and the interface literals of its code.
// An interface a watched package keeps to itself (unexported, or a
// literal in its code) counts only when a type of another package
// implements it too: then the method's exported name is what lets that
// type satisfy it; otherwise the interface and the method could both be
// unexported.
func interfaceMethods(t *testing.T, imp types.Importer, exports map[string]string, watched map[string]bool, checked map[string]*types.Package, literals []iface) map[string]bool {
	ifaces := literals
	named := func(pkg *types.Package, f func(tn *types.TypeName, n *types.Named)) {
		for _, name := range pkg.Scope().Names() {
			tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() == 0 {
				f(tn, n) // a generic type is left out: it is no method set until instantiated
			}
		}
	}
	for path, export := range exports {
		pkg := checked[path] // the watched packages' unexported names are in the source only
		if pkg == nil {
			if export == "" {
				continue
			}
			var err error
			if pkg, err = imp.Import(path); err != nil {
				t.Fatalf("importing %s: %v", path, err)
			}
		}
		named(pkg, func(tn *types.TypeName, n *types.Named) {
			if it, ok := n.Underlying().(*types.Interface); ok {
				own := ""
				if watched[path] && !tn.Exported() {
					own = path
				}
				ifaces = append(ifaces, newIface(it, own))
			}
		})
	}
	// sets[path] holds the method sets of the concrete types of the
	// module's package path.
	sets := map[string][]map[string]method{}
	for path, pkg := range checked {
		named(pkg, func(tn *types.TypeName, n *types.Named) {
			if !types.IsInterface(n) {
				sets[path] = append(sets[path], methodSet(n))
			}
		})
	}
	outside := func(x iface) bool {
		for path, ms := range sets {
			if path == x.own {
				continue
			}
			for _, m := range ms {
				if x.implementedBy(m) {
					return true
				}
			}
		}
		return false
	}
	// Every concrete type of the module with a watched package's method in
	// its method set (its own, or promoted from an embedded type) marks
	// the methods an interface it implements asks for.
	out := map[string]bool{}
	for _, ms := range sets {
		for _, m := range ms {
			watchedMethod := false
			for _, have := range m {
				if watched[have.pkg] && have.key != "" {
					watchedMethod = true
				}
			}
			if !watchedMethod {
				continue
			}
			for _, x := range ifaces {
				if x.implementedBy(m) && (x.own == "" || outside(x)) {
					for _, want := range x.methods {
						out[m[want[0]].key] = true
					}
				}
			}
		}
	}
	return out
}

// exampleUses type-checks the test files of every package of the module
// that has Example functions and returns the objects those Examples'
// selectors select: a package's own test files are checked with its
// files, its external tests against the packages as `go test` builds
// them for it (the package with its own test files, and those that import
// it rebuilt over that).
func exampleUses(t *testing.T, fset *token.FileSet, exports map[string]string, variants map[string]map[string]string, mine []listed) []types.Object {
	var out []types.Object
	parse := func(dir string, names []string) ([]*ast.File, bool) {
		var files []*ast.File
		examples := false
		for _, name := range names {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
			for _, decl := range f.Decls {
				if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Example") {
					examples = true
				}
			}
		}
		return files, examples
	}
	check := func(path string, files []*ast.File, forTest string) {
		imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			if e, ok := variants[forTest][path]; ok {
				return os.Open(e)
			}
			return os.Open(exports[path])
		})
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(path, fset, files, info); err != nil {
			t.Fatalf("type-checking %s with its tests: %v", path, err)
		}
		for _, f := range files {
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Example") {
					continue
				}
				ast.Inspect(fd, func(n ast.Node) bool {
					if se, ok := n.(*ast.SelectorExpr); ok {
						if sel := info.Selections[se]; sel != nil {
							out = append(out, sel.Obj())
						}
					}
					return true
				})
			}
		}
	}
	for _, p := range mine {
		internal, inEx := parse(p.Dir, p.TestGoFiles)
		external, exEx := parse(p.Dir, p.XTestGoFiles)
		if !inEx && !exEx {
			continue
		}
		if inEx {
			own, _ := parse(p.Dir, p.GoFiles)
			check(p.ImportPath, append(own, internal...), p.ImportPath)
		}
		if exEx {
			check(p.ImportPath+"_test", external, p.ImportPath)
		}
	}
	return out
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

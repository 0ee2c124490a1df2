package layers

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/coloc-dev/coloc"

// rules is the import rule as docs/architecture.md writes it.
type rules struct {
	layers     []entry             // pattern -> layer
	edges      map[string][]string // third-party module -> patterns of the packages that may import it
	exceptions map[[2]string]bool  // {importer, imported} tolerated
}

type entry struct {
	pattern string // "place", or "cmd/..." for cmd and everything under it
	layer   int
}

// matches says whether the package pkg (relative to the module) falls
// under pattern, and how specific the match is (longer is more specific).
func matches(pattern, pkg string) (bool, int) {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		if pkg == dir || strings.HasPrefix(pkg, dir+"/") {
			return true, len(dir)
		}
		return false, 0
	}
	return pattern == pkg, len(pattern) + 1 // an exact entry beats a "/..." one of the same dir
}

// layer returns the layer of pkg: the most specific entry that matches it.
func (r *rules) layer(pkg string) (int, bool) {
	best, layer := -1, 0
	for _, e := range r.layers {
		if ok, n := matches(e.pattern, pkg); ok && n > best {
			best, layer = n, e.layer
		}
	}
	return layer, best >= 0
}

// parseRules reads the fenced blocks "layers", "edges" and "exceptions"
// of the architecture document.
func parseRules(doc string) (*rules, error) {
	r := &rules{edges: map[string][]string{}, exceptions: map[[2]string]bool{}}
	blocks := map[string][]string{}
	var in string
	sc := bufio.NewScanner(strings.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case in == "" && strings.HasPrefix(line, "```"):
			in = strings.TrimPrefix(line, "```")
			if in == "" {
				in = "-"
			}
			blocks[in] = blocks[in] // an empty block still counts as present
		case in != "" && line == "```":
			in = ""
		case in != "" && line != "" && !strings.HasPrefix(line, "#"):
			blocks[in] = append(blocks[in], fmt.Sprintf("%d\t%s", n, line))
		}
	}
	for _, name := range []string{"layers", "edges", "exceptions"} {
		if _, ok := blocks[name]; !ok {
			return nil, fmt.Errorf("no ```%s block", name)
		}
	}
	seen := map[string]bool{}
	for _, l := range blocks["layers"] {
		n, text, _ := strings.Cut(l, "\t")
		f := strings.Fields(text)
		layer, err := strconv.Atoi(f[0])
		if err != nil || len(f) < 2 {
			return nil, fmt.Errorf("line %s: want a layer number and packages, got %q", n, text)
		}
		for _, p := range f[1:] {
			if seen[p] {
				return nil, fmt.Errorf("line %s: %s is on two layers", n, p)
			}
			seen[p] = true
			r.layers = append(r.layers, entry{p, layer})
		}
	}
	for _, l := range blocks["edges"] {
		n, text, _ := strings.Cut(l, "\t")
		f := strings.Fields(text)
		if len(f) < 2 {
			return nil, fmt.Errorf("line %s: want a module and the packages that may import it, got %q", n, text)
		}
		r.edges[f[0]] = f[1:]
	}
	for _, l := range blocks["exceptions"] {
		n, text, _ := strings.Cut(l, "\t")
		f := strings.Fields(text)
		if len(f) < 4 || f[1] != "->" {
			return nil, fmt.Errorf("line %s: want \"importer -> imported  why\", got %q", n, text)
		}
		r.exceptions[[2]string{f[0], f[2]}] = true
	}
	return r, nil
}

// imp is one import of one file.
type imp struct {
	file string // for messages
	path string // full import path
}

// graph maps a package of the module (relative path, "." for the root) to
// the imports of its non-test files.
type graph map[string][]imp

// check returns every breach of the rules in g, sorted: imports of a
// package on the same or a higher layer, packages without a layer,
// third-party imports not allowed for the importer, imports of "C", and
// exceptions no longer needed.
func check(r *rules, g graph) []string {
	var bad []string
	used := map[[2]string]bool{}
	for pkg, imps := range g {
		from, ok := r.layer(pkg)
		if !ok {
			bad = append(bad, fmt.Sprintf("package %s has no layer in docs/architecture.md", pkg))
			continue
		}
		for _, im := range imps {
			switch {
			case im.path == "C":
				bad = append(bad, fmt.Sprintf("%s: imports C (cgo comes only through go-nvml)", im.file))
			case im.path == modulePath || strings.HasPrefix(im.path, modulePath+"/"):
				to := strings.TrimPrefix(strings.TrimPrefix(im.path, modulePath), "/")
				toLayer, ok := r.layer(to)
				switch {
				case !ok:
					// reported as a package without a layer
				case toLayer < from:
				case r.exceptions[[2]string{pkg, to}]:
					used[[2]string{pkg, to}] = true
				default:
					bad = append(bad, fmt.Sprintf("%s: %s (layer %d) imports %s (layer %d)", im.file, pkg, from, to, toLayer))
				}
			case !strings.Contains(strings.Split(im.path, "/")[0], "."):
				// standard library
			default:
				if !r.allowedThirdParty(pkg, im.path) {
					bad = append(bad, fmt.Sprintf("%s: %s imports %s, which docs/architecture.md does not allow it", im.file, pkg, im.path))
				}
			}
		}
	}
	for ex := range r.exceptions {
		if !used[ex] {
			bad = append(bad, fmt.Sprintf("exception %s -> %s is no longer needed: remove it from docs/architecture.md", ex[0], ex[1]))
		}
	}
	sort.Strings(bad)
	return bad
}

// allowedThirdParty says whether pkg may import path: path lies in a
// module of the edges table whose packages include pkg.
func (r *rules) allowedThirdParty(pkg, path string) bool {
	for mod, pats := range r.edges {
		if path != mod && !strings.HasPrefix(path, mod+"/") {
			continue
		}
		for _, p := range pats {
			if ok, _ := matches(p, pkg); ok {
				return true
			}
		}
	}
	return false
}

// moduleGraph parses the imports of every non-test Go file under root,
// whatever its build tags. Directories named testdata, vendor or
// node_modules, those starting with "." or "_", and nested modules (a
// directory with its own go.mod) are skipped, as the go tool does.
func moduleGraph(root string) (graph, error) {
	g := graph{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || name == "node_modules" ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != root && err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if _, ok := g[pkg]; !ok {
			g[pkg] = nil
		}
		for _, s := range f.Imports {
			p, err := strconv.Unquote(s.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %v", rel, err)
			}
			g[pkg] = append(g[pkg], imp{filepath.ToSlash(rel), p})
		}
		return nil
	})
	return g, err
}

// TestModuleLayers checks the module against docs/architecture.md.
func TestModuleLayers(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseRules(string(doc))
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	g, err := moduleGraph(root)
	if err != nil {
		t.Fatal(err)
	}
	// The walk must see the module's stages, or the check proves nothing.
	for _, pkg := range []string{"cmd/coloc", "datasets", "model", "place", "profile/sampler/nvml", "sim"} {
		if _, ok := g[pkg]; !ok {
			t.Fatalf("package %s not found under %s", pkg, root)
		}
	}
	for _, b := range check(r, g) {
		t.Error(b)
	}
}

// synthetic is a small rule set for the tests below.
const synthetic = "```layers\n3 cmd/...\n2 model sim\n1 datasets\n0 internal/...\n```\n" +
	"```edges\ngithub.com/NVIDIA/go-nvml cmd/...\n```\n" +
	"```exceptions\n```\n"

func graphOf(edges map[string][]string) graph {
	g := graph{}
	for pkg, imps := range edges {
		g[pkg] = nil
		for _, p := range imps {
			if !strings.Contains(strings.Split(p, "/")[0], ".") && p != "fmt" && p != "C" {
				p = modulePath + "/" + p
			}
			g[pkg] = append(g[pkg], imp{pkg + "/x.go", p})
		}
	}
	return g
}

// TestCheckFindsForbiddenImports: each forbidden import added to a clean
// synthetic graph is reported, and only that one.
func TestCheckFindsForbiddenImports(t *testing.T) {
	r, err := parseRules(synthetic)
	if err != nil {
		t.Fatal(err)
	}
	clean := map[string][]string{
		"cmd/coloc":           {"model", "sim", "datasets", "github.com/NVIDIA/go-nvml/pkg/nvml", "fmt"},
		"model":               {"datasets", "internal/atomicfile"},
		"sim":                 {"datasets"},
		"datasets":            {"internal/atomicfile", "fmt"},
		"internal/atomicfile": {"fmt"},
	}
	if bad := check(r, graphOf(clean)); len(bad) != 0 {
		t.Fatalf("clean graph: %q", bad)
	}
	tests := []struct {
		pkg, add, want string
	}{
		{"datasets", "model", "datasets/x.go: datasets (layer 1) imports model (layer 2)"},
		{"model", "sim", "model/x.go: model (layer 2) imports sim (layer 2)"},
		{"model", "cmd/coloc", "model/x.go: model (layer 2) imports cmd/coloc (layer 3)"},
		{"model", "github.com/NVIDIA/go-nvml/pkg/nvml", "model/x.go: model imports github.com/NVIDIA/go-nvml/pkg/nvml, which docs/architecture.md does not allow it"},
		{"sim", "gonum.org/v1/plot", "sim/x.go: sim imports gonum.org/v1/plot, which docs/architecture.md does not allow it"},
		{"datasets", "C", "datasets/x.go: imports C (cgo comes only through go-nvml)"},
		{"place", "datasets", "package place has no layer in docs/architecture.md"},
	}
	for _, tt := range tests {
		g := map[string][]string{}
		for k, v := range clean {
			g[k] = slices.Clone(v)
		}
		g[tt.pkg] = append(g[tt.pkg], tt.add)
		if bad := check(r, graphOf(g)); !slices.Equal(bad, []string{tt.want}) {
			t.Errorf("%s imports %s: got %q, want %q", tt.pkg, tt.add, bad, tt.want)
		}
	}
}

// TestCheckExceptions: an exception tolerates its import, and one that is
// no longer used is reported.
func TestCheckExceptions(t *testing.T) {
	doc := strings.Replace(synthetic, "```exceptions\n", "```exceptions\ndatasets -> model   kept for the test\n", 1)
	r, err := parseRules(doc)
	if err != nil {
		t.Fatal(err)
	}
	with := graphOf(map[string][]string{"datasets": {"model"}, "model": {"datasets"}})
	if bad := check(r, with); len(bad) != 0 {
		t.Errorf("with the excepted import: %q", bad)
	}
	without := graphOf(map[string][]string{"datasets": nil, "model": {"datasets"}})
	want := []string{"exception datasets -> model is no longer needed: remove it from docs/architecture.md"}
	if bad := check(r, without); !slices.Equal(bad, want) {
		t.Errorf("without it: %q, want %q", bad, want)
	}
}

func TestParseRulesRefusesBadTables(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"```layers\n1 a\n```\n```edges\n```\n", "no ```exceptions block"},
		{"```layers\nx a\n```\n```edges\n```\n```exceptions\n```\n", `want a layer number and packages, got "x a"`},
		{"```layers\n1 a\n2 a\n```\n```edges\n```\n```exceptions\n```\n", "a is on two layers"},
		{"```layers\n1 a\n```\n```edges\n```\n```exceptions\na b\n```\n", `want "importer -> imported  why"`},
	}
	for _, tt := range tests {
		if _, err := parseRules(tt.doc); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseRules(%q): %v, want %q", tt.doc, err, tt.want)
		}
	}
}

// Package docs_test checks that the manual, the notes, README and the Go
// comments name only files the repository holds.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoPath matches a path into the repository as docs and comments write
// it: a top-level directory of the repository, then path segments, ending
// in a file name with an extension.
var repoPath = regexp.MustCompile("(?:^|[\\s`(\\[\"'])((?:benchmarks|cmd|datasets|docs|examples|features|integrations|internal|model|place|policy|profile|reports|scripts|serve|sim|tests)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\\.(?:md|go|sh|py|yaml|yml|json|arrow|lua|trace|csv|svg|png|golden|txt|mjs)\\b)")

// TestNamedFilesExist: every such path in README.md, docs/ (manual and
// notes) and the non-test Go files (tests build fake paths on purpose)
// names a file that exists. Paths written
// relative to a nested module's root (integrations/kubernetes) count when
// they exist there.
func TestNamedFilesExist(t *testing.T) {
	root := filepath.Join("..", "..")
	var sources []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || name == "out" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") || rel == "README.md" || strings.HasPrefix(rel, "docs/") && strings.HasSuffix(name, ".md") {
			sources = append(sources, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) < 100 {
		t.Fatalf("only %d files read: is the repository root %s?", len(sources), root)
	}
	bad := 0
	for _, src := range sources {
		b, err := os.ReadFile(filepath.Join(root, src))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range repoPath.FindAllStringSubmatch(string(b), -1) {
			p := strings.TrimSuffix(m[1], ".")
			if strings.ContainsAny(p, "*{}") {
				continue
			}
			if exists(filepath.Join(root, p)) || exists(filepath.Join(root, "integrations", "kubernetes", p)) || exists(filepath.Join(root, filepath.Dir(src), p)) {
				continue
			}
			bad++
			t.Errorf("%s names %s, which the repository does not hold", src, p)
		}
	}
	t.Logf("%d files read, %d paths missing", len(sources), bad)
}

// mdLink matches the target of a Markdown link, up to an anchor.
var mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)\s]*)?\)`)

// TestMarkdownLinksResolve: every relative link of README.md and docs/
// points at a file or directory that exists.
func TestMarkdownLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(root, "docs", "*", "*.md"))
	docs = append(append(docs, more...), filepath.Join(root, "README.md"))
	links := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			if !exists(filepath.Join(filepath.Dir(doc), target)) {
				rel, _ := filepath.Rel(root, doc)
				t.Errorf("%s links %s, which does not resolve", rel, target)
			}
		}
	}
	if links < 50 {
		t.Errorf("only %d relative links found: is the pattern right?", links)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

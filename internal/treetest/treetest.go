// Package treetest reads directory trees for the tests that compare what
// two runs wrote (two reports, two papers, a paper with and without its
// cache): every file by its slash-separated path relative to the root.
package treetest

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Files reads every regular file under dir, by its slash-separated path
// relative to dir. A directory that cannot be read, or holds no file,
// fails the test.
func Files(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no files", dir)
	}
	return out
}

// Same fails the test unless a and b (from Files) hold the same paths with
// the same bytes; what names the two trees in the messages.
func Same(t testing.TB, a, b map[string][]byte, what string) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(a)) {
		y, ok := b[name]
		switch {
		case !ok:
			t.Errorf("%s: %s is only in the first", what, name)
		case !bytes.Equal(a[name], y):
			t.Errorf("%s: %s differs", what, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[name]; !ok {
			t.Errorf("%s: %s is only in the second", what, name)
		}
	}
}

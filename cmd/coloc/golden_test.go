package main

import (
	"flag"
	"os"
	"testing"
)

// updateGolden rewrites the golden files under testdata instead of
// comparing with them: go test ./cmd/coloc -update. Every test of this
// package that has golden output uses this one flag.
var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

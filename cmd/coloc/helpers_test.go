package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/profile/sampler"
)

// updateGolden rewrites the golden files under testdata instead of
// comparing with them: go test ./cmd/coloc -update. Every test of this
// package that has golden output uses this one flag.
var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
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

// runCmd runs the coloc command line as main does and returns its standard
// output, standard error and error.
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return fakeMachine{t, defaultOpenGPU}.run(args...)
}

// fakeMachine runs command lines whose GPUs openGPU opens.
type fakeMachine struct {
	t       *testing.T
	openGPU func() sampler.OpenGPU
}

func (m fakeMachine) run(args ...string) (string, string, error) {
	m.t.Helper()
	var out, errb bytes.Buffer
	err := runEnv(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, openGPU: m.openGPU}, args)
	return out.String(), errb.String(), err
}

func (m fakeMachine) mustRun(args ...string) (string, string) {
	m.t.Helper()
	out, errOut, err := m.run(args...)
	if err != nil {
		m.t.Fatalf("coloc %s: %v\nstderr: %s", strings.Join(args, " "), err, errOut)
	}
	return out, errOut
}

// mustRun is runCmd for commands that must succeed.
func mustRun(t *testing.T, args ...string) (string, string) {
	t.Helper()
	return fakeMachine{t, defaultOpenGPU}.mustRun(args...)
}

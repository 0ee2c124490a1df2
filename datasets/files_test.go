package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDatasetFiles: Open keeps the SHA-256 of every file it read, Files adds
// samples.arrow's on first demand and keeps it, and workloads.json is read
// and validated by Open.
func TestDatasetFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"solo.arrow", "pairs.arrow"} {
		b, err := os.ReadFile(filepath.Join("reference", "gavel", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	smp := NewSamples([]Counter{{Name: "sm_util", Unit: "%"}})
	smp.Append("r1", 0, "w", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), []float64{50})
	if err := Write(filepath.Join(dir, "samples.arrow"), smp.Table()); err != nil {
		t.Fatal(err)
	}
	if err := WriteWorkloads(WorkloadsPath(dir), []WorkloadMeta{{Workload: "w", Class: "cnn"}}); err != nil {
		t.Fatal(err)
	}
	sum := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	want := []FileSum{
		{"pairs.arrow", sum("pairs.arrow")}, {"samples.arrow", sum("samples.arrow")},
		{"solo.arrow", sum("solo.arrow")}, {WorkloadsFile, sum(WorkloadsFile)},
	}
	ds, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Workloads) != 1 || ds.Workloads[0].Class != "cnn" {
		t.Errorf("workloads %+v", ds.Workloads)
	}
	got, err := ds.Files()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("files\n got %v\nwant %v", got, want)
	}
	// The samples sum is computed once: a later change of the file is not seen.
	if err := os.WriteFile(filepath.Join(dir, "samples.arrow"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := ds.Files(); err != nil || !slices.Equal(again, want) {
		t.Errorf("second call: %v, %v", again, err)
	}

	// A workloads.json that does not validate fails Open, naming the file.
	if err := os.WriteFile(WorkloadsPath(dir), []byte(`{"format":"coloc.workloads","version":2,"workloads":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), WorkloadsFile) {
		t.Errorf("Open with a workloads file of version 2: %v", err)
	}
}

// ReadAny reads every dataset table at the version Write gives its kind
// (the runs table has a version of its own), as Read does.
func TestReadAnyReadsEveryKindAtItsVersion(t *testing.T) {
	dir := t.TempDir()
	for _, tab := range sampleTables() {
		path := filepath.Join(dir, tab.Kind.FileName())
		if err := Write(path, tab); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadAny(path); err != nil {
			t.Errorf("%s (version %d): %v", tab.Kind, KindVersion(tab.Kind), err)
		}
	}
}

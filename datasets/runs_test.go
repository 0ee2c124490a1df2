package datasets

import (
	"errors"
	"path/filepath"
	"testing"
)

// A version-1 runs file (no settled or window columns) still reads, its
// new fields unknown; a runs file of a version this build does not know is
// refused.
func TestRunsVersions(t *testing.T) {
	dir := t.TempDir()
	v1 := sampleRuns().Table()
	for _, name := range []string{"settled", "window_start", "window_end"} {
		v1 = dropColumn(v1, name)
	}
	v1.Version = 1
	path := filepath.Join(dir, "v1.arrow")
	if err := Write(path, v1); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatalf("reading a version-1 runs file: %v", err)
	}
	rt, err := RunsFrom(got)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rt.Rows {
		if r.Settled != "" || !r.WindowStart.IsZero() || !r.WindowEnd.IsZero() {
			t.Errorf("row %d of a version-1 file: settled %q, window %v..%v; want unknown", i+1, r.Settled, r.WindowStart, r.WindowEnd)
		}
	}

	v3 := sampleRuns().Table()
	v3.Version = 3
	path = filepath.Join(dir, "v3.arrow")
	if err := Write(path, v3); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); !errors.Is(err, ErrVersion) {
		t.Errorf("reading a version-3 runs file: %v, want ErrVersion", err)
	}
}

// The settled flag and the window survive a round trip.
func TestRunsV2RoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.arrow")
	if err := Write(path, sampleRuns().Table()); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := RunsFrom(got)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleRuns()
	if len(rt.Rows) != len(want.Rows) {
		t.Fatalf("%d rows, want %d", len(rt.Rows), len(want.Rows))
	}
	for i := range want.Rows {
		w, g := want.Rows[i], rt.Rows[i]
		if w.Settled != g.Settled || !w.WindowStart.Equal(g.WindowStart) || !w.WindowEnd.Equal(g.WindowEnd) {
			t.Errorf("row %d: settled %q window %v..%v, want %q %v..%v", i+1, g.Settled, g.WindowStart, g.WindowEnd, w.Settled, w.WindowStart, w.WindowEnd)
		}
	}
}

func dropColumn(t *Table, name string) *Table {
	out := &Table{Kind: t.Kind, Version: t.Version, Meta: t.Meta}
	for _, c := range t.Columns {
		if c.Name != name {
			out.Columns = append(out.Columns, c)
		}
	}
	return out
}

package datasets

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// Version-1 and version-2 runs files (without the columns added since)
// still read, the fields they lack unknown; a runs file of a version this
// build does not know is refused.
func TestRunsVersions(t *testing.T) {
	dir := t.TempDir()
	for v, added := range map[int][]string{1: {"settled", "window_start", "window_end", "shared"}, 2: {"shared"}} {
		old := sampleRuns().Table()
		for _, name := range added {
			old = dropColumn(old, name)
		}
		old.Version = v
		path := filepath.Join(dir, fmt.Sprintf("v%d.arrow", v))
		if err := Write(path, old); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatalf("reading a version-%d runs file: %v", v, err)
		}
		rt, err := RunsFrom(got)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rt.Rows {
			if r.Shared != "" || v == 1 && (r.Settled != "" || !r.WindowStart.IsZero() || !r.WindowEnd.IsZero()) {
				t.Errorf("row %d of a version-%d file: settled %q, window %v..%v, shared %q; want what it lacks unknown", i+1, v, r.Settled, r.WindowStart, r.WindowEnd, r.Shared)
			}
		}
		if v == 2 && rt.Rows[0].Settled != SettledYes {
			t.Errorf("version 2: settled %q, want it read", rt.Rows[0].Settled)
		}
	}

	next := sampleRuns().Table()
	next.Version = RunsVersion + 1
	path := filepath.Join(dir, "next.arrow")
	if err := Write(path, next); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); !errors.Is(err, ErrVersion) {
		t.Errorf("reading a version-%d runs file: %v, want ErrVersion", RunsVersion+1, err)
	}
}

// The settled flag, the window and what shared the GPUs survive a round
// trip.
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
		if w.Settled != g.Settled || !w.WindowStart.Equal(g.WindowStart) || !w.WindowEnd.Equal(g.WindowEnd) || w.Shared != g.Shared {
			t.Errorf("row %d: settled %q window %v..%v shared %q, want %q %v..%v %q", i+1, g.Settled, g.WindowStart, g.WindowEnd, g.Shared, w.Settled, w.WindowStart, w.WindowEnd, w.Shared)
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

package datasets

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, tab := range sampleTables() {
		path := filepath.Join(dir, tab.Kind.FileName())
		if err := Write(path, tab); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		assertTablesEqual(t, tab, got)
	}
	// The typed views survive the trip too.
	ds, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fmtRows(ds.Pairs.Rows), fmtRows(samplePairs().Rows)) {
		t.Errorf("pairs:\n got %v\nwant %v", ds.Pairs.Rows, samplePairs().Rows)
	}
	if !reflect.DeepEqual(fmtRows(ds.Runs.Rows), fmtRows(sampleRuns().Rows)) {
		t.Errorf("runs:\n got %v\nwant %v", ds.Runs.Rows, sampleRuns().Rows)
	}
	if ds.Solo.Feature("power_mean") != 1 || ds.Solo.Features[0].Unit != "%" {
		t.Errorf("solo features %v", ds.Solo.Features)
	}
	if ds.SamplesPath == "" || ds.Scaling == nil {
		t.Error("dataset misses samples or scaling")
	}
}

// fmtRows prints rows with %v so that NaN fields compare equal.
func fmtRows[T any](rows []T) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmtValue(r)
	}
	return out
}

func fmtValue(v any) string { return fmtSprint(v) }

func TestUnitsAndMetadataInFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pairs.arrow")
	if err := Write(path, samplePairs().Table()); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	tab, err := decode(f, path, datasetKind)
	if err != nil {
		t.Fatal(err)
	}
	if u := tab.Column("normalized_throughput").Unit; u != UnitRatio {
		t.Errorf("normalized unit %q", u)
	}
	if u := tab.Column("solo_throughput").Unit; u != UnitSamplesPerS {
		t.Errorf("solo unit %q", u)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	for _, tab := range sampleTables() {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tab); err != nil {
			t.Fatal(err)
		}
		got, err := ImportCSV(bytes.NewReader(buf.Bytes()), "x.csv", tab.Kind)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tab.Kind, err, buf.String())
		}
		assertTablesEqual(t, &Table{Kind: tab.Kind, Columns: tab.Columns}, got)
	}
}

func TestOtherKindRoundTrip(t *testing.T) {
	tab := &Table{Kind: "features", Version: 3, Meta: map[string]string{"coloc.note": "x"}}
	w := tab.AddColumn("workload", String, "")
	v := tab.AddColumn("params_log10", Float, "log10(count)")
	v.Meta = map[string]string{"group": "descriptor"}
	w.AppendString("a", false)
	v.AppendFloat(7.1)
	w.AppendString("b", false)
	v.AppendFloat(nan) // null
	path := filepath.Join(t.TempDir(), "features.arrow")
	if err := WriteOther(path, tab); err != nil {
		t.Fatal(err)
	}
	got, err := ReadOther(path, "features", 3)
	if err != nil {
		t.Fatal(err)
	}
	assertTablesEqual(t, tab, got)
	if got.Version != 3 || got.Column("params_log10").Meta["group"] != "descriptor" {
		t.Errorf("version %d, field meta %v", got.Version, got.Column("params_log10").Meta)
	}
	if _, err := ReadOther(path, "features", 4); !errors.Is(err, ErrVersion) {
		t.Errorf("version 4: %v, want ErrVersion", err)
	}
	if _, err := ReadOther(path, "eval", 3); err == nil || !strings.Contains(err.Error(), `holds table "features"`) {
		t.Errorf("wrong kind: %v", err)
	}
	if _, err := Read(path); err == nil {
		t.Error("Read accepted a table of another kind")
	}
	if err := WriteOther(path, samplePairs().Table()); err == nil {
		t.Error("WriteOther accepted a dataset table")
	}
	v.Float[0], v.Null = math.Inf(1), nil
	if err := WriteOther(path, tab); err == nil {
		t.Error("an infinite value was written")
	}
}

package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the Arrow reader. It must never panic
// or hang, nor answer with a Go runtime message; whatever it accepts must
// be valid and survive a write-read trip unchanged (in memory, the bytes
// Write would write: no file is touched, so a run reaches hundreds of
// thousands of inputs a minute). Seeds: every sample table, the shipped
// reference tables cut short, and the corpus under testdata/fuzz/FuzzRead
// (run as a normal test by `go test`).
func FuzzRead(f *testing.F) {
	for _, tab := range sampleTables() {
		b, err := encode(tab)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	if b, err := os.ReadFile(filepath.Join(gavelRef, "solo.arrow")); err == nil {
		f.Add(b[:4096])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := ReadFrom(bytes.NewReader(data), "fuzz.arrow")
		if err != nil {
			if strings.Contains(err.Error(), "runtime error") {
				t.Fatalf("a Go runtime message: %v", err)
			}
			return
		}
		if err := Validate(tab, ""); err != nil {
			t.Fatalf("Read accepted an invalid table: %v", err)
		}
		b, err := encode(tab)
		if err != nil {
			t.Fatalf("valid table not writable: %v", err)
		}
		back, err := ReadFrom(bytes.NewReader(b), "back.arrow")
		if err != nil {
			t.Fatal(err)
		}
		if d := firstDiff(tab, back); d != "" || back.Len() != tab.Len() || !back.Verified() {
			t.Fatalf("round trip changed the table: %s", d)
		}
	})
}

// FuzzImportCSV feeds arbitrary text to the CSV importer for each table
// kind. It must never panic; an accepted table must be valid and export
// back to CSV that imports to an equal table.
func FuzzImportCSV(f *testing.F) {
	for _, tab := range sampleTables() {
		var buf bytes.Buffer
		WriteCSV(&buf, tab)
		f.Add(string(tab.Kind), buf.String())
	}
	f.Add("pairs", "workload,partner,device_type,degree,solo_throughput,colocated_throughput\nA,B,v100,1,10,4\n")
	f.Add("solo", "workload,device_type,degree,throughput,x [%]\nA,v100,1,5,\"9\n")
	f.Add("scaling", "\ufeffworkload,device_type,degree,nodes,batch_size,throughput\nA,t4,4,1,,1e308\n")
	f.Fuzz(func(t *testing.T, kind, text string) {
		k, err := ParseKind(kind)
		if err != nil {
			return
		}
		tab, err := ImportCSV(strings.NewReader(text), "fuzz.csv", k)
		if err != nil {
			return
		}
		if err := Validate(tab, ""); err != nil {
			t.Fatalf("ImportCSV accepted an invalid table: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tab); err != nil {
			t.Fatal(err)
		}
		back, err := ImportCSV(&buf, "back.csv", k)
		if err != nil {
			t.Fatalf("exported CSV does not import: %v\n%s", err, buf.String())
		}
		if d := firstDiff(tab, back); d != "" || back.Len() != tab.Len() {
			t.Fatalf("CSV round trip changed the table: %s", d)
		}
	})
}

// FuzzImportGavel feeds arbitrary text to the importer of Gavel's
// throughputs. It must never panic; what it accepts is valid tables.
func FuzzImportGavel(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(gavelRef, "upstream", "simulation_throughputs.json")); err == nil {
		f.Add(b[:min(len(b), 4096)])
	}
	f.Add([]byte(`{"v100": {"('A', 1)": {"null": 5.0, "('B', 1)": [2.0, 3.0]}, "('B', 1)": {"null": 4.0, "('A', 1)": [3.0, 2.0]}}}`))
	f.Add([]byte(`{"k80": {"('A', 1)": {"null": 1e308, "('A', 1)": [0, 0]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := ImportGavel(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		for _, tab := range im.Tables() {
			if err := Validate(tab, ""); err != nil {
				t.Fatalf("ImportGavel accepted an invalid table: %v", err)
			}
		}
	})
}

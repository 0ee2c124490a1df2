package datasets

import (
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// TestValidateRejects breaks a valid table in one way at a time and checks
// the problem names the right row and column.
func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name   string
		table  func() *Table
		row    int
		column string
		msg    string
	}{
		{"NaN throughput", func() *Table {
			tab := samplePairs().Table()
			c := tab.Column("colocated_throughput")
			c.Float[1], c.Null = math.NaN(), nil
			return tab
		}, 2, "colocated_throughput", "NaN"},
		{"negative throughput", func() *Table {
			tab := sampleSolo().Table()
			tab.Column("throughput").Float[0] = -3
			return tab
		}, 1, "throughput", "not positive"},
		{"infinite feature", func() *Table {
			tab := sampleSolo().Table()
			tab.Column("power_mean").Float[1] = math.Inf(1)
			return tab
		}, 2, "power_mean", "infinite"},
		{"missing column", func() *Table {
			tab := samplePairs().Table()
			tab.Columns = tab.Columns[1:]
			return tab
		}, 0, "workload", "required column is missing"},
		{"unknown column", func() *Table {
			tab := samplePairs().Table()
			c := tab.AddColumn("colour", String, "")
			c.Str = make([]string, tab.Len())
			return tab
		}, 0, "colour", "not a column of table pairs"},
		{"wrong type", func() *Table {
			tab := sampleScaling().Table()
			c := tab.Column("degree")
			c.Type, c.Float, c.Int = Float, []float64{1, 8, 8}, nil
			return tab
		}, 0, "degree", "type is float64, want int64"},
		{"wrong unit", func() *Table {
			tab := samplePairs().Table()
			tab.Column("solo_throughput").Unit = "images/s"
			return tab
		}, 0, "solo_throughput", `unit "images/s"`},
		{"mixed throughput units", func() *Table {
			tab := samplePairs().Table()
			tab.Column("solo_throughput").Unit = UnitItersPerS
			return tab
		}, 0, "colocated_throughput", "differs"},
		{"feature without unit", func() *Table {
			tab := sampleSolo().Table()
			tab.Column("power_mean").Unit = ""
			return tab
		}, 0, "power_mean", "no unit"},
		{"null in required", func() *Table {
			tab := samplePairs().Table()
			c := tab.Column("workload")
			c.Null = []bool{false, false, true, false}
			return tab
		}, 3, "workload", "null"},
		{"bad status", func() *Table {
			tab := samplePairs().Table()
			tab.Column("status").Str[0] = "great"
			return tab
		}, 1, "status", `"great" is not one of`},
		{"normalized mismatch", func() *Table {
			tab := samplePairs().Table()
			tab.Column("normalized_throughput").Float[0] = 0.7
			return tab
		}, 1, "normalized_throughput", "is not colocated/solo"},
		{"infeasible with value", func() *Table {
			tab := samplePairs().Table()
			c := tab.Column("normalized_throughput")
			c.Null[2], c.Float[2] = false, 0.5
			return tab
		}, 3, "normalized_throughput", "infeasible pair has no throughput"},
		{"duplicate key", func() *Table {
			p := samplePairs()
			p.Rows = append(p.Rows, p.Rows[0])
			return p.Table()
		}, 5, "", "duplicate key (workload=\"A\", partner=\"B\""},
		{"time goes back", func() *Table {
			tab := sampleSamples()
			tab.Column("timestamp").Int[4] -= 1e9
			return tab
		}, 5, "timestamp", "goes back in time within run solo-A-r0"},
		{"time goes back in a series seen before, after another", func() *Table {
			tab := sampleSamples()
			// Rows alternate between the device-wide series and workload A's.
			tab.Column("timestamp").Int[9] = tab.Column("timestamp").Int[5]
			return tab
		}, 10, "timestamp", "goes back in time within run solo-A-r0"},
		{"infinite counter after good ones", func() *Table {
			tab := sampleSamples()
			tab.Column("power").Float[8] = math.Inf(1)
			return tab
		}, 9, "power", "infinite value"},
		{"bad value after the same good one", func() *Table {
			p := samplePairs()
			p.Rows[1].Status = "great"
			return p.Table()
		}, 2, "status", `"great" is not one of`},
		{"run ends before start", func() *Table {
			tab := sampleRuns().Table()
			tab.Column("end_time").Int[0] = tab.Column("start_time").Int[0] - 1
			return tab
		}, 1, "end_time", "ends before it starts"},
		{"failed run with throughput", func() *Table {
			r := sampleRuns()
			r.Rows[1].Throughput = 5
			return r.Table()
		}, 2, "throughput", "must have a null throughput"},
		{"pair run without partner", func() *Table {
			r := sampleRuns()
			r.Rows[1].Partner = ""
			return r.Table()
		}, 2, "partner", "needs a partner"},
		{"degree vs devices", func() *Table {
			r := sampleRuns()
			r.Rows[2].DeviceIDs = "0,1"
			return r.Table()
		}, 3, "device_ids", "2 devices listed for degree 4"},
		{"placement vs degree", func() *Table {
			s := sampleScaling()
			s.Rows[1].Placement = "43"
			return s.Table()
		}, 2, "placement", "places 7 GPUs"},
		{"zero degree", func() *Table {
			s := sampleScaling()
			s.Rows[0].Degree = 0
			return s.Table()
		}, 1, "degree", "not positive"},
		{"ci above mean", func() *Table {
			s := sampleSolo()
			s.Rows[0].CILow = 101
			return s.Table()
		}, 1, "throughput_ci_low", "above the mean"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(c.table(), "f.arrow")
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v, want a ValidationError", err)
			}
			p := ve.Problems[0]
			if p.Row != c.row || p.Column != c.column || !strings.Contains(p.Msg, c.msg) || p.File != "f.arrow" {
				t.Fatalf("problem %+v, want row %d column %q msg ~%q", p, c.row, c.column, c.msg)
			}
		})
	}
}

func TestValidAboveOneKept(t *testing.T) {
	// Normalized throughput above 1 is real (noise, clocks) and never clipped.
	p := samplePairs()
	p.Rows[3].Colocated, p.Rows[3].Normalized = 75, 1.5
	if err := Validate(p.Table(), ""); err != nil {
		t.Fatal(err)
	}
}

func TestWriteRefusesInvalidAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	tab := samplePairs().Table()
	tab.Column("solo_throughput").Float[0] = -1
	path := filepath.Join(dir, "pairs.arrow")
	if err := Write(path, tab); err == nil {
		t.Fatal("want an error")
	}
	if err := WriteDir(dir, sampleSolo().Table(), tab); err == nil {
		t.Fatal("want an error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left %d files behind: %v", len(entries), entries)
	}
}

func TestReadTruncated(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(gavelRef, "solo.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 6, 100, len(src) / 2, len(src) - 1} {
		path := filepath.Join(t.TempDir(), "solo.arrow")
		os.WriteFile(path, src[:n], 0o644)
		_, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("truncated to %d bytes: error %v, want one naming the file", n, err)
		}
	}
}

func TestReadWrongTableInDataset(t *testing.T) {
	dir := t.TempDir()
	// A solo table saved under the name of the pairs table.
	if err := Write(filepath.Join(dir, "pairs.arrow"), sampleSolo().Table()); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "holds table solo, its name says pairs") {
		t.Fatalf("error %v", err)
	}
}

func TestCrossCheckUnknownWorkload(t *testing.T) {
	dir := t.TempDir()
	p := samplePairs()
	p.Rows[1].Workload, p.Rows[1].Partner = "C", "A"
	if err := WriteDir(dir, sampleSolo().Table(), p.Table()); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), `row 2: column workload: unknown workload "C"`) {
		t.Fatalf("error %v", err)
	}
}

func TestReadUnknownVersion(t *testing.T) {
	tab := samplePairs().Table()
	schema := ArrowSchema(tab)
	md := schema.Metadata()
	keys, vals := md.Keys(), append([]string(nil), md.Values()...)
	for i, k := range keys {
		if k == MetaVersion {
			vals[i] = "2"
		}
	}
	m := arrow.NewMetadata(keys, vals)
	schema = arrow.NewSchema(schema.Fields(), &m)
	path := filepath.Join(t.TempDir(), "pairs.arrow")
	f, _ := os.Create(path)
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	rec := ArrowRecord(schema, tab, 0, tab.Len())
	w.Write(rec)
	rec.Release()
	w.Close()
	f.Close()
	_, err = Read(path)
	if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), `schema version "2"`) {
		t.Fatalf("error %v, want ErrVersion naming version 2", err)
	}
}

func TestImportCSVBadInput(t *testing.T) {
	cases := []struct {
		name, kind, in, want string
	}{
		{"unknown column", "pairs", "workload,partner,colour\nA,B,red\n", "x.csv:1: column colour: not a column of table pairs"},
		{"feature without unit", "solo", "workload,device_type,degree,throughput,sm_util\nA,v100,1,5,90\n", "column sm_util: extra column needs its unit"},
		{"not a number", "scaling", "workload,device_type,degree,nodes,batch_size,throughput\nA,v100,1,1,32,fast\n", `x.csv:2: column throughput: "fast" is not a decimal number`},
		{"NaN", "scaling", "workload,device_type,degree,nodes,batch_size,throughput\nA,v100,1,1,32,NaN\n", `x.csv:2: column throughput: "NaN" is not a decimal number`},
		{"digit separator", "scaling", "workload,device_type,degree,nodes,batch_size,throughput\nA,v100,1,1,32,1_000\n", `x.csv:2: column throughput: "1_000" is not a decimal number`},
		{"hexadecimal", "scaling", "workload,device_type,degree,nodes,batch_size,throughput\nA,v100,1,1,0x20,5\n", `x.csv:2: column batch_size: "0x20" is not a decimal integer`},
		{"newline in a name", "scaling", "workload,device_type,degree,nodes,batch_size,throughput\n\"A\nB\",v100,1,1,32,5\n", `x.csv:2: column workload: "A\nB": a name is text of at most 1024 bytes without control characters`},
		{"escape in a device", "solo", "workload,device_type,degree,throughput\nA,\"v100\x1b[31m\",1,5\n", `column device_type: "v100\x1b[31m": a name is text`},
		{"control in a column name", "solo", "workload,device_type,degree,throughput,\"x\x07 [1]\"\nA,v100,1,5,1\n", `a column's name is text of at most 1024 bytes without control characters`},
		{"negative", "scaling", "workload,device_type,degree,nodes,batch_size,throughput\nA,v100,1,1,32,5\nA,v100,2,1,32,-5\n", "x.csv:3: column throughput: -5 is not positive"},
		{"ragged", "scaling", "workload,device_type\nA\n", "x.csv:2: 1 fields, header has 2"},
		{"quote", "scaling", "workload,device_type\n\"A,v100\n", "malformed CSV"},
		{"empty", "pairs", "", "no header row"},
		{"duplicate header", "pairs", "workload,workload\n", "duplicate"},
		{"not UTF-8", "scaling", "workload,device_type,degree,nodes,batch_size,throughput\nA,v100,1,1,32,5\nB\xff,v100,1,1,32,5\n", `x.csv:3: column workload: "B\xff" is not UTF-8 text`},
		{"missing column", "pairs", "workload,partner,device_type,degree,solo_throughput\nA,B,v100,1,5\n", "column colocated_throughput: required column is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, _ := ParseKind(c.kind)
			_, err := ImportCSV(strings.NewReader(c.in), "x.csv", k)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

func TestImportCSVConveniences(t *testing.T) {
	in := "workload,partner,device_type,degree,solo_throughput [iterations/s],colocated_throughput [iterations/s]\n" +
		"A,B,v100,1,10,4\nB,A,v100,1,5,\n"
	tab, err := ImportCSV(strings.NewReader(in), "dir/mine.csv", KindPairs)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := PairsFrom(tab)
	if p.ThroughputUnit != UnitItersPerS {
		t.Errorf("unit %q", p.ThroughputUnit)
	}
	if r := p.Rows[0]; r.Normalized != 0.4 || r.Status != StatusOK || r.Source != "csv:mine.csv" {
		t.Errorf("row 1 %+v", r)
	}
	if r := p.Rows[1]; r.Status != StatusInfeasible || !math.IsNaN(r.Normalized) {
		t.Errorf("row 2 %+v", r)
	}
}

func TestParseHeader(t *testing.T) {
	for _, c := range []struct{ in, name, unit string }{
		{"throughput", "throughput", ""}, {"throughput [samples/s]", "throughput", "samples/s"},
		{" sm_util_mean[%] ", "sm_util_mean", "%"}, {"ratio [1]", "ratio", "1"},
	} {
		n, u, _, err := ParseHeader(c.in)
		if err != nil || n != c.name || u != c.unit {
			t.Errorf("ParseHeader(%q) = %q, %q, %v", c.in, n, u, err)
		}
	}
	if _, _, _, err := ParseHeader("a [b] [c]"); err == nil {
		t.Error("two units accepted")
	}
}

// TestReplaceDirAsAWhole: an import replaces its tables together, keeps the
// other files of the directory, and leaves the old tables whole when the
// new ones are refused.
func TestReplaceDirAsAWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := ReplaceDir(dir, sampleSolo().Table(), samplePairs().Table(), sampleScaling().Table()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "NOTES.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string]string {
		out := map[string]string{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			out[e.Name()] = string(b)
		}
		return out
	}
	before := snapshot()

	bad := samplePairs().Table()
	bad.Column("solo_throughput").Float[0] = -1
	err := ReplaceDir(dir, sampleSolo().Table(), bad)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "pairs.arrow")) {
		t.Fatalf("error %v, want one naming %s", err, filepath.Join(dir, "pairs.arrow"))
	}
	if after := snapshot(); !maps.Equal(before, after) {
		t.Errorf("a refused import changed the directory: %d files before, %d after", len(before), len(after))
	}

	// Other solo and pairs tables replace the old ones; scaling and the
	// notes stay.
	solo := sampleSolo()
	solo.Rows[0].Repeats = 4
	pairs := samplePairs()
	pairs.Rows = pairs.Rows[:1]
	if err := ReplaceDir(dir, solo.Table(), pairs.Table()); err != nil {
		t.Fatal(err)
	}
	after := snapshot()
	for name, same := range map[string]bool{"solo.arrow": false, "pairs.arrow": false, "scaling.arrow": true, "NOTES.md": true} {
		if (after[name] == before[name]) != same {
			t.Errorf("%s: unchanged %v, want %v", name, !same, same)
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d files after, want %d", len(after), len(before))
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("%d entries beside the dataset, want none (no temporary left)", len(entries)-1)
	}
	if _, err := Open(dir); err != nil {
		t.Error(err)
	}
}

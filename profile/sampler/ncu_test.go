package sampler

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/coloc-dev/coloc/datasets"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// dumpNCU renders a kernels table as text for golden files.
func dumpNCU(t *NCUTable) string {
	var b strings.Builder
	fmt.Fprintf(&b, "format %s\n", t.Format)
	for _, m := range t.Metrics {
		fmt.Fprintf(&b, "metric %q [%s] section=%q ncu=%q\n", m.Name, m.Unit, m.Section, m.Metric)
	}
	for _, k := range t.Kernels {
		fmt.Fprintf(&b, "kernel %d pid=%d process=%s host=%s context=%d stream=%d block=%s grid=%s device=%d cc=%s\n  %s\n",
			k.ID, k.ProcessID, k.ProcessName, k.HostName, k.Context, k.Stream, k.BlockSize, k.GridSize, k.Device, k.CC, k.Name)
		for j, v := range k.Values {
			fmt.Fprintf(&b, "  %s = %s\n", t.Metrics[j].Name, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return b.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func parseFile(t *testing.T, path string) (*NCUTable, []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, warnings, err := ParseNCU(f, path)
	if err != nil {
		t.Fatalf("ParseNCU: %v", err)
	}
	return tab, warnings
}

func TestParseNCUGolden(t *testing.T) {
	tests := []struct {
		file     string
		kernels  int
		warnings []string
	}{
		{"resnet18_h200_details.csv", 3, []string{`testdata/ncu/resnet18_h200_details.csv:20: metric Function Cache Configuration has text values ("CachePreferNone"): left out of the table`}},
		{"resnet18_h200_raw.csv", 3, []string{`testdata/ncu/resnet18_h200_raw.csv:4: metric launch__func_cache_config has text values ("CachePreferNone"): left out of the table`}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "ncu", tt.file)
			tab, warnings := parseFile(t, path)
			if len(tab.Kernels) != tt.kernels {
				t.Errorf("%d kernels, want %d", len(tab.Kernels), tt.kernels)
			}
			if fmt.Sprint(warnings) != fmt.Sprint(tt.warnings) {
				t.Errorf("warnings\n got %q\nwant %q", warnings, tt.warnings)
			}
			golden(t, strings.TrimSuffix(path, ".csv")+".golden", dumpNCU(tab))
		})
	}
}

func TestParseNCUNormalisesUnits(t *testing.T) {
	tab, _ := parseFile(t, "testdata/ncu/resnet18_h200_details.csv")
	get := func(k int, metric string) (float64, string) {
		for j, m := range tab.Metrics {
			if m.Name == metric {
				return tab.Kernels[k].Values[j], m.Unit
			}
		}
		t.Fatalf("no metric %s", metric)
		return 0, ""
	}
	tests := []struct {
		kernel int
		metric string
		want   float64
		unit   string
	}{
		{0, "Duration", 3.01e-6, "s"},
		{1, "Duration", 1.23e-3, "s"},
		{0, "DRAM Frequency", 2.62e9, "cycle/s"},
		{2, "DRAM Frequency", 2619.51e6, "cycle/s"},
		{1, "Elapsed Cycles", 2437921, "cycle"},
		{2, "Threads", 1048576, "thread"},
		{1, "Shared Memory Configuration Size", 233470, "bytes"},
		{0, "Waves Per SM", 0.48, "1"},
		{1, "Registers Per Thread", 168, "register/thread"},
	}
	for _, tt := range tests {
		got, unit := get(tt.kernel, tt.metric)
		if unit != tt.unit || relDiff(got, tt.want) > 1e-12 {
			t.Errorf("kernel %d %s = %v [%s], want %v [%s]", tt.kernel, tt.metric, got, unit, tt.want, tt.unit)
		}
	}
	if v, _ := get(0, "L2 Cache Throughput"); v == v {
		t.Errorf("n/a read as %v, want NaN", v)
	}
}

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	d := (a - b) / b
	if d < 0 {
		d = -d
	}
	return d
}

const ncuHeader = `"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"` + "\n"

func ncuRow(id, kernel, section, metric, unit, value string) string {
	return fmt.Sprintf(`"%s","7","py","h","%s","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0","%s","%s","%s","%s"`+"\n", id, kernel, section, metric, unit, value)
}

func TestParseNCUErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no header", "hello\nworld\n", `x.csv:2: no ncu CSV header`},
		{"no kernel name", `"ID","Metric Name","Metric Value"` + "\n", `x.csv:1: header has no "Kernel Name" column`},
		{"bad thousands", ncuHeader + ncuRow("0", "k", "S", "Threads", "thread", "1,23,4"), `x.csv:2: column "Metric Value": metric Threads: "1,23,4" is not a number`},
		{"two decimal points", "junk\n" + ncuHeader + ncuRow("0", "k", "S", "Duration", "usecond", "1.2.3"), `x.csv:3: column "Metric Value": metric Duration: "1.2.3" is not a number`},
		{"infinite", ncuHeader + ncuRow("0", "k", "S", "Duration", "usecond", "inf"), `x.csv:2: column "Metric Value": metric Duration: "inf" is not a number`},
		{"bad ID", ncuHeader + ncuRow("zero", "k", "S", "Duration", "usecond", "1"), `x.csv:2: column "ID": launch ID "zero" is not an integer`},
		{"bad stream", ncuHeader + strings.Replace(ncuRow("0", "k", "S", "Duration", "usecond", "1"), `"7","(1`, `"seven","(1`, 1), `x.csv:2: column "Stream": "seven" is not an integer`},
		{"units that do not convert", ncuHeader + ncuRow("0", "k", "S", "Duration", "usecond", "1") + ncuRow("1", "k", "S", "Duration", "byte", "1"),
			`x.csv:3: column "Metric Value": metric Duration in "byte" here, in "s" (line 2) before: the units do not convert`},
		{"one ID, two kernels", ncuHeader + ncuRow("0", "k", "S", "A", "", "1") + ncuRow("0", "other", "S", "B", "", "1"),
			`x.csv:3: column "Kernel Name": launch ID 0 is kernel "other" here but "k" earlier`},
		{"short row", ncuHeader + `"0","7","py"` + "\n", `x.csv:2: row has 3 fields, the header has 15`},
		{"bare quote", ncuHeader + ncuRow("0", `k"x`, "S", "A", "", "1"), `x.csv:2: extraneous or missing " in quoted-field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseNCU(strings.NewReader(tt.in), "x.csv")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestParseNCUNamesAndDuplicates: newer ncu adds rule columns and rule
// rows; a metric name in two sections gets its section in the column name;
// a launch that repeats a metric keeps the first value.
func TestParseNCUNamesAndDuplicates(t *testing.T) {
	header := strings.TrimSuffix(ncuHeader, "\n") + `,"Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"` + "\n"
	row := func(id, section, metric, unit, value string) string {
		return strings.TrimSuffix(ncuRow(id, "k", section, metric, unit, value), "\n") + `,"","","","",""` + "\n"
	}
	in := "==PROF== Connected\n" + header +
		row("0", "Memory Workload Analysis", "Throughput", "Gbyte/second", "1.5") +
		row("0", "Compute Workload Analysis", "Throughput", "%", "40") +
		row("0", "Launch Statistics", "Grid Size", "", "8") +
		row("1", "Memory Workload Analysis", "Throughput", "Mbyte/second", "500") +
		row("1", "Memory Workload Analysis", "Throughput", "Mbyte/second", "501") +
		`"1","7","py","h","k","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0","Launch Statistics","","","","Rule","OPT","x","local","12.5"` + "\n"
	tab, warnings, err := ParseNCU(strings.NewReader(in), "y.csv")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range tab.Metrics {
		got = append(got, m.Name+" ["+m.Unit+"]")
	}
	want := []string{"Memory Workload Analysis/Throughput [bytes/s]", "Compute Workload Analysis/Throughput [%]", "Grid Size [1]"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("metrics %q, want %q", got, want)
	}
	if len(tab.Kernels) != 2 || tab.Kernels[0].Values[0] != 1.5e9 || tab.Kernels[1].Values[0] != 500e6 {
		t.Errorf("kernels %+v; want 2, at 1.5 GB/s and 500 MB/s", tab.Kernels)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "y.csv:7: metric Throughput of launch 1 given twice (5e+08, then 5.01e+08): kept the first") {
		t.Errorf("warnings %q", warnings)
	}
}

func TestNCUFileRoundTrip(t *testing.T) {
	for _, file := range []string{"resnet18_h200_details.csv", "resnet18_h200_raw.csv"} {
		tab, _ := parseFile(t, filepath.Join("testdata", "ncu", file))
		path := filepath.Join(t.TempDir(), "kernels.arrow")
		if err := WriteNCU(path, tab, file); err != nil {
			t.Fatal(err)
		}
		back, err := ReadNCU(path)
		if err != nil {
			t.Fatal(err)
		}
		if dumpNCU(back) != dumpNCU(tab) {
			t.Errorf("%s: read back\n%s\nwrote\n%s", file, dumpNCU(back), dumpNCU(tab))
		}
		entries, _ := os.ReadDir(filepath.Dir(path))
		if len(entries) != 1 {
			t.Errorf("temporary files left behind: %v", entries)
		}
	}
}

func TestReadNCURefuses(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(dir, "samples.arrow")
	s := datasets.NewSamples([]datasets.Counter{{Name: "power", Unit: "W"}})
	if err := datasets.Write(samples, s.Table()); err != nil {
		t.Fatal(err)
	}
	v2 := filepath.Join(dir, "v2.arrow")
	writeSchemaOnly(t, v2, map[string]string{datasets.MetaTable: NCUTableName, datasets.MetaVersion: "2"})
	tests := []struct {
		path, want string
		version    bool
	}{
		{samples, `holds table "samples", want "ncu_kernels"`, false},
		{v2, `table ncu_kernels has schema version "2"; this coloc reads version 1`, true},
		{filepath.Join("testdata", "ncu", "resnet18_h200_raw.csv"), "not a readable Arrow IPC file", false},
	}
	for _, tt := range tests {
		_, err := ReadNCU(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, datasets.ErrVersion) != tt.version {
			t.Errorf("ReadNCU(%s): %v, want %q (version error %v)", tt.path, err, tt.want, tt.version)
		}
	}
}

func writeSchemaOnly(t *testing.T, path string, meta map[string]string) {
	t.Helper()
	var keys, vals []string
	for k, v := range meta {
		keys, vals = append(keys, k), append(vals, v)
	}
	md := arrow.NewMetadata(keys, vals)
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, &md)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

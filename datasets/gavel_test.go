package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	gavelUpstream = "reference/gavel/upstream/simulation_throughputs.json"
	gavelRef      = "reference/gavel"
)

func importUpstreamGavel(t *testing.T) *Imported {
	t.Helper()
	f, err := os.Open(gavelUpstream)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	im, err := ImportGavel(f, gavelUpstream)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// TestGavelUpstreamCounts checks the import against the counts of the
// upstream file (see shared/data/README.md): ordered single-GPU pairs with a
// measured value per device type, and the 80 V100 placeholders.
func TestGavelUpstreamCounts(t *testing.T) {
	im := importUpstreamGavel(t)
	type count struct{ measured, suspect, infeasible int }
	got := map[string]count{}
	for _, p := range im.Pairs.Rows {
		if p.Degree != 1 {
			continue
		}
		c := got[p.DeviceType]
		switch p.Status {
		case StatusOK:
			c.measured++
		case StatusSuspect:
			c.measured++
			c.suspect++
		case StatusInfeasible:
			c.infeasible++
		}
		got[p.DeviceType] = c
	}
	want := map[string]count{
		"k80": {589, 0, 87}, "p100": {656, 0, 20}, "v100": {636, 80, 40},
		"k80_unconsolidated": {589, 0, 87}, "p100_unconsolidated": {656, 0, 20}, "v100_unconsolidated": {636, 80, 40},
	}
	for dev, w := range want {
		if got[dev] != w {
			t.Errorf("%s: got %+v, want %+v", dev, got[dev], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("device types %v, want %d of them", got, len(want))
	}
	// 26 job types, each paired with all 26 at one GPU: 676 ordered pairs.
	if n := countWhere(im.Pairs.Rows, func(p Pair) bool { return p.DeviceType == "k80" && p.Degree == 1 }); n != 676 {
		t.Errorf("k80 single-GPU pair rows = %d, want 676", n)
	}
	if len(im.Warnings) != 3 {
		t.Errorf("warnings = %q, want the 3 k80 ResNet-50 (batch size 128) multi-GPU jobs without a solo value", im.Warnings)
	}
}

func countWhere(rows []Pair, f func(Pair) bool) int {
	n := 0
	for _, r := range rows {
		if f(r) {
			n++
		}
	}
	return n
}

// TestGavelReferenceUpToDate guards the shipped tables: they must be what
// importing the shipped upstream file gives today.
func TestGavelReferenceUpToDate(t *testing.T) {
	im := importUpstreamGavel(t)
	for _, fresh := range im.Tables() {
		shipped, err := Read(filepath.Join(gavelRef, fresh.Kind.FileName()))
		if err != nil {
			t.Fatal(err)
		}
		assertTablesEqual(t, shipped, fresh)
	}
}

func TestGavelNormalizedAndSuspect(t *testing.T) {
	const in = `{"v100": {
  "('A (batch size 16)', 1)": {"null": 10.0,
     "('A (batch size 16)', 1)": [5.0, 5.0],
     "('B (batch size 32)', 1)": [10.0, 2.0]},
  "('B (batch size 32)', 1)": {"null": 4.0,
     "('A (batch size 16)', 1)": [2.0, 10.0],
     "('B (batch size 32)', 1)": [0.0, 0.0]}}}`
	im, err := ImportGavel(strings.NewReader(in), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string]struct {
		status string
		norm   float64
	}{
		{"A (batch size 16)", "A (batch size 16)"}: {StatusOK, 0.5},
		{"A (batch size 16)", "B (batch size 32)"}: {StatusSuspect, 1.0},
		{"B (batch size 32)", "A (batch size 16)"}: {StatusOK, 0.5},
		{"B (batch size 32)", "B (batch size 32)"}: {StatusInfeasible, 0},
	}
	if len(im.Pairs.Rows) != len(want) {
		t.Fatalf("%d pairs, want %d", len(im.Pairs.Rows), len(want))
	}
	for _, p := range im.Pairs.Rows {
		w := want[[2]string{p.Workload, p.Partner}]
		if p.Status != w.status || (w.status != StatusInfeasible && p.Normalized != w.norm) {
			t.Errorf("%s|%s: %s %v, want %s %v", p.Workload, p.Partner, p.Status, p.Normalized, w.status, w.norm)
		}
	}
	if im.Solo.Rows[1].BatchSize != 32 {
		t.Errorf("batch size %d, want 32", im.Solo.Rows[1].BatchSize)
	}
}

func TestGavelBadInput(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"malformed JSON", "{\"k80\": {\n  \"('A', 1)\": {\"null\": 1.0,,}}}", "line 2, column"},
		{"not an object", `[1, 2]`, "malformed JSON"},
		{"empty", `{}`, "no device types"},
		{"bad key", `{"k80": {"A": {"null": 1}}}`, `key "A" is not`},
		{"no solo", `{"k80": {"('A', 1)": {}}}`, `no solo throughput`},
		{"negative solo", `{"k80": {"('A', 1)": {"null": -2}}}`, `not a non-negative number`},
		{"unknown partner", `{"k80": {"('A', 1)": {"null": 2, "('Z', 1)": [1, 1]}}}`, `pair names unknown workload ('Z', 1)`},
		{"pair not a pair", `{"k80": {"('A', 1)": {"null": 2, "('A', 1)": [1]}}}`, `want [this job's throughput`},
		{"scale mismatch", `{"k80": {"('A', 1)": {"null": 2, "('B', 2)": [1, 1]}, "('B', 2)": {"null": 1}}}`, `scale factor 2, job has 1`},
		{"half zero", `{"k80": {"('A', 1)": {"null": 2, "('A', 1)": [0, 1]}}}`, `co-located throughput is 0`},
		{"duplicate solo", "{\"k80\": {\"('A', 1)\": {\"null\": 2,\n \"null\": 3}}}", `in.json:2: k80.('A', 1).null: member "null" appears twice in one object`},
		{"duplicate job", "{\"k80\": {\"('A', 1)\": {\"null\": 2},\n\"('A', 1)\": {\"null\": 3}}}", `in.json:2: k80.('A', 1): member "('A', 1)" appears twice`},
		{"duplicate device", "{\"k80\": {\"('A', 1)\": {\"null\": 2}}, \"k80\": {}}", `in.json:1: k80: member "k80" appears twice`},
		{"not UTF-8", "{\"k80\": {\"('A\xff', 1)\": {\"null\": 2}}}", "in.json:1: k80.('A\uFFFD', 1): member name is not UTF-8 text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ImportGavel(strings.NewReader(c.in), "in.json")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "in.json") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestPolluxReference(t *testing.T) {
	im, err := ImportPollux("reference/pollux/upstream", DefaultPolluxOptions)
	if err != nil {
		t.Fatal(err)
	}
	// 540+1183+754+864+1661+540 placements rows and 180+329+198+288+458+108
	// scalability rows (line counts of the upstream files minus headers).
	if got, want := len(im.Scaling.Rows), 5542+1561; got != want {
		t.Errorf("%d rows, want %d", got, want)
	}
	shipped, err := Read("reference/pollux/scaling.arrow")
	if err != nil {
		t.Fatal(err)
	}
	assertTablesEqual(t, shipped, im.Tables()[0])
	// First placements row of bert: "1,4,0.45532354712486267,...": one GPU,
	// batch 4, so 4/0.4553... samples/s.
	r := im.Scaling.Rows[0]
	if r.Workload != "bert" || r.Degree != 1 || r.Nodes != 1 || r.BatchSize != 4 || r.Throughput != 4/0.45532354712486267 {
		t.Errorf("first row %+v", r)
	}
}

func TestPolluxBadInput(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "m"), 0o755)
	write := func(s string) {
		os.WriteFile(filepath.Join(dir, "m", "placements.csv"), []byte(s), 0o644)
	}
	cases := []struct{ in, want string }{
		{"placement,local_bsz,step_time\n1,4,0.5\n", "column sync_time: missing column"},
		{"placement,local_bsz,step_time,sync_time\n1,4,0.5,0.1\n1x,4,0.5,0.1\n", "placements.csv:3: column placement"},
		{"placement,local_bsz,step_time,sync_time\n1,4,-0.5,0.1\n", "column step_time: -0.5 is not positive"},
		{"placement,local_bsz,step_time,sync_time\n1,4,NaN,0.1\n", "not a finite number"},
		{"placement,local_bsz,step_time,sync_time\n1,\"4,0.5,0.1\n", "malformed CSV"},
		{"placement,local_bsz,step_time,sync_time\n1,1_000,0.5,0.1\n", `column local_bsz: "1_000" is not a positive integer`},
		{"placement,local_bsz,step_time,sync_time\n1,4,0x1p-1,0.1\n", `column step_time: "0x1p-1" is not a finite number`},
	}
	for _, c := range cases {
		write(c.in)
		_, err := ImportPollux(dir, DefaultPolluxOptions)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("input %q: error %v, want %q", c.in, err, c.want)
		}
	}
	// A model directory whose name holds a control character names no
	// workload.
	os.RemoveAll(filepath.Join(dir, "m"))
	bad := filepath.Join(dir, "m\x1b[2J")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "placements.csv"), []byte("placement,local_bsz,step_time,sync_time\n1,4,0.5,0.1\n"), 0o644)
	if _, err := ImportPollux(dir, DefaultPolluxOptions); err == nil || !strings.Contains(err.Error(), `column workload: "m\x1b[2J": a name is text`) {
		t.Errorf("a model directory named with an escape: %v", err)
	}
	os.RemoveAll(bad)
	os.MkdirAll(filepath.Join(dir, "m"), 0o755)
	var ve *ValidationError
	write("placement,local_bsz,step_time,sync_time\n1,0,0.5,0.1\n")
	if _, err := ImportPollux(dir, DefaultPolluxOptions); !errors.As(err, &ve) || ve.Problems[0].Line != 2 {
		t.Errorf("error %v, want a ValidationError at line 2", err)
	}
}

package place

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

const polluxDir = "../datasets/reference/pollux"

// Pollux's scaling measurements are in samples/s on t4: alone they make
// the policy's unit; next to Gavel's iterations/s they are left out, with
// a warning, never converted.
func TestDataUnits(t *testing.T) {
	p, err := LoadData([]string{polluxDir})
	if err != nil {
		t.Fatal(err)
	}
	if p.Unit != datasets.UnitSamplesPerS || !p.Knows("bert") || !p.HasType("t4") || len(p.Warnings) != 0 {
		t.Errorf("pollux: unit %s, knows bert %v, warnings %q", p.Unit, p.Knows("bert"), p.Warnings)
	}
	both, err := LoadData([]string{gavelDir, polluxDir})
	if err != nil {
		t.Fatal(err)
	}
	if both.Unit != datasets.UnitItersPerS || both.Knows("bert") || len(both.Warnings) != 1 ||
		!strings.Contains(both.Warnings[0], "scaling throughputs are in samples/s, the policy's in iterations/s: left out") {
		t.Errorf("gavel+pollux: unit %s, knows bert %v, warnings %q", both.Unit, both.Knows("bert"), both.Warnings)
	}
	if len(both.Files) != 4 || !strings.HasSuffix(both.Files[3].Name, "pollux/scaling.arrow") {
		t.Errorf("files %+v", both.Files)
	}
}

// A scaling table's curve: at the job's batch size when measured, else at
// the batch size measured at the most degrees; one node, or the fewest
// nodes above one when spread.
func TestDataScalingCurve(t *testing.T) {
	d, err := LoadData([]string{polluxDir})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := datasets.Open(polluxDir)
	want := func(batch, degree int, spread bool) float64 {
		best, fewest := 0.0, 0
		for _, r := range ds.Scaling.Rows {
			if r.Workload != "bert" || r.DeviceType != "t4" || r.BatchSize != batch || r.Degree != degree {
				continue
			}
			switch {
			case !spread && r.Nodes == 1:
				best = max(best, r.Throughput)
			case spread && r.Nodes > 1 && (fewest == 0 || r.Nodes < fewest):
				fewest, best = r.Nodes, r.Throughput
			case spread && r.Nodes == fewest:
				best = max(best, r.Throughput)
			}
		}
		return best
	}
	for _, c := range []struct {
		batch, degree int
		spread        bool
	}{{8, 1, false}, {8, 4, false}, {8, 8, true}, {4, 2, false}} {
		got, ok := d.Solo("bert", "t4", c.degree, c.spread, c.batch)
		if w := want(c.batch, c.degree, c.spread); !ok || got != w || w == 0 {
			t.Errorf("bert batch %d at %d (spread %v): %v %v, want %v", c.batch, c.degree, c.spread, got, ok, w)
		}
	}
	if _, ok := d.Solo("bert", "t4", 4, false, 0); !ok {
		t.Error("no curve without a batch size")
	}
	if _, ok := d.Solo("bert", "v100", 1, false, 8); ok {
		t.Error("a rate on a type the data do not hold")
	}
}

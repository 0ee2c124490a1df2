package profile

import (
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

// okSide is an ok side of a run with throughput v; spread > 0 makes it
// unsettled.
func okSide(w string, v, spread float64) sideRecord {
	settled := spread == 0
	from, to := 1.0, 3.0
	st := 1 / v
	s := sideRecord{Workload: w, Label: w, Status: datasets.StatusOK, Throughput: &v, StepTime: &st, Settled: &settled,
		WindowFrom: &from, WindowTo: &to}
	if !settled {
		s.Spread = &spread
	}
	return s
}

// An unsettled pair run makes its rows suspect, with a warning naming the
// run; an unsettled solo run widens the solo interval and makes the pairs
// normalized by it suspect; a normalized value above 1 is kept as data.
func TestTablesUnsettled(t *testing.T) {
	s := fakeSuite(t, fake("a", "ok"), fake("b", "ok"), fake("c", "ok"))
	plan := &Plan{Runs: []PlannedRun{
		soloRun("a"), soloRun("b"), soloRun("c"), pairRun("a", "b"), pairRun("a", "c"),
	}}
	solo := func(w string, v, spread float64) *RunRecord {
		return &RunRecord{RunID: "solo." + w + ".r0", Mode: datasets.ModeSolo, Degree: 1, DeviceType: "cpu",
			DeviceIDs: "0", Share: datasets.ShareExclusive, Status: datasets.StatusOK, Sides: []sideRecord{okSide(w, v, spread)}}
	}
	pair := func(a, b string, va, vb, spread float64) *RunRecord {
		return &RunRecord{RunID: "pair." + a + "+" + b + ".r0", Mode: datasets.ModePair, Degree: 1, DeviceType: "cpu",
			DeviceIDs: "0", Share: datasets.ShareTimeSlice, Status: datasets.StatusOK,
			Sides: []sideRecord{okSide(a, va, spread), okSide(b, vb, 0)}}
	}
	recs := map[string]*RunRecord{}
	for _, r := range []*RunRecord{
		solo("a", 100, 0), solo("b", 100, 0), solo("c", 100, 0.3),
		pair("a", "b", 120, 50, 0.2), // a unsettled; 120/100 > 1 is data
		pair("a", "c", 60, 40, 0),    // settled, but c's solo is not
	} {
		recs[r.RunID] = r
	}
	tb := buildTables("camp", s, plan, recs)
	if err := datasets.Validate(tb.Pairs.Table(), "pairs"); err != nil {
		t.Fatal(err)
	}
	if err := datasets.Validate(tb.Runs.Table(), "runs"); err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, p := range tb.Pairs.Rows {
		status[p.Workload+"|"+p.Partner] = p.Status
		if p.Workload == "a" && p.Partner == "b" && p.Normalized != 1.2 {
			t.Errorf("a|b normalized %v, want 1.2 (kept above 1)", p.Normalized)
		}
	}
	want := map[string]string{"a|b": datasets.StatusSuspect, "b|a": datasets.StatusSuspect,
		"a|c": datasets.StatusOK, "c|a": datasets.StatusSuspect}
	for k, st := range want {
		if status[k] != st {
			t.Errorf("pair %s: status %q, want %q", k, status[k], st)
		}
	}
	warns := strings.Join(tb.Warnings, "\n")
	for _, w := range []string{"pair a|b on cpu is suspect: step time never settled in pair run pair.a+b.r0",
		"pair c|a on cpu is suspect: normalized by the solo value of c, whose step time never settled in run solo.c.r0"} {
		if !strings.Contains(warns, w) {
			t.Errorf("warnings lack %q:\n%s", w, warns)
		}
	}
	for _, r := range tb.Solo.Rows {
		switch r.Workload {
		case "c":
			if r.CILow != 70 || r.CIHigh != 130 {
				t.Errorf("solo c: CI [%v, %v], want [70, 130] (±30%% of an unsettled run)", r.CILow, r.CIHigh)
			}
		default:
			if r.CILow == r.CILow { // one settled run: no interval
				t.Errorf("solo %s: CI [%v, %v], want unknown", r.Workload, r.CILow, r.CIHigh)
			}
		}
	}
	settled := map[string]string{}
	for _, r := range tb.Runs.Rows {
		settled[r.RunID] = r.Settled
		if r.WindowStart.IsZero() || r.WindowEnd.Sub(r.WindowStart).Seconds() != 2 {
			t.Errorf("run %s: window %v..%v, want 2 s", r.RunID, r.WindowStart, r.WindowEnd)
		}
	}
	if settled["solo.c.r0"] != datasets.SettledNo || settled["solo.a.r0"] != datasets.SettledYes || settled["pair.a+b.r0/a"] != datasets.SettledNo {
		t.Errorf("settled column %v", settled)
	}
}

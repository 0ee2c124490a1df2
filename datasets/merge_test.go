package datasets

import (
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	a := samplePairs()
	b := samplePairs()
	b.Rows = b.Rows[1:2] // an exact duplicate of a's row 2
	b.Rows = append(b.Rows, Pair{Workload: "A", Partner: "B", DeviceType: "p100", Degree: 1, Solo: 70, Colocated: 35, Normalized: 0.5, NormLow: nan, NormHigh: nan, Status: StatusOK, Source: "other"})
	m, err := Merge([]*Table{a.Table(), b.Table()}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 5 {
		t.Fatalf("%d rows, want 4 from a + 1 new from b", m.Len())
	}
	// b has no CI columns: its new row is null there.
	if c := m.Column("normalized_ci_low"); c == nil || !c.IsNull(4) {
		t.Error("ci column of the new row should be null")
	}

	c := samplePairs()
	c.Rows = c.Rows[:1]
	c.Rows[0].Colocated, c.Rows[0].Normalized = 70, 0.7
	_, err = Merge([]*Table{a.Table(), c.Table()}, []string{"a.arrow", "c.arrow"})
	want := `conflicting rows for key (workload="A", partner="B", device_type="v100", degree=1): a.arrow row 1 and c.arrow row 1 differ in colocated_throughput`
	if err == nil || err.Error() != want {
		t.Fatalf("error\n %v\nwant\n %s", err, want)
	}
}

func TestMergeRefusesMixedKindsAndUnits(t *testing.T) {
	if _, err := Merge([]*Table{samplePairs().Table(), sampleSolo().Table()}, []string{"p", "s"}); err == nil || !strings.Contains(err.Error(), "one kind") {
		t.Errorf("error %v", err)
	}
	x := samplePairs()
	x.ThroughputUnit = UnitItersPerS
	if _, err := Merge([]*Table{samplePairs().Table(), x.Table()}, []string{"p", "x"}); err == nil || !strings.Contains(err.Error(), "iterations/s") {
		t.Errorf("error %v", err)
	}
}

func TestMergeSamples(t *testing.T) {
	s := sampleSamples()
	m, err := Merge([]*Table{s, s}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != s.Len() {
		t.Errorf("%d rows, want %d", m.Len(), s.Len())
	}
}

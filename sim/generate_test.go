package sim

import (
	"bytes"
	"reflect"
	"testing"
)

// The generator is seeded: the same seed gives the same trace, another
// seed another; a written trace reads back as the same jobs.
func TestGenerateSeededAndRoundTrip(t *testing.T) {
	truth := fakeRates{solo: map[string]float64{"A|g": 2, "B|g": 0.5}}
	o := GenOptions{Jobs: 200, Seed: 7, Workloads: []string{"A", "B"}, Rates: truth, RefType: "g", MeanGap: 60}
	a, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(o)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different traces")
	}
	o.Seed = 8
	if c, _ := Generate(o); reflect.DeepEqual(a, c) {
		t.Fatal("different seeds, same trace")
	}
	scales := map[int]int{}
	for i, j := range a {
		scales[j.Scale]++
		if i > 0 && j.Arrival < a[i-1].Arrival || j.Steps < 1 {
			t.Fatalf("job %d: %+v", i, j)
		}
	}
	if scales[1] < 100 || scales[1]+scales[2]+scales[4]+scales[8] != 200 {
		t.Errorf("scales %v: want mostly 1 GPU, all of 1, 2, 4, 8", scales)
	}
	var buf bytes.Buffer
	if err := WriteTrace(&buf, a); err != nil {
		t.Fatal(err)
	}
	tr, err := ReadTrace(&buf, "gen")
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range tr.Jobs {
		w := a[i]
		if j.Workload != w.Workload || j.Steps != w.Steps || j.Scale != w.Scale || j.Arrival-w.Arrival > 1e-6 || w.Arrival-j.Arrival > 1e-6 {
			t.Fatalf("job %d read back as %+v, wrote %+v", i, j, w)
		}
	}
	if _, err := Generate(GenOptions{Jobs: 0}); err == nil {
		t.Error("zero jobs accepted")
	}
}

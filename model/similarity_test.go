package model

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/features"
)

func TestDistances(t *testing.T) {
	m := &Similarity{Lo: floats{0, 0}, Hi: floats{10, 2}}
	a := Query{Num: []float64{0, 0}, Cat: []string{"cnn"}}
	b := Query{Num: []float64{10, 1}, Cat: []string{"rnn"}}
	// normalized: a = (0, 0), b = (1, 0.5); categorical: mismatch.
	tests := []struct {
		dist string
		p    float64
		want float64
	}{
		{"gower", 0, (1 + 0.5 + 1) / 3},
		{"manhattan", 0, 1 + 0.5 + 2},
		{"euclidean", 0, math.Sqrt(1 + 0.25 + 2)},
		{"minkowski", 3, math.Cbrt(1 + 0.125 + 2)},
		{"cosine", 0, 1 - 0.0/(1*math.Sqrt(1+0.25+1))},
	}
	for _, tc := range tests {
		m.Opts = SimilarityOptions{Distance: tc.dist, P: tc.p}
		if got := m.Distance(a, b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", tc.dist, got, tc.want)
		}
		if got := m.Distance(b, b); got > 1e-12 {
			t.Errorf("%s: distance of a vector to itself %v", tc.dist, got)
		}
	}
	// Missing attributes are left out, not counted as differences.
	m.Opts.Distance = "gower"
	c := Query{Num: []float64{math.NaN(), 1}, Cat: []string{""}}
	if got := m.Distance(b, c); got != 0 {
		t.Errorf("gower with missing attributes: %v, want 0", got)
	}
	if ValidDistance("chebyshev") == nil {
		t.Error("an unknown distance is accepted")
	}
}

func TestSimilarityOnGavel(t *testing.T) {
	d, err := LoadData("../datasets/reference/gavel")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrain(d.Space, d.Obs, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := NewSimilarity(DefaultSimilarityOptions)
	if err := m.Fit(tr); err != nil {
		t.Fatal(err)
	}
	// A batch size Gavel never measured: its nearest references are its own
	// family, nearest batch sizes first.
	q, known, err := m.QueryFor("ResNet-50 (batch size 48)", 48)
	if err != nil || known {
		t.Fatalf("QueryFor: known %v, %v", known, err)
	}
	nb := m.NearestTo(q, 3)
	want := []string{"ResNet-50 (batch size 64)", "ResNet-50 (batch size 32)"}
	for i, w := range want {
		if nb[i].Job != w {
			t.Errorf("neighbour %d: %s, want %s", i+1, nb[i].Job, w)
		}
	}
	// A known job is not its own neighbour.
	own, err := m.Nearest("LM (batch size 20)", 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range own {
		if n.Job == "LM (batch size 20)" || features.FamilyOf(n.Job) != "LM" {
			t.Errorf("neighbour of LM (batch size 20): %s", n.Job)
		}
	}
	sug, err := m.Suggest(nb)
	if err != nil {
		t.Fatal(err)
	}
	// V100 is the fastest of Gavel's GPUs for every ResNet-50 it measured.
	if sug.DeviceType != "v100" || sug.Score != 1 || sug.Degree < 1 {
		t.Errorf("suggestion %+v, want v100 with relative throughput 1", sug)
	}
}

func TestIASPInterferenceSimilarity(t *testing.T) {
	sp, raw := synthetic(t, 10, 41)
	train, _ := allPairs(10, 0.8, 6, func(a, b int) float64 { return 0.7 + 0.1*raw[a][0] - 0.05*raw[b][1] })
	tr, err := NewTrain(sp, train, 2)
	if err != nil {
		t.Fatal(err)
	}
	m := NewIASP(DefaultIASPOptions)
	if err := m.Fit(tr); err != nil {
		t.Fatal(err)
	}
	self, err := m.Similarity("job01", "job01", "gpu")
	if err != nil {
		t.Fatal(err)
	}
	ab, _ := m.Similarity("job01", "job02", "gpu")
	ba, _ := m.Similarity("job02", "job01", "gpu")
	if math.Abs(self-1) > 1e-12 || ab != ba || ab < -1 || ab > 1 {
		t.Errorf("similarity: self %v, a-b %v, b-a %v; want 1, symmetric, in [-1, 1]", self, ab, ba)
	}
	if _, err := m.Similarity("job01", "nobody", "gpu"); err == nil {
		t.Error("an unknown job is accepted")
	}
}

func TestCheckNeighbors(t *testing.T) {
	sp, raw := synthetic(t, 8, 5)
	train, _ := allPairs(8, 1, 1, func(a, b int) float64 { return 0.8 + 0.01*raw[a][0] })
	tr, err := NewTrain(sp, train, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := NewSimilarity(DefaultSimilarityOptions)
	if err := m.Fit(tr); err != nil {
		t.Fatal(err)
	}
	q := m.query(0)
	nb, err := m.Nearest(sp.Jobs[0], 3)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := m.CheckNeighbors(q, sp.Jobs[0], nb); err != nil || len(w) != 0 {
		t.Errorf("a known job among distinct references: warnings %q, error %v", w, err)
	}
	far := Query{Num: []float64{50, 50, q.Num[2]}, Cat: q.Cat}
	if w, err := m.CheckNeighbors(far, "", m.NearestTo(far, 3)); err != nil || len(w) != 1 || !strings.Contains(w[0], "out of distribution") {
		t.Errorf("a far query: warnings %q, error %v; want one out-of-distribution warning", w, err)
	}
	// Without descriptors that vary, references cannot be told apart.
	for k := range m.Lo {
		m.Lo[k], m.Hi[k] = 0, 0
	}
	if _, err := m.CheckNeighbors(q, sp.Jobs[0], nb); !errors.Is(err, errIndistinct) {
		t.Errorf("constant descriptors: error %v, want errIndistinct", err)
	}
}

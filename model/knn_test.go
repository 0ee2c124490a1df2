package model

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// knnExhaustive is the definition the search must reproduce: sort every
// candidate of the slot (every observed pair when the slot has none) by
// (distance, index) and average the first k.
func knnExhaustive(m *knnModel, a, b, s int) float64 {
	q := pairVec(m.f, a, b, s, make([]float64, pairDim(m.f)))
	type cand struct {
		d float64
		i int
	}
	var cs []cand
	for _, sameSlot := range []bool{true, false} {
		for i, o := range m.Obs {
			if sameSlot && o.S != s {
				continue
			}
			d := 0.0
			for k, v := range m.vecs[i] {
				d += (v - q[k]) * (v - q[k])
			}
			cs = append(cs, cand{d, i})
		}
		if len(cs) > 0 {
			break
		}
	}
	sort.Slice(cs, func(x, y int) bool {
		if cs[x].d != cs[y].d {
			return cs[x].d < cs[y].d
		}
		return cs[x].i < cs[y].i
	})
	k := min(m.K, len(cs))
	if k == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, c := range cs[:k] {
		sum += m.Obs[c.i].Y
	}
	return sum / float64(k)
}

// The pruned top-k search returns the bits of the exhaustive sort, ties
// included: jobs with equal features make many pairs equidistant.
func TestKNNMatchesExhaustiveSort(t *testing.T) {
	co := DefaultCatalogueOptions
	co.Jobs, co.Partners = 60, 20
	d, err := Catalogue(co)
	if err != nil {
		t.Fatal(err)
	}
	// clones: jobs 1-9 copy the features of job 0, so distances tie
	for j := 1; j < 10; j++ {
		d.Space.X[j] = d.Space.X[0]
	}
	train, test := d.Obs[:len(d.Obs)/3], d.Obs[len(d.Obs)/3:]
	tr, err := NewTrain(d.Space, train, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	for _, k := range []int{1, 3, 10, len(train) + 5} {
		m := &knnModel{K: k, Obs: train}
		m.bind(tr.Frame)
		for i := 0; i < 300; i++ {
			o := test[r.IntN(len(test))]
			if got, want := m.Predict(o.A, o.B, 0), knnExhaustive(m, o.A, o.B, 0); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("k=%d, %d|%d: %v, exhaustive sort %v", k, o.A, o.B, got, want)
			}
		}
	}
	// the fitted model (K chosen on a validation split through the shared
	// memo) predicts like a model bound with that K
	m := newKNN(defaultKNNOptions)
	if err := m.Fit(tr); err != nil {
		t.Fatal(err)
	}
	for _, o := range test[:200] {
		if got, want := m.Predict(o.A, o.B, 0), knnExhaustive(m, o.A, o.B, 0); got != want {
			t.Fatalf("fitted k=%d, %d|%d: %v, exhaustive sort %v", m.K, o.A, o.B, got, want)
		}
	}
}

// A slot without observed pairs falls back to every observed pair.
func TestKNNOtherSlotFallback(t *testing.T) {
	sp, raw := synthetic(t, 8, 3)
	train, _ := allPairs(8, 0.6, 2, func(a, b int) float64 { return 0.8 + 0.05*raw[a][0] })
	tr, err := NewTrain(sp, train, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := &knnModel{K: 3, Obs: train}
	m.bind(tr.Frame)
	m.cell[0] = nil // as if slot 0 had no pair
	for a := 0; a < 8; a++ {
		if got, want := m.Predict(a, 2, 0), knnExhaustive(m, a, 2, 0); got != want || math.IsNaN(got) {
			t.Fatalf("fallback %d|2: %v, exhaustive sort %v", a, got, want)
		}
	}
}

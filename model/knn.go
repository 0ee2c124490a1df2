package model

import (
	"math"
	"sort"
)

// KNNOptions are the hyper-parameters of the k-nearest-neighbours
// baseline.
type KNNOptions struct {
	// Ks are the neighbourhood sizes tried (validation split of the
	// training pairs).
	Ks []int `json:"ks"`
}

// DefaultKNNOptions are the defaults of the knn baseline.
var DefaultKNNOptions = KNNOptions{Ks: []int{3, 5, 10}}

// KNN predicts the mean normalized throughput of the K observed pairs of
// the same slot nearest in feature space (Euclidean distance between pair
// vectors: standardized features of both jobs). It keeps the observed
// pairs.
type KNN struct {
	framed
	Opts KNNOptions `json:"options"`
	K    int        `json:"k"`
	Obs  []Obs      `json:"obs"`
	vecs [][]float64
}

// NewKNN returns the knn baseline.
func NewKNN(o KNNOptions) *KNN { return &KNN{Opts: o} }

// Name implements Model.
func (m *KNN) Name() string { return "knn" }

// Hyper implements Hyper.
func (m *KNN) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *KNN) Fit(t *Train) error {
	best := chooseByValidation(t, len(m.Opts.Ks), 0, func(i int, tr *Train) (Model, error) {
		c := &KNN{Opts: m.Opts, K: m.Opts.Ks[i], Obs: tr.Obs}
		c.bind(tr.Frame)
		return c, nil
	})
	m.K = 5
	if len(m.Opts.Ks) > 0 {
		m.K = m.Opts.Ks[best]
	}
	m.Obs = t.Obs
	m.bind(t.Frame)
	return nil
}

func (m *KNN) bind(f *Frame) {
	m.f = f
	m.vecs = make([][]float64, len(m.Obs))
	for i, o := range m.Obs {
		m.vecs[i] = pairVec(f, o.A, o.B, o.S, make([]float64, pairDim(f)))
	}
}

// Predict implements Model.
func (m *KNN) Predict(a, b, s int) float64 {
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

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
//
// Neighbours are ranked by (distance, index of the observed pair), so ties
// resolve to the pair observed first. The search keeps only the K best in
// a sorted buffer and visits the observed pairs of the query's slot grouped
// by victim job, the groups in increasing distance of the victim's
// features to the query's victim: the squared distance of a pair is at
// least that part, so the scan stops at the first group whose victim alone
// is farther than the K-th best. The victim part is the first terms of the
// very sum that gives the pair's distance, so the bound holds in floating
// point too (a relative margin of 1e-9 is kept all the same): the
// neighbours, their order and the prediction are those of sorting every
// candidate.
type KNN struct {
	framed
	Opts KNNOptions `json:"options"`
	K    int        `json:"k"`
	Obs  []Obs      `json:"obs"`
	vecs [][]float64
	// bySlot[s] lists, per victim job, the observed pairs of slot s.
	bySlot []map[int][]int
	// victimOrder[s*nj+a] lists the victims of slot s by increasing
	// distance of their features to a's (victimDist: those distances).
	// Built by bind, read-only afterwards, so Predict may run concurrently.
	victimOrder [][]int32
	victimDist  [][]float64
	// memo, when set, keeps each query's nearest pairs so that the
	// candidates of a validation search share one search (not safe for
	// concurrent use: it is set only inside Fit).
	memo *knnMemo
}

// knnMemo keeps the nearest pairs of each query, up to max of them.
type knnMemo struct {
	max  int
	near map[[3]int][]int
}

// NewKNN returns the knn baseline.
func NewKNN(o KNNOptions) *KNN { return &KNN{Opts: o} }

// Name implements Model.
func (m *KNN) Name() string { return "knn" }

// Hyper implements Hyper.
func (m *KNN) Hyper() any { return m.Opts }

// Fit implements Model.
func (m *KNN) Fit(t *Train) error {
	memo := &knnMemo{near: map[[3]int][]int{}}
	for _, k := range m.Opts.Ks {
		memo.max = max(memo.max, k)
	}
	var shared *KNN
	best := chooseByValidation(t, len(m.Opts.Ks), 0, func(i int, tr *Train) (Model, error) {
		if shared == nil {
			shared = &KNN{Opts: m.Opts, Obs: tr.Obs, memo: memo}
			shared.bind(tr.Frame)
		}
		c := *shared
		c.K = m.Opts.Ks[i]
		return &c, nil
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
	flat := make([]float64, len(m.Obs)*pairDim(f))
	p := pairDim(f)
	m.bySlot = make([]map[int][]int, len(f.Slots))
	for i, o := range m.Obs {
		m.vecs[i] = pairVec(f, o.A, o.B, o.S, flat[i*p:(i+1)*p:(i+1)*p])
		if m.bySlot[o.S] == nil {
			m.bySlot[o.S] = map[int][]int{}
		}
		m.bySlot[o.S][o.A] = append(m.bySlot[o.S][o.A], i)
	}
	nj := len(f.Jobs)
	m.victimOrder = make([][]int32, len(f.Slots)*nj)
	m.victimDist = make([][]float64, len(f.Slots)*nj)
	for s, g := range m.bySlot {
		if g == nil {
			continue
		}
		for a := 0; a < nj; a++ {
			m.victimOrder[s*nj+a], m.victimDist[s*nj+a] = m.victims(a, s)
		}
	}
}

// Predict implements Model.
func (m *KNN) Predict(a, b, s int) float64 {
	k := m.K
	var near []int
	if m.memo != nil {
		key := [3]int{a, b, s}
		var ok bool
		if near, ok = m.memo.near[key]; !ok {
			near = m.nearest(a, b, s, m.memo.max)
			m.memo.near[key] = near
		}
	} else {
		near = m.nearest(a, b, s, k)
	}
	k = min(k, len(near))
	if k == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, i := range near[:k] {
		sum += m.Obs[i].Y
	}
	return sum / float64(k)
}

// topK keeps the k smallest (distance, index) candidates, sorted.
type topK struct {
	k  int
	d  []float64
	ix []int
}

func (t *topK) full() bool { return len(t.d) == t.k }

// bound is the distance a candidate must not exceed to enter.
func (t *topK) bound() float64 {
	if !t.full() {
		return math.Inf(1)
	}
	return t.d[len(t.d)-1]
}

func (t *topK) push(d float64, i int) {
	n := len(t.d)
	if n == t.k && (d > t.d[n-1] || d == t.d[n-1] && i > t.ix[n-1]) {
		return
	}
	if n < t.k {
		t.d, t.ix = append(t.d, 0), append(t.ix, 0)
		n++
	}
	j := n - 1
	for ; j > 0 && (t.d[j-1] > d || t.d[j-1] == d && t.ix[j-1] > i); j-- {
		t.d[j], t.ix[j] = t.d[j-1], t.ix[j-1]
	}
	t.d[j], t.ix[j] = d, i
}

// nearest returns the indices of the k observed pairs nearest to (a, b, s)
// in the order of an exhaustive sort by (distance, index).
func (m *KNN) nearest(a, b, s, k int) []int {
	if k <= 0 {
		return nil
	}
	q := pairVec(m.f, a, b, s, make([]float64, pairDim(m.f)))
	top := &topK{k: k, d: make([]float64, 0, k), ix: make([]int, 0, k)}
	dist := func(i int) float64 {
		d := 0.0
		for j, v := range m.vecs[i] {
			d += (v - q[j]) * (v - q[j])
		}
		return d
	}
	groups := m.bySlot[s]
	if len(groups) == 0 {
		// no pair of this slot: every observed pair is a candidate
		for i := range m.Obs {
			top.push(dist(i), i)
		}
		return top.ix
	}
	key := s*len(m.f.Jobs) + a
	order, vd := m.victimOrder[key], m.victimDist[key]
	for r, v := range order {
		if top.full() && vd[r] > top.bound()*(1+1e-9) {
			break
		}
		for _, i := range groups[int(v)] {
			top.push(dist(i), i)
		}
	}
	return top.ix
}

// victims returns the victim jobs with observed pairs on slot s, by
// increasing squared distance of their features to a's, and the distances.
func (m *KNN) victims(a, s int) ([]int32, []float64) {
	za := m.f.Z(a, s)
	groups := m.bySlot[s]
	order := make([]int32, 0, len(groups))
	for v := range groups {
		order = append(order, int32(v))
	}
	dv := make([]float64, len(m.f.Jobs))
	for _, v := range order {
		d := 0.0
		for j, x := range m.f.Z(int(v), s) {
			d += (x - za[j]) * (x - za[j])
		}
		dv[v] = d
	}
	sort.Slice(order, func(x, y int) bool {
		if dv[order[x]] != dv[order[y]] {
			return dv[order[x]] < dv[order[y]]
		}
		return order[x] < order[y]
	})
	ds := make([]float64, len(order))
	for r, v := range order {
		ds[r] = dv[v]
	}
	return order, ds
}
